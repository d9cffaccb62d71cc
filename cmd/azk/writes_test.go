package main

import (
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/planner"
)

// writeLog records the writes (every method but GET and HEAD) that reach an
// emulator through a logging proxy.
type writeLog struct {
	mu   sync.Mutex
	seen map[string]bool
	// order is each write's first time, in the order they reached the emulator.
	order []string
}

// writeLogs finds the log of a proxy by the endpoint azk is pointed at.
var writeLogs sync.Map // endpoint URL -> *writeLog

// watchWrites puts a logging proxy in front of the emulator at target and
// returns the proxy's URL.
func watchWrites(t *testing.T, target string) string {
	t.Helper()
	log := &writeLog{seen: map[string]bool{}}
	front := proxyTo(t, target, func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !strings.HasPrefix(r.URL.Path, "/_emulator/") && !readOnlyCheck(r) {
			w := r.Method + " " + strings.ToLower(r.URL.Path)
			log.mu.Lock()
			if !log.seen[w] {
				log.order = append(log.order, w)
			}
			log.seen[w] = true
			log.mu.Unlock()
		}
		return false
	})
	writeLogs.Store(front, log)
	t.Cleanup(func() { writeLogs.Delete(front) })
	return front
}

// readOnlyCheck reports a POST that ARM documents as changing nothing: a
// deployment's validate, a name check, a policy check (the pre-flight's), a
// Resource Graph query (the plan's change history).
func readOnlyCheck(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	if strings.EqualFold(r.URL.Path, "/providers/Microsoft.ResourceGraph/resources") {
		return true
	}
	op := strings.ToLower(r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:])
	if op == "validate" || op == "checkpolicyrestrictions" {
		return true
	}
	for _, c := range extensions.NameChecks() {
		if strings.EqualFold(c.Operation, op) {
			return true
		}
	}
	return false
}

// writeLogFor is the log of the emulator an apply command line (or a
// destroy, which is checked when it carries out a saved destroy plan)
// points at, or nil for other commands.
func writeLogFor(args []string) *writeLog {
	if len(args) == 0 || args[0] != "apply" && args[0] != "destroy" {
		return nil
	}
	for i, a := range args {
		if a == "--endpoint" && i+1 < len(args) {
			if v, ok := writeLogs.Load(args[i+1]); ok {
				return v.(*writeLog)
			}
		}
	}
	return nil
}

func (l *writeLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen, l.order = map[string]bool{}, nil
}

// announcedWrites are the writes a plan says apply makes: a PUT per create,
// update and replace, a DELETE per delete and replace that ARM does not
// take care of with a parent, and the requests the operator sends before a
// PUT (the purge of a soft-deleted vault a create needs first).
// Nil for no plan.
func announcedWrites(p *planner.Plan) map[string]bool {
	if p == nil {
		return nil
	}
	out := map[string]bool{}
	for _, r := range p.Resources {
		if r.Writes() {
			out["PUT "+strings.ToLower(r.ARMID)] = true
		}
		if r.Deletes() {
			out["DELETE "+strings.ToLower(r.ARMID)] = true
		}
		if r.Request != nil {
			for _, w := range r.Request.Before {
				out[w.Method+" "+strings.ToLower(w.Path)] = true
			}
		}
	}
	return out
}

// announcedReads are the POSTs a plan says apply may send to read the
// secrets a resource exports to others: each an action of the resource its
// kind's exporter names as a secret read (listKeys and its kin, which ARM
// answers without changing anything), never any other POST.
func announcedReads(p *planner.Plan) map[string]bool {
	out := map[string]bool{}
	if p == nil {
		return out
	}
	for _, r := range p.Resources {
		for _, path := range r.SecretReads {
			action, ok := strings.CutPrefix(path, r.ARMID+"/")
			if ok && extensions.IsSecretRead(r.ARMType, action) {
				out["POST "+strings.ToLower(path)] = true
			}
		}
	}
	return out
}

// announcedOrder are the orders between writes a plan promises, each as
// (first, then): a replacement's DELETE before its PUT, and in a chain
// (planner.ReasonInputReplaced) the reader's DELETE before that of the
// replaced resource it reads from (or of the owner ARM deletes it with),
// and that resource's PUT before the reader's.
func announcedOrder(p *planner.Plan) [][2]string {
	if p == nil {
		return nil
	}
	byAddress := map[string]*planner.Resource{}
	for _, r := range p.Resources {
		byAddress[r.Address] = r
	}
	put := func(r *planner.Resource) string { return "PUT " + strings.ToLower(r.ARMID) }
	del := func(r *planner.Resource) string { return "DELETE " + strings.ToLower(r.ARMID) }
	var out [][2]string
	for _, r := range p.Resources {
		if r.Action == planner.ActionRecreate && r.Deletes() {
			out = append(out, [2]string{del(r), put(r)})
		}
		if r.Reason != planner.ReasonInputReplaced {
			continue
		}
		for _, in := range r.ReplacedInputs {
			from := byAddress[in.From]
			if from == nil {
				continue
			}
			deleter := from
			if from.CascadedBy != "" {
				deleter = byAddress[from.CascadedBy]
			}
			out = append(out, [2]string{del(r), del(deleter)}, [2]string{put(from), put(r)})
		}
	}
	return out
}

// check compares the writes sent with those announced: none beyond them
// (secret reads the plan announced aside), and all of them when the apply
// succeeded, in the orders the plan promises (order) among those sent.
func (l *writeLog) check(t *testing.T, announced, reads map[string]bool, order [][2]string, succeeded bool) {
	t.Helper()
	l.mu.Lock()
	sent := maps.Clone(l.seen)
	at := map[string]int{}
	for i, w := range l.order {
		at[w] = i
	}
	l.mu.Unlock()
	for _, o := range order {
		first, okFirst := at[o[0]]
		then, okThen := at[o[1]]
		if okThen && (!okFirst || first > then) {
			t.Errorf("apply sent %s before %s, which the plan puts first", o[1], o[0])
		}
	}
	for w := range sent {
		if !announced[w] && !reads[w] {
			t.Errorf("apply sent %s, which the plan did not announce", w)
		}
	}
	if !succeeded {
		return
	}
	for w := range announced {
		if !sent[w] {
			t.Errorf("the plan announced %s, which the successful apply did not send", w)
		}
	}
}
