package deploy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// ARM's deployment engine outlives the machines it runs on: a deployment
// goes on, and its operations stay recorded, whatever restarts. The
// emulator's engine stops with the emulator, so it keeps what a client
// needs to learn what happened: every operation is journaled as it starts
// and ends (deployments.journal, beside deployments.json, which holds the
// rest and absorbs the journal whenever it is written), and a deployment
// that was running when the emulator stopped, however it stopped, is
// resumed on the next start: its operations in flight are followed to
// their end by reading their resources, and it then fails, since the
// resources it had not started yet are not deployed. Templates and
// parameter values are never kept, so it cannot deploy those.

// journalSuffix names the operations journal after the state file.
const journalSuffix = ".journal"

// journalEntry is one line of the journal: an operation of a deployment as it is now.
type journalEntry struct {
	Deployment string    `json:"deployment"`
	Op         *deployOp `json:"op"`
}

// noteOpLocked appends op, as it is now, to the journal.
func (d *deployments) noteOpLocked(run *deploymentRun, op *deployOp) {
	if d.file == "" {
		return
	}
	line, err := json.Marshal(journalEntry{Deployment: run.ID, Op: op})
	if err != nil {
		return
	}
	if d.journal == nil {
		f, err := os.OpenFile(d.file+journalSuffix, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return
		}
		d.journal = f
	}
	// One write per line: a process killed after it returns has the line
	// in the file (no fsync: the journal guards against a crash of the
	// emulator, not of the machine).
	_, _ = d.journal.Write(append(line, '\n'))
}

// replayJournal applies the journal's lines to the runs loaded; a line cut
// short by a crash mid-write is skipped.
func (d *deployments) replayJournal() {
	data, err := os.ReadFile(d.file + journalSuffix)
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var e journalEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Op == nil {
			continue
		}
		run := d.runs[armpath.Key(e.Deployment)]
		if run == nil {
			continue
		}
		replaced := false
		for i, op := range run.Ops {
			if op.OperationID == e.Op.OperationID {
				run.Ops[i], replaced = e.Op, true
				break
			}
		}
		if !replaced {
			run.Ops = append(run.Ops, e.Op)
		}
	}
}

// truncateJournalLocked empties the journal once the state file holds it.
func (d *deployments) truncateJournalLocked() {
	if d.journal != nil {
		_ = d.journal.Truncate(0) // appends go on at the new end
		return
	}
	_ = os.Truncate(d.file+journalSuffix, 0)
}

func (d *deployments) closeJournalLocked() {
	if d.journal != nil {
		_ = d.journal.Close()
		d.journal = nil
	}
}

// resume ends a deployment that was running when the emulator stopped: each
// operation in flight ends as its resource says (written by this
// deployment or not), then the deployment fails with EmulatorStopped. A
// nested deployment's operation ends as the nested deployment did.
func (e *Engine) resume(ctx context.Context, d *deployments, run *deploymentRun) {
	d.mu.Lock()
	var inFlight []*deployOp
	for _, op := range run.Ops {
		if !terminal(op.State) {
			inFlight = append(inFlight, op)
		}
	}
	d.mu.Unlock()
	for _, op := range inFlight {
		state, opErr := e.outcomeOf(ctx, d, op)
		if ctx.Err() != nil {
			return // stopping again: the next start resumes what is left
		}
		d.mu.Lock()
		op.State, op.Error, op.Ended = state, opErr, time.Now()
		if state == armcore.StateSucceeded {
			op.StatusCode = "OK"
		}
		d.noteOpLocked(run, op)
		d.mu.Unlock()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	run.State, run.Ended = armcore.StateFailed, time.Now()
	run.Error = &deploymentError{Code: "EmulatorStopped", Message: "The emulator stopped while the deployment ran: the operations in flight were followed to their end, and the resources not started were not deployed."}
	for _, op := range run.Ops {
		if op.Error != nil {
			run.Error.Details = append(run.Error.Details, deploymentError{Code: op.Error.Code, Message: op.Error.Message})
		}
	}
	d.endLocked(run)
}

// stoppedBeforeWrite is the error of an operation whose write the emulator
// never made.
var stoppedBeforeWrite = &armcore.Error{Code: "EmulatorStopped", Message: "The emulator stopped before it wrote the resource."}

// outcomeOf is how an operation in flight when the emulator stopped ended:
// a nested deployment as it ended; a resource by reading it until its
// provisioning state is terminal, succeeded only if this operation wrote it
// (its last modification is after the operation started).
func (e *Engine) outcomeOf(ctx context.Context, d *deployments, op *deployOp) (string, *armcore.Error) {
	if strings.EqualFold(op.Type, "Microsoft.Resources/deployments") {
		d.mu.Lock()
		nested := d.runs[armpath.Key(op.Target)]
		d.mu.Unlock()
		if nested == nil {
			return armcore.StateFailed, stoppedBeforeWrite
		}
		select {
		case <-nested.done:
		case <-ctx.Done():
			return "", nil
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if nested.State == armcore.StateSucceeded {
			return armcore.StateSucceeded, nil
		}
		return armcore.StateFailed, &armcore.Error{Code: "DeploymentFailed", Message: "The nested deployment '" + nested.Name + "' ended " + nested.State + "."}
	}
	for {
		rec, err := e.sendWithRetry(ctx, innerRequest{method: http.MethodGet, target: requestURI(op.Target, op.APIVersion)})
		var ae *armcore.Error
		switch {
		case ctx.Err() != nil:
			return "", nil
		case errors.As(err, &ae) && ae.Status == http.StatusNotFound:
			return armcore.StateFailed, stoppedBeforeWrite
		case err != nil:
			return armcore.StateFailed, &armcore.Error{Code: "EmulatorStopped", Message: "The emulator stopped while it wrote the resource, which cannot be read now: " + err.Error()}
		}
		var body struct {
			Properties struct {
				ProvisioningState string `json:"provisioningState"`
			} `json:"properties"`
			SystemData struct {
				LastModifiedAt time.Time `json:"lastModifiedAt"`
			} `json:"systemData"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			return armcore.StateFailed, &armcore.Error{Code: "EmulatorStopped", Message: "The emulator stopped while it wrote the resource, which reads as no JSON now."}
		}
		switch state := body.Properties.ProvisioningState; {
		case body.SystemData.LastModifiedAt.Before(op.Started):
			return armcore.StateFailed, stoppedBeforeWrite
		case state == "" || state == armcore.StateSucceeded:
			return armcore.StateSucceeded, nil
		case state == armcore.StateFailed || state == "Canceled":
			return armcore.StateFailed, &armcore.Error{Code: "ResourceDeploymentFailure", Message: "The resource operation completed with terminal provisioning state '" + state + "'."}
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return "", nil
		}
	}
}
