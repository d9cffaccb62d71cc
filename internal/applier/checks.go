package applier

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/exported"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// What the operator does around a write for particular kinds
// (internal/extensions): wait while the resource or its owner is in a state
// that blocks changes, retry the errors its provider gives while something
// it needs is still being provisioned, and judge it after the write.

// defaultWaitTimeout bounds a wait for a state in Azure when
// Options.WaitTimeout is zero: the operator waits for ever, azk reports.
const defaultWaitTimeout = time.Hour

func (a *applier) waitTimeout() time.Duration {
	if a.opts.WaitTimeout > 0 {
		return a.opts.WaitTimeout
	}
	return defaultWaitTimeout
}

// waitUntilWritable waits while the resource, or its owner, is in a state in
// which the operator does not write it (extensions.WriteBlocker,
// OwnerWriteBlocker), reading them again as often as operations are polled;
// waited says whether the resource itself was found so (its operation in
// flight then changes it after the plan read it).
func (a *applier) waitUntilWritable(ctx context.Context, r *planner.Resource, id string) (waited bool, err error) {
	n := r.Node
	if n == nil || n.Kind == nil {
		return false, nil
	}
	self := extensions.WriteBlockerFor(n.Kind.ARMType)
	var owner extensions.OwnerWriteBlocker
	if n.Owner != nil && n.Owner.Kind != nil {
		owner = extensions.OwnerWriteBlockerFor(n.Kind.ARMType)
	}
	if self == nil && owner == nil {
		return false, nil
	}
	blocked := func() (string, error) {
		if self != nil {
			current, err := a.current(ctx, id, n.Kind.APIVersion)
			if err != nil {
				return "", err
			}
			if why := self.BlocksWrite(current); why != "" {
				waited = true
				return why, nil
			}
		}
		if owner != nil {
			current, err := a.current(ctx, n.Owner.ID, n.Owner.Kind.APIVersion)
			if err != nil {
				return "", err
			}
			return owner.OwnerBlocksWrite(current), nil
		}
		return "", nil
	}
	err = a.waitFor(ctx, r, blocked, "Azure still reports that %s, in which the operator does not write it")
	return waited, err
}

// checkAfterWrite judges the resource as Azure holds it after the write
// (extensions.PostWriteChecker): done, failed, or read again until done.
func (a *applier) checkAfterWrite(ctx context.Context, r *planner.Resource, id string, got map[string]any) error {
	if r.Node == nil || r.Node.Kind == nil {
		return nil
	}
	c := extensions.PostWriteCheckerFor(r.Node.Kind.ARMType)
	if c == nil {
		return nil
	}
	first := true
	pending := func() (string, error) {
		if !first {
			var err error
			if got, err = a.readBack(ctx, r, id); err != nil {
				return "", err
			}
		}
		first = false
		v := c.CheckAfterWrite(got)
		if v.Fail != "" {
			// Azure's words, which may quote what it was sent.
			return "", errors.New(a.opts.Client.Redacted(v.Fail))
		}
		return v.Wait, nil
	}
	return a.waitFor(ctx, r, pending, "Azure still reports %s")
}

// waitFor calls pending until it reports nothing to wait for, an error, or
// the wait timeout passes (an error saying what it waited for, with
// message's %s). Each wait is an EventWait.
func (a *applier) waitFor(ctx context.Context, r *planner.Resource, pending func() (string, error), message string) error {
	deadline := time.Now().Add(a.waitTimeout())
	for {
		why, err := pending()
		if err != nil || why == "" {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up after %s: "+message, a.waitTimeout(), why)
		}
		a.emit(Event{Type: EventWait, Address: r.Address, ARMID: r.ARMID, Action: string(r.Action), Message: why})
		if err := sleep(ctx, a.opts.Client.PollFrequency()); err != nil {
			return err
		}
	}
}

// current reads a resource; nil when it does not exist.
func (a *applier) current(ctx context.Context, id, apiVersion string) (map[string]any, error) {
	return exported.ReadBody(ctx, a.opts.Client, id, apiVersion)
}

// retrying runs a write or delete of a resource of kind k again while it
// fails with an error the operator's classifier for the kind retries
// (extensions.ErrorClassifier), within the client's retry bounds. Each
// retry is an EventWait.
func retrying(ctx context.Context, client *arm.Client, k *graph.Node, emit func(Event), ev Event, do func() error) error {
	bounds := client.RetryBounds()
	for attempt := 1; ; attempt++ {
		err := do()
		var re *arm.ResponseError
		if err == nil || k == nil || k.Kind == nil || !errors.As(err, &re) || !extensions.Retryable(k.Kind.ARMType, re.Code, re.Message) {
			return err
		}
		if attempt >= bounds.MaxAttempts {
			return fmt.Errorf("%w (gave up after %d attempts at an error the operator retries for %s)", err, attempt, k.Kind.Kind)
		}
		wait := bounds.Backoff(attempt)
		ev.Type, ev.Message = EventWait, fmt.Sprintf("%s, which the operator retries for %s: trying again in %s", re.Code, k.Kind.Kind, wait)
		emit(ev)
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// deleteOf starts the DELETE of d: plain, or as the kind's deleter says
// (extensions.Deleter: query parameters and headers the operator sends).
// With etag, the DELETE happens only while the resource is as the plan
// read it (If-Match).
func deleteOf(ctx context.Context, client *arm.Client, d *Deletion, etag string) (*arm.Operation, error) {
	if d.node != nil && d.node.Kind != nil {
		if del := extensions.DeleterFor(d.node.Kind.ARMType); del != nil {
			query, header := del.DeleteWith()
			if etag != "" && header.Get("If-Match") == "" { // the operator's own (If-Match: *) stands
				header = header.Clone()
				if header == nil {
					header = http.Header{}
				}
				header.Set("If-Match", etag)
			}
			return client.DeleteWith(ctx, d.ARMID, d.APIVersion, query, header)
		}
	}
	return client.Delete(ctx, d.ARMID, d.APIVersion, arm.IfMatch(etag))
}
