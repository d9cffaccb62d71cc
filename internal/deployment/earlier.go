package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/planner"
)

// A run of azk that stops following its deployments (an interrupt, a lost
// connection, a crash) leaves them running in Azure. Before the next run
// decides what to write, it reads them: Unfinished finds those ARM still
// runs at the scopes it deploys to, and Await waits for them to end and
// reads from their operations what they wrote.

// namePrefix starts the name of every deployment azk submits (Name's prefix
// is "azk-" and the run's time, or an export's digest).
const namePrefix = "azk-"

// Earlier is a deployment submitted before this run.
type Earlier struct {
	ID, Name string
	// State is ARM's provisioning state, as last read.
	State string
	// Written and Failed are the plan's resources whose operations in it (its
	// nested deployments' included) succeeded and failed, once it ended.
	Written, Failed []string
}

// Unfinished lists the deployments named azk-… that ARM is still running at
// the scopes the set deploys to (its templates' and its resources'). A
// scope that does not exist yet holds none.
func Unfinished(ctx context.Context, client *arm.Client, set *Set) ([]*Earlier, error) {
	scopes := map[string]bool{}
	for _, t := range set.Templates {
		scopes[t.Scope.ID()] = true
		for _, r := range t.Resources {
			if id, err := armid.Parse(r.ARMID); err == nil {
				if s, err := scopeOf(id); err == nil {
					scopes[s.ID()] = true
				}
			}
		}
	}
	ids := make([]string, 0, len(scopes))
	for s := range scopes {
		ids = append(ids, s)
	}
	sort.Strings(ids)
	var out []*Earlier
	for _, s := range ids {
		items, err := client.List(ctx, s+"/providers/Microsoft.Resources/deployments", APIVersion)
		if arm.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the deployments at %s: %w", s, err)
		}
		for _, raw := range items {
			var d struct {
				ID, Name   string
				Properties struct {
					ProvisioningState string `json:"provisioningState"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, fmt.Errorf("reading the deployments at %s: %w", s, err)
			}
			st := &deploymentState{state: d.Properties.ProvisioningState}
			if strings.HasPrefix(d.Name, namePrefix) && !st.terminal() {
				out = append(out, &Earlier{ID: d.ID, Name: d.Name, State: st.state})
			}
		}
	}
	return withoutNested(out), nil
}

// withoutNested leaves out the deployments nested in another of the list
// (named after it, then "-N"): Await reads them with their parent.
func withoutNested(list []*Earlier) []*Earlier {
	var out []*Earlier
	for _, e := range list {
		nested := false
		for _, parent := range list {
			nested = nested || strings.HasPrefix(e.Name, parent.Name+"-")
		}
		if !nested {
			out = append(out, e)
		}
	}
	return out
}

// Await follows the earlier deployments until ARM has ended each of them
// (or azk can no longer read it: RunOptions.Unreadable), then reads from
// their operations which of the plan's resources they wrote. It returns
// early, with ctx's error, when ctx ends.
func Await(ctx context.Context, client *arm.Client, p *planner.Plan, earlier []*Earlier, opts RunOptions) error {
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Unreadable <= 0 {
		opts.Unreadable = DefaultUnreadable
	}
	rn := &runner{}
	for _, e := range earlier {
		var failingSince time.Time
		for {
			state, err := rn.readDeployment(ctx, client, e.ID)
			if arm.IsNotFound(err) {
				e.State = "Deleted"
				break
			}
			if err == nil {
				e.State, failingSince = state.state, time.Time{}
				if state.terminal() {
					break
				}
			} else if failingSince.IsZero() {
				failingSince = time.Now()
			} else if time.Since(failingSince) >= opts.Unreadable {
				return fmt.Errorf("reading the earlier deployment %s: %w", e.Name, err)
			}
			select {
			case <-time.After(opts.Poll):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	byID := resourcesByID(p)
	visited := map[string]bool{}
	for _, e := range earlier {
		if e.State == "Deleted" {
			continue
		}
		states, err := operationStates(ctx, client, e.ID, visited)
		if err != nil {
			return fmt.Errorf("reading the operations of the earlier deployment %s: %w", e.Name, err)
		}
		for target, state := range states {
			r := byID[target]
			switch {
			case r == nil:
			case strings.EqualFold(state, "Succeeded"):
				e.Written = append(e.Written, r.Address)
			case failedState(state):
				e.Failed = append(e.Failed, r.Address)
			}
		}
		sort.Strings(e.Written)
		sort.Strings(e.Failed)
	}
	return nil
}

// operationStates reads the state of every resource operation of a
// deployment tree, by lower-cased target ID; a nested deployment ARM could
// not start (404) has none.
func operationStates(ctx context.Context, client *arm.Client, deploymentID string, visited map[string]bool) (map[string]string, error) {
	out := map[string]string{}
	var walk func(id string) error
	walk = func(id string) error {
		if visited[strings.ToLower(id)] {
			return nil
		}
		visited[strings.ToLower(id)] = true
		items, err := client.List(ctx, id+"/operations", APIVersion)
		if err != nil {
			return err
		}
		for _, raw := range items {
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				return err
			}
			pr := op.Properties
			switch {
			case pr.TargetResource.ID == "":
			case strings.EqualFold(pr.TargetResource.ResourceType, "Microsoft.Resources/deployments"):
				if err := walk(pr.TargetResource.ID); err != nil && !arm.IsNotFound(err) {
					return err
				}
			default:
				out[strings.ToLower(pr.TargetResource.ID)] = pr.ProvisioningState
			}
		}
		return nil
	}
	return out, walk(deploymentID)
}
