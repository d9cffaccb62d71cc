package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"
)

// readAll reads, converts and decides every node concurrently: a node is
// read once its owner's read tells whether the owner exists (a resource
// under an owner that will be created does not exist either), converted
// once everything it depends on was read (exported config-map values come
// from their status), and decided once it was converted and everything it
// depends on was decided (a dependency blocked or replaced blocks it, an
// owner replaced replaces it). badNames are the names pending nodes cannot
// take.
func (m *maker) readAll(badNames map[*graph.Node]error) {
	m.progress = startProgress(m.opts.Progress, len(m.ordered), m.opts.Reader)
	// What the first reads need comes first; what their answers need is
	// worked out while they travel (answersReady).
	children := map[*nodeState][]*nodeState{}
	inSubscription := map[string]int{}
	var roots []*nodeState
	for _, st := range m.ordered {
		if owner := m.states[st.node.Owner]; owner != nil {
			children[owner] = append(children[owner], st)
		} else {
			roots = append(roots, st)
		}
		inSubscription[st.subscription]++
	}
	answersReady := make(chan struct{})
	var dependents map[*nodeState][]*nodeState
	var unread map[*nodeState]int // what it depends on that is not read yet
	var undecided map[*graph.Node]int
	var decidedFirst map[*graph.Node][]*graph.Node
	// The work goes to pools of readers, not a goroutine for each node
	// waiting for its owner: tens of thousands of nodes would hold a stack
	// each. Each subscription has its own pool, as it has its own budget:
	// readers waiting for one subscription's budget (or for a list it has
	// yet to send) would otherwise take the whole pool and leave another
	// subscription's budget unused. A task never waits for one that is not
	// running: a node is read once its owner was, converted once it and
	// what it depends on were read. Of the resources one list serves, one
	// is read first and the others after it: they would otherwise hold
	// readers waiting for its list. Reads go first: they wait for ARM's
	// budget, and the conversions (CPU alone) fill the time between, on
	// all cores but one, so that they never hold up a read's request or
	// its answer.
	reads := map[string]*taskQueue{}
	for sub, n := range inSubscription {
		reads[sub] = newTaskQueue(n)
	}
	listedAfter := map[*nodeState][]*nodeState{} // read once the key's list was
	// Conversions and decisions are CPU alone: they share a pool, in the
	// order they are queued (a conversion for each state, a decision for each
	// node decided).
	converts := newTaskQueue(2*len(m.ordered) + len(m.pendingNodes))
	var pending sync.WaitGroup
	var mu sync.Mutex
	var decide func(n *graph.Node)
	// ready counts one of n's waits done (mu held), and queues n's decision
	// once none is left.
	ready := func(n *graph.Node) {
		if undecided[n]--; undecided[n] == 0 {
			pending.Add(1)
			converts.push(0, func() { decide(n) })
		}
	}
	decide = func(n *graph.Node) {
		var r *Resource
		if st := m.states[n]; st != nil {
			r = m.decide(st)
			m.markOrigins(r, st.baseDiff)
		} else {
			r = m.pending(n, badNames[n])
			m.markOrigins(r, m.baseDiffOf(n, nil, nil))
			m.pendingNodes[n].decision = r
		}
		settleDriftPolicies(r)
		noteOperatorDiffers(m.g, r)
		mu.Lock()
		for _, d := range decidedFirst[n] {
			ready(d)
		}
		mu.Unlock()
	}
	var read func(st *nodeState)
	queueRead := func(st *nodeState) {
		pending.Add(1)
		reads[st.subscription].push(m.readPriority(st), func() { read(st) })
	}
	// queueReads queues sts, the first of each list's resources alone.
	queueReads := func(sts []*nodeState) {
		first := map[*collection]*nodeState{}
		mu.Lock()
		for _, st := range sts {
			if c := m.listed[st.node]; c != nil {
				if f := first[c]; f != nil {
					listedAfter[f] = append(listedAfter[f], st)
					continue
				}
				first[c] = st
			}
		}
		mu.Unlock()
		for _, st := range sts {
			if c := m.listed[st.node]; c == nil || first[c] == st {
				queueRead(st)
			}
		}
	}
	read = func(st *nodeState) {
		m.readNode(st)
		<-answersReady
		var readable []*nodeState
		mu.Lock()
		for _, d := range dependents[st] {
			if unread[d]--; unread[d] == 0 {
				readable = append(readable, d)
			}
		}
		after := listedAfter[st]
		mu.Unlock()
		for _, l := range after {
			queueRead(l)
		}
		queueReads(children[st])
		for _, d := range readable {
			pending.Add(1)
			converts.push(0, func() {
				m.convertNode(d)
				mu.Lock()
				ready(d.node)
				mu.Unlock()
			})
		}
	}
	queueReads(roots)
	done := make(chan struct{})
	work := func(q *taskQueue) {
		for {
			select {
			case <-q.ready:
				q.pop()()
				pending.Done()
			case <-done:
				return
			}
		}
	}
	perSubscription := max(readersPerSubscription, minReaders/max(len(reads), 1))
	for sub, q := range reads {
		for range min(inSubscription[sub], perSubscription) {
			go work(q)
		}
	}
	dependents, unread = m.readOrder()
	undecided, decidedFirst = m.decisionOrder()
	close(answersReady)
	mu.Lock()
	for n := range m.pendingNodes {
		ready(n) // converted when decided: it is read from nothing
	}
	mu.Unlock()
	for range max(runtime.GOMAXPROCS(0)-1, 1) {
		go work(converts)
	}
	close(m.readsSent)
	pending.Wait()
	close(done)
	m.progress.stop()
}

// readOrder is, for each state, the states whose conversion waits for its
// read (itself and what depends on it), and how many reads each conversion
// waits for.
func (m *maker) readOrder() (dependents map[*nodeState][]*nodeState, unread map[*nodeState]int) {
	dependents, unread = map[*nodeState][]*nodeState{}, map[*nodeState]int{}
	for _, st := range m.ordered {
		unread[st] = 1 // itself
		dependents[st] = append(dependents[st], st)
		for _, d := range st.node.DependsOn() {
			if ds := m.states[d]; ds != nil && ds != st {
				unread[st]++
				dependents[ds] = append(dependents[ds], st)
			}
		}
	}
	return dependents, unread
}

// decisionOrder is, for each node to decide, how many waits its decision has
// (its conversion, and each node it depends on or is owned by that is
// decided too), and which decisions wait for each.
func (m *maker) decisionOrder() (map[*graph.Node]int, map[*graph.Node][]*graph.Node) {
	decided := func(n *graph.Node) bool { return n != nil && (m.states[n] != nil || m.pendingNodes[n] != nil) }
	undecided := map[*graph.Node]int{}
	waiting := map[*graph.Node][]*graph.Node{}
	for _, n := range m.g.Nodes {
		if !decided(n) {
			continue
		}
		undecided[n] = 1 // converted
		deps := n.DependsOn()
		if n.Owner != nil && !slices.Contains(deps, n.Owner) {
			deps = append(deps, n.Owner)
		}
		for _, d := range deps {
			if d != n && decided(d) {
				undecided[n]++
				waiting[d] = append(waiting[d], n)
			}
		}
	}
	return undecided, waiting
}

// Readers are enough to keep a subscription's read budget busy while ARM
// takes its time to answer (its refill of 25 a second, answers after a
// second), at least minReaders in all, and a pool at all so that an
// estate's nodes do not hold a goroutine each.
const (
	readersPerSubscription = 64
	minReaders             = 256
)

// get reads one resource: its body, scrubbed of the run's secrets, and
// ETag, or nil when it does not exist.
func (m *maker) get(id, apiVersion string) (map[string]any, string, error) {
	body, etag, err := m.getAt(m.ctx, id, apiVersion)
	return m.scrub(body), etag, err
}

// scrub is body with each string that holds a secret of the run replaced by
// redact.Text (Options.Secrets): body itself when none does.
func (m *maker) scrub(body map[string]any) map[string]any {
	if body == nil {
		return nil
	}
	v, _ := m.opts.Secrets.Value(body)
	return v.(map[string]any)
}

// getAt is get under ctx (which may carry the read's priority).
func (m *maker) getAt(ctx context.Context, id, apiVersion string) (map[string]any, string, error) {
	if m.ctx.Err() != nil {
		return nil, "", m.ctx.Err()
	}
	resp, err := m.opts.Reader.Get(ctx, id, apiVersion)
	if arm.IsNotFound(err) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	body := map[string]any{}
	if len(resp.Body) > 0 {
		if err := json.Unmarshal(resp.Body, &body); err != nil {
			return nil, "", fmt.Errorf("GET %s: reading the body: %w", id, err)
		}
	}
	return body, resp.ETag, nil
}

func (m *maker) readNode(st *nodeState) {
	defer close(st.read)
	defer m.progress.add()
	n := st.node
	if owner := m.states[n.Owner]; owner != nil {
		<-owner.read
		if !owner.exists {
			st.notRead = true
		}
	}
	if !st.notRead {
		body, etag, err := m.read(st)
		switch {
		case err != nil:
			st.readErr = err
		case body != nil:
			st.exists, st.raw, st.current, st.etag = true, body, m.scrub(body), etag
		}
	}
	for _, e := range n.Edges {
		if e.ARMID == "" || (e.Kind == graph.EdgeOwner && st.exists) {
			continue // an existing resource proves its owner exists
		}
		exists, err := m.checkARMID(e.ARMID)
		switch {
		case err != nil:
			st.diags.Add(diag.Warningf(lineOf(n, e.Ref.Line), n.Address(), e.Field, "could not check that %s exists: %v", e.ARMID, err))
		case !exists:
			what := "referenced resource"
			if e.Kind == graph.EdgeOwner {
				what = "owner"
			}
			st.missingARMIDs = append(st.missingARMIDs, fmt.Sprintf("%s %s (%s) does not exist", what, e.ARMID, e.Field))
		}
	}
	for _, r := range n.Refs {
		if r.Field.Ref != registry.RefWellKnown {
			continue
		}
		name := yamlnode.String(r.Node, "wellKnownName")
		if name == "" {
			continue
		}
		if _, err := m.roleID(name); err != nil {
			st.roleErrors = append(st.roleErrors, fmt.Sprintf("%s: built-in role %q does not resolve: %v", r.Path, name, err))
		}
	}
}

// convertNode builds the node's request once every dependency was read.
func (m *maker) convertNode(st *nodeState) {
	n := st.node
	for _, d := range n.DependsOn() {
		if ds := m.states[d]; ds != nil {
			<-ds.read
		}
	}
	st.request, st.diags = convert.Convert(m.g, n, m.sources(st, n))
}

// sources are what converting n reads: the statuses and bodies read for
// this plan (st is n's own state, nil when n was not read).
func (m *maker) sources(st *nodeState, n *graph.Node) convert.Sources {
	return convert.Sources{
		LookupEnv: m.opts.LookupEnv,
		Status: func(from *graph.Node) map[string]any {
			if fs := m.states[from]; fs != nil {
				return fs.convertedStatus()
			}
			return nil
		},
		RoleDefinitionID: func(name string) (string, bool) {
			id, err := m.roleID(name)
			return id, err == nil
		},
		ManualConfig: m.manualConfig,
		Get: func(id, apiVersion string) (map[string]any, error) {
			if st != nil && strings.EqualFold(id, n.ID) {
				if st.readErr != nil {
					return nil, st.readErr
				}
				return st.current, nil
			}
			body, _, err := m.get(id, apiVersion)
			return body, err
		},
	}
}

// armIDCheck is the shared answer to "does this armId exist", asked once per run.
type armIDCheck struct {
	once   sync.Once
	exists bool
	err    error
}

func (m *maker) checkARMID(id string) (bool, error) {
	v, _ := m.armIDs.LoadOrStore(strings.ToLower(id), &armIDCheck{})
	c := v.(*armIDCheck)
	c.once.Do(func() {
		if st := m.stateByID(id); st != nil {
			<-st.read
			c.exists, c.err = st.exists, st.readErr
			return
		}
		apiVersion, ok := m.apiVersionOf(armTypeOf(id))
		if !ok {
			c.exists, c.err = true, fmt.Errorf("azk knows no api-version for %s resources", armTypeOf(id))
			return
		}
		body, _, err := m.get(id, apiVersion)
		c.exists, c.err = body != nil, err
	})
	return c.exists, c.err
}

func (m *maker) stateByID(id string) *nodeState { return m.byID()[strings.ToLower(id)] }

// readable reports whether n is read from Azure: an ARM resource whose ID
// is known.
func readable(n *graph.Node) bool { return n.Kind.IsARM() && n.ID != "" }

// lineOf is n's source with the line of one of its fields, when known.
func lineOf(n *graph.Node, line int) diag.Source {
	src := n.Object.Source
	if line > 0 {
		src.Line = line
	}
	return src
}

// apiVersionOf finds an api-version the registry uses for an ARM type.
func (m *maker) apiVersionOf(armType string) (string, bool) {
	m.apiVersionsOnce.Do(func() {
		m.apiVersions = map[string]string{}
		for _, gvk := range m.reg.All() {
			if k, ok := m.reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok && k.IsARM() {
				t := strings.ToLower(k.ARMType)
				// Versions are listed oldest first: the newest wins.
				m.apiVersions[t] = k.APIVersion
			}
		}
	})
	v, ok := m.apiVersions[strings.ToLower(armType)]
	return v, ok
}

// armTypeOf is the resource type of an ARM ID: "Microsoft.Network/virtualNetworks/subnets"; "" when id is not one.
func armTypeOf(id string) string {
	parsed, err := armid.Parse(id)
	if err != nil {
		return ""
	}
	return parsed.Type()
}

type roleLookup struct {
	once sync.Once
	id   string
	err  error
}

func (m *maker) roleID(name string) (string, error) {
	v, _ := m.roles.LoadOrStore(strings.ToLower(name), &roleLookup{})
	r := v.(*roleLookup)
	r.once.Do(func() {
		if r.err = m.ctx.Err(); r.err != nil {
			return
		}
		r.id, r.err = m.opts.Reader.RoleDefinitionID(m.ctx, name)
	})
	return r.id, r.err
}
