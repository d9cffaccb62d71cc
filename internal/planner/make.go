package planner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Reader reads Azure. *arm.Client satisfies it, pacing the reads by the
// subscription's read budget and bounding them by --parallelism, so Make
// reads everything it can at once.
type Reader interface {
	Get(ctx context.Context, id, apiVersion string) (*arm.Response, error)
	List(ctx context.Context, path, apiVersion string) ([]json.RawMessage, error)
	RoleDefinitionID(ctx context.Context, roleName string) (string, error)
}

// Options configure Make. Reader is required; every other zero value is a
// default.
type Options struct {
	// Reader reads the current state of every resource.
	Reader Reader
	// ReconcilePolicyIfExists is --reconcile-policy-if-exists: the policy for
	// existing resources without an annotation; "" means manage.
	ReconcilePolicyIfExists string
	// Inputs are recorded in the plan, for applying a saved plan later.
	Inputs Inputs
	// Progress receives a one-line progress report while reading (count and
	// rate), rewritten in place; nil is quiet.
	Progress io.Writer
	// LookupEnv reads secrets that are not in the input; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Drift makes a drift report instead of a plan (see Plan.Drift).
	Drift bool
	// Base is the manifests before the change under review, resolved in the
	// same subscription (azk plan --base; record where they came from in
	// Inputs.Base); nil means none. With a base the plan is three-way: each
	// change has an Origin, a Secret whose value changed updates its
	// consumers, resources the base holds and these do not are deleted or
	// detached (see PlanRemovals), and a resource new in this change that
	// exists in Azure is flagged as adopted.
	Base *graph.Graph
	// Replace are addresses (see graph.MatchAddress) of resources to delete
	// and create again (-replace), with the children ARM deletes with them.
	Replace []string
	// SendSecrets are addresses (see graph.MatchAddress) of resources whose secrets
	// are sent again, though the plan cannot see them change.
	SendSecrets []string
	// ReadEach reads every resource with a GET of its own, never with a list
	// of its collection (see listreads.go); the plan is the same.
	ReadEach bool
	// DriftPolicy is --drift-policy: the drift policy of resources whose
	// manifest and Namespace set none (graph.DriftPolicies); "" means enforce.
	DriftPolicy string
}

// resourceGroupsAPIVersion reads resource groups and lists their resources.
const resourceGroupsAPIVersion = "2021-04-01"

// Make reads the current state of every ARM resource of g and decides what
// applying would do to each. Problems that stop planning (an unreadable
// resource, a bad option) are error diagnostics; problems of one resource
// (a missing secret, a missing armId target) block that resource and its
// dependents and are reported in the plan. The plan is returned even with
// errors, holding every decision that could be made.
func Make(ctx context.Context, g *graph.Graph, opts Options) (*Plan, diag.List) {
	var diags diag.List
	if opts.Reader == nil {
		diags.Add(diag.Errorf(diag.Source{}, "", "", "planning needs a reader of Azure state"))
		return nil, diags
	}
	switch opts.ReconcilePolicyIfExists {
	case "", graph.PolicyManage, graph.PolicyDetachOnDelete, graph.PolicySkip:
	default:
		diags.Add(diag.Errorf(diag.Source{}, "", "", "--reconcile-policy-if-exists %q: use manage, detach-on-delete or skip", opts.ReconcilePolicyIfExists))
		return nil, diags
	}
	if opts.DriftPolicy != "" {
		if err := graph.CheckDriftPolicy(opts.DriftPolicy); err != nil {
			diags.Add(diag.Errorf(diag.Source{}, "", "", "--drift-policy: %v", err))
			return nil, diags
		}
	}
	badNames := namePending(ctx, g, opts.Reader)
	m := newMaker(ctx, g, opts)
	removed := m.removedNodes()
	// The unmanaged listing and the inputs' digest are worked out while the
	// reads wait for Azure, once the first have gone out.
	unmanaged := make(chan func() []string, 1)
	go func() {
		<-m.readsSent
		unmanaged <- m.listUnmanaged()
	}()
	digest := make(chan string, 1)
	go func() {
		<-m.readsSent
		digest <- inputsDigest(g, opts.Base, opts.ReconcilePolicyIfExists)
	}()
	removals := make(chan removalResult, 1)
	go func() {
		var r removalResult
		r.resources, r.diags = m.planRemovals(removed)
		removals <- r
	}()
	m.readAll(badNames)
	p := &Plan{
		FormatVersion: FormatVersion,
		Subscription:  g.Subscription,
		Inputs:        opts.Inputs,
		InputsDigest:  <-digest,
		Drift:         opts.Drift,
	}
	for _, n := range g.Nodes {
		if st := m.states[n]; st != nil {
			p.Resources = append(p.Resources, st.decision)
		} else if pn := m.pendingNodes[n]; pn != nil {
			p.Resources = append(p.Resources, pn.decision)
		}
	}
	listNotRecreated(p, m.states, m.replacedOwner)
	diags = append(diags, m.matchSendSecrets(p)...)
	diags = append(diags, m.matchReplace(p)...)
	rm := <-removals
	diags = append(diags, rm.diags...)
	p.Resources = append(p.Resources, rm.resources...)
	orderUnique(p)
	p.Unmanaged = withoutRemoved((<-unmanaged)(), rm.resources)
	m.replaceCascades(p) // once the unmanaged listing no longer adds to m.diags
	noteSameTypeUnmanaged(p)
	settleDriftPolicies(rm.resources...) // the decisions settled theirs when made
	noteOperatorDiffers(g, rm.resources...)
	for _, st := range m.ordered {
		diags = append(diags, st.diags...)
	}
	diags = append(diags, m.diags...)
	diags.Sort()
	return p, diags
}

// nodeState is what Make learns about one node.
type nodeState struct {
	node *graph.Node
	// subscription is the one its ARM ID names, lower-cased.
	subscription string
	// read is closed once the resource was read (or the read was skipped).
	read chan struct{}

	exists  bool
	current map[string]any
	etag    string
	// notRead means the owner will be created, so there was nothing to read.
	notRead bool
	// missingARMIDs are armId owners and references that do not exist.
	missingARMIDs []string
	// roleErrors are built-in role names that did not resolve.
	roleErrors []string
	// readErr is a read that failed for another reason than absence.
	readErr error

	request *convert.Request
	diags   diag.List
	// decision is set by decide, once everything it depends on was decided.
	decision *Resource
	// keptByPolicyIn is the replaced owner ARM deletes it with, when its
	// policy keeps it from being created again (set by replace).
	keptByPolicyIn *Resource
	// baseDiff is how the base's body differs from the manifests' (with
	// Options.Base), set by decide.
	baseDiff baseDiff

	// status is current's status, converted once for all the resources
	// that read it (see convertedStatus).
	statusOnce sync.Once
	status     map[string]any

	// config is what its kind fills into config maps by hand, fetched
	// once for all the resources that read it (see maker.manualConfig).
	configOnce sync.Once
	config     map[string]string
	configErr  error
}

// convertedStatus is the resource's status as read (convert.Status), nil
// when it does not exist. Call it only once st.read is closed.
func (st *nodeState) convertedStatus() map[string]any {
	if !st.exists {
		return nil
	}
	st.statusOnce.Do(func() { st.status = convert.Status(st.node.Kind, st.current) })
	return st.status
}

type maker struct {
	ctx   context.Context
	g     *graph.Graph
	opts  Options
	reg   *registry.Registry
	diags diag.List

	states  map[*graph.Node]*nodeState
	ordered []*nodeState
	// pendingNodes are the nodes whose ARM ID is not known yet.
	pendingNodes map[*graph.Node]*pendingNode
	// sendSecrets are the addresses Options.SendSecrets matched.
	sendSecrets map[string]bool
	// replaceSet are the addresses Options.Replace matched.
	replaceSet map[string]bool
	// baseNodes and headNodes are the base's and the input's resources by
	// address (with Options.Base).
	baseNodes, headNodes map[string]*graph.Node
	// byID is the states by lower-cased ARM ID, made when first asked.
	byID func() map[string]*nodeState
	// listed are the resources read through their collection's list.
	listed  map[*graph.Node]*collection
	probes  sync.Map            // lower-cased ARM type and api-version -> *typeProbe
	heights map[*graph.Node]int // see readHeights

	armIDs sync.Map // lower-cased ARM ID -> *armIDCheck
	roles  sync.Map // lower-cased role name -> *roleLookup

	progress *progress
	// readsSent is closed once the first reads were handed to their readers.
	readsSent chan struct{}

	apiVersionsOnce sync.Once
	apiVersions     map[string]string // lower-cased ARM type -> api-version
}

func newMaker(ctx context.Context, g *graph.Graph, opts Options) *maker {
	m := &maker{
		ctx:    ctx,
		g:      g,
		opts:   opts,
		reg:    registry.Default(),
		states: map[*graph.Node]*nodeState{},

		readsSent: make(chan struct{}),

		pendingNodes: map[*graph.Node]*pendingNode{},
		sendSecrets:  map[string]bool{},
		replaceSet:   map[string]bool{},
		baseNodes:    map[string]*graph.Node{},
		headNodes:    map[string]*graph.Node{},
	}
	for _, n := range g.Nodes {
		for _, pattern := range opts.SendSecrets {
			if graph.MatchAddress(n.Address(), pattern) {
				m.sendSecrets[n.Address()] = true
			}
		}
		for _, pattern := range opts.Replace {
			if graph.MatchAddress(n.Address(), pattern) {
				m.replaceSet[n.Address()] = true
			}
		}
	}
	if opts.Base != nil {
		for _, n := range opts.Base.Nodes {
			m.baseNodes[n.Address()] = n
		}
		for _, n := range g.Nodes {
			m.headNodes[n.Address()] = n
		}
	}
	// The lists and the heights are worked out on other cores while the
	// states are made.
	var planned sync.WaitGroup
	planned.Go(m.planListReads)
	planned.Go(m.readHeights)
	for _, n := range g.Nodes {
		if n.Kind.IsARM() && n.ID == "" && n.Pending != "" {
			m.pendingNodes[n] = &pendingNode{}
		}
		if !readable(n) {
			continue
		}
		st := &nodeState{node: n, read: make(chan struct{})}
		st.subscription = strings.ToLower(armid.SubscriptionOf(n.ID))
		m.states[n] = st
		m.ordered = append(m.ordered, st)
	}
	m.byID = sync.OnceValue(func() map[string]*nodeState {
		byID := make(map[string]*nodeState, len(m.ordered))
		for _, st := range m.ordered {
			byID[strings.ToLower(st.node.ID)] = st
		}
		return byID
	})
	planned.Wait()
	return m
}

// pendingNode is what Make learns about a node whose ARM ID is not known yet.
type pendingNode struct {
	// decision is set by pending, once everything it depends on was decided.
	decision *Resource
}

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

// get reads one resource: its body and ETag, or nil when it does not exist.
func (m *maker) get(id, apiVersion string) (map[string]any, string, error) {
	return m.getAt(m.ctx, id, apiVersion)
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
			st.exists, st.current, st.etag = true, body, etag
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

// pending is the decision for a resource whose ARM ID is known only once
// another resource of this plan exists: its Azure name is that resource's
// status value. Apply creates the other resource, reads the name, then
// creates this one.
func (m *maker) pending(n *graph.Node, badName error) *Resource {
	r := &Resource{
		Address: n.Address(), Kind: n.Kind.Kind, Namespace: n.Object.Namespace, Name: n.Object.Name,
		Source: n.Object.Source.String(), ARMType: n.Kind.ARMType, APIVersion: n.Kind.APIVersion,
		Action: ActionCreate, Reason: ReasonNameAfterApply, Node: n,
	}
	r.Policy, _ = m.policy(n, false)
	r.RecordPolicy = m.recordPolicy(n, false, false, r.Policy)
	for _, d := range n.DependsOn() {
		r.DependsOn = append(r.DependsOn, d.Address())
	}
	r.Exports = exportsOf(n)
	req, diags := convert.Convert(m.g, n, m.sources(nil, n))
	if reasons := m.dependencyBlockers(n); len(reasons) > 0 || badName != nil {
		if badName != nil {
			reasons = append(reasons, badName.Error())
		}
		r.Action, r.Reason, r.Reasons = ActionBlocked, ReasonBlocked, reasons
		return r
	}
	for _, d := range diags {
		if d.Severity == diag.SeverityError {
			r.Reasons = append(r.Reasons, fieldMessage(d))
		}
	}
	if len(r.Reasons) > 0 {
		r.Action, r.Reason = ActionBlocked, ReasonBlocked
		return r
	}
	r.Request, r.Desired = req, req.Body
	r.Notes = append(r.Notes, req.Notes...)
	r.Notes = append(r.Notes, "its Azure name, and so its ARM ID, is known once "+n.Pending)
	r.Secrets = secretPaths(r.Desired)
	r.Changes = bodydiff.For(n.Kind).Diff(r.Desired, nil)
	return r
}

func (m *maker) decide(st *nodeState) *Resource {
	n := st.node
	r := &Resource{
		Address:    n.Address(),
		Kind:       n.Kind.Kind,
		Namespace:  n.Object.Namespace,
		Name:       n.Object.Name,
		Source:     n.Object.Source.String(),
		ARMID:      n.ID,
		ARMType:    n.Kind.ARMType,
		APIVersion: n.Kind.APIVersion,
		Exists:     st.exists,
		Node:       n,
		Request:    st.request,
	}
	st.decision = r
	var explicit bool
	r.Policy, explicit = m.policy(n, st.exists)
	if st.exists {
		r.Fingerprint = fingerprint(st.etag, st.current)
	}
	for _, d := range n.DependsOn() {
		r.DependsOn = append(r.DependsOn, d.Address())
	}
	r.Exports, r.SecretReads = exportsOf(n), secretReads(m.g, n)
	if st.request != nil {
		r.Desired = st.request.Body
		r.Notes = append(r.Notes, st.request.Notes...)
		r.Secrets = secretPaths(r.Desired)
	}
	if reasons := m.blockers(st); len(reasons) > 0 {
		r.Action, r.Reason, r.Reasons = ActionBlocked, ReasonBlocked, reasons
		return r
	}
	if m.opts.Base != nil {
		st.baseDiff = m.baseDiffOf(n, st, r.Desired)
	}
	r.RecordPolicy = m.recordPolicy(n, explicit, st.exists, r.Policy)
	d := bodydiff.For(n.Kind)
	if !st.exists {
		if explicit && r.Policy.Value == graph.PolicySkip {
			r.Action, r.Reason = ActionSkip, ReasonPolicySkip
			r.Reasons = []string{"does not exist, and reconcile-policy skip never creates it"}
			return r
		}
		r.Action, r.Reason = ActionCreate, ReasonMissing
		if st.notRead {
			r.Reason = ReasonOwnerCreated
		}
		if m.replaceSet[r.Address] {
			r.Notes = append(r.Notes, "-replace: it does not exist in Azure, so it is created")
		}
		r.Notes = append(r.Notes, m.waitNotes(n, nil)...)
		if !m.opts.Drift {
			r.Changes = d.Diff(r.Desired, nil)
		}
		return r
	}
	if m.opts.Base != nil && m.baseNodes[r.Address] == nil {
		r.Adopt = &Adoption{Policy: r.Policy.Value, Destroy: destroyEffect(r.Policy.Value)}
	}
	if len(n.IgnoreChanges) > 0 {
		r.Ignored = keepIgnored(d, n.IgnoreChanges, r.Desired, st.current) // the operator sends them: see OperatorDiffers
	}
	compared := m.applyDriftPolicy(r, st, d, d.Compare(r.Desired, st.current))
	r.NotReturned = compared.NotReturned
	changes := m.lackingChanges(r, st.baseDiff, compared)
	if m.opts.Drift {
		r.Changes, r.AzureOnly = changes, compared.AzureOnly
	}
	if !m.opts.Drift && m.replace(st, r) {
		r.Ignored, r.DriftPolicy, r.Kept, r.Reflected, r.carried = nil, nil, nil, nil, nil // a create carries the manifests' values
		return r
	}
	if r.Policy.Value == graph.PolicySkip {
		r.Action, r.Reason = ActionSkip, ReasonPolicySkip // never written, so nothing to replace either
		return r
	}
	if reasons := replaceReasons(r.Address, r.Desired, st.current); len(reasons) > 0 {
		r.Action, r.Reason, r.Reasons, r.Changes = ActionReplace, ReasonCannotUpdate, reasons, changes
		return r
	}
	if r.Policy.Value == graph.PolicyDetachOnDelete && r.Policy.Source != PolicySourceAnnotation {
		r.Notes = append(r.Notes, "detach-on-delete: azk destroy will leave it in Azure")
	}
	r.Changes = changes
	var rotated []string
	if m.threeWay() {
		rotated = st.baseDiff.secrets
	}
	if len(rotated) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("the value of a Secret it sends differs from the base's (compared by digest, never shown) at %s: the PUT sends it again", strings.Join(rotated, ", ")))
	}
	switch state := provisioningState(st.current); {
	case len(changes) > 0:
		r.Action, r.Reason = ActionUpdate, ReasonChanged
	case len(rotated) > 0:
		r.Action, r.Reason = ActionUpdate, ReasonSecretChanged
	case failedState(state):
		r.Action, r.Reason = ActionUpdate, ReasonFailed
		r.Notes = append(r.Notes, fmt.Sprintf("Azure holds it with provisioningState %s: the PUT is sent again, as the operator would", state))
	case m.sendSecrets[r.Address] && len(r.Secrets) > 0:
		r.Action, r.Reason = ActionUpdate, ReasonSecretsRequested
	default:
		r.Action, r.Reason = ActionNoChange, ReasonMatches
	}
	if r.Action == ActionUpdate {
		r.AzureOnly = compared.AzureOnly // what the PUT may reset
	}
	if r.Action == ActionUpdate && len(r.Secrets) > 0 {
		r.Changes = append(r.Changes, secretChanges(r.Desired)...)
	}
	if r.Writes() {
		r.Notes = append(r.Notes, m.waitNotes(n, st.current)...)
	}
	return r
}

// destroyEffect says what azk destroy does to a resource under policy.
func destroyEffect(policy string) string {
	switch policy {
	case graph.PolicyDetachOnDelete:
		return "azk destroy leaves it in Azure (detach-on-delete)"
	case graph.PolicySkip:
		return "azk destroy leaves it in Azure (skip)"
	}
	return "azk destroy deletes it from Azure, although it existed before this change"
}

// failedState reports a terminal provisioning state that is not success:
// the last write did not take, so the operator sends it again.
func failedState(state string) bool {
	return strings.EqualFold(state, "Failed") || strings.EqualFold(state, "Canceled") || strings.EqualFold(state, "Cancelled")
}

func provisioningState(body map[string]any) string {
	props, _ := body["properties"].(map[string]any)
	s, _ := props["provisioningState"].(string)
	return s
}

// dependencyBlockers lists the dependencies of n that keep it from being applied.
func (m *maker) dependencyBlockers(n *graph.Node) []string {
	var reasons []string
	for _, d := range n.DependsOn() {
		var dr *Resource
		if ds := m.states[d]; ds != nil {
			dr = ds.decision
		} else if pn := m.pendingNodes[d]; pn != nil {
			dr = pn.decision
		}
		switch {
		case dr == nil:
		case dr.SkipMissing():
			reasons = append(reasons, fmt.Sprintf("depends on %s, which does not exist and has reconcile-policy skip", dr.Address))
		case dr.Action == ActionBlocked:
			reasons = append(reasons, fmt.Sprintf("depends on %s, which is blocked", dr.Address))
		case dr.Action == ActionReplace:
			reasons = append(reasons, fmt.Sprintf("depends on %s, which needs replacing", dr.Address))
		}
	}
	return reasons
}

// blockers lists why st cannot be applied, if it cannot.
func (m *maker) blockers(st *nodeState) []string {
	reasons := m.dependencyBlockers(st.node)
	reasons = append(reasons, st.missingARMIDs...)
	reasons = append(reasons, st.roleErrors...)
	if st.readErr != nil {
		reasons = append(reasons, "reading it failed: "+st.readErr.Error())
	}
	// A resource's own conversion errors (a secret not found) block it and
	// show in the plan with its dependents, rather than failing the plan.
	kept := st.diags[:0]
	for _, d := range st.diags {
		switch {
		case d.Severity != diag.SeverityError:
			kept = append(kept, d)
		case st.readErr == nil:
			reasons = append(reasons, fieldMessage(d))
		}
	}
	st.diags = kept
	if st.readErr != nil {
		st.diags.Add(diag.Errorf(st.node.Object.Source, st.node.Address(), "", "reading %s: %v", st.node.ID, st.readErr))
	}
	if st.request == nil && len(reasons) == 0 {
		reasons = append(reasons, "no ARM request could be built")
	}
	return reasons
}

func fieldMessage(d *diag.Diagnostic) string {
	if d.Field != "" {
		return d.Field + ": " + d.Message
	}
	return d.Message
}

// replaceReasons lists changes Azure cannot make in place. azk deletes to
// create again only when asked (-replace=address), so each is an error.
func replaceReasons(address string, desired, current map[string]any) []string {
	want, _ := desired["location"].(string)
	have, _ := current["location"].(string)
	if want != "" && have != "" && bodydiff.NormalLocation(want) != bodydiff.NormalLocation(have) {
		return []string{fmt.Sprintf("location: Azure has %q, the manifest says %q; Azure cannot move it in place: -replace=%s deletes it and creates it again (with what ARM deletes with it), --allow-partial applies the rest", have, want, address)}
	}
	return nil
}

// fingerprint identifies the state a decision was made on.
func fingerprint(etag string, body map[string]any) string {
	if etag != "" {
		return etag
	}
	b, _ := json.Marshal(body)
	sum := sha256.Sum256(b)
	return bodyDigestPrefix + hex.EncodeToString(sum[:])
}

// bodyDigestPrefix starts a fingerprint that digests a body without an ETag.
const bodyDigestPrefix = "sha256:"

// listUnmanaged starts listing the resources of the input's resource groups
// that are not in the input, alongside the reads (each group once it is known
// to exist); the returned function waits for the sorted result.
func (m *maker) listUnmanaged() func() []string {
	inInput := map[string]bool{}
	groups := map[string]bool{}
	var groupIDs []string
	for _, n := range m.g.Outside {
		inInput[strings.ToLower(n.ID)] = true // in the manifests, not selected
	}
	for _, st := range m.ordered {
		inInput[strings.ToLower(st.node.ID)] = true
		if rg := armid.ResourceGroupOf(st.node.ID); rg != "" && !groups[strings.ToLower(rg)] {
			groups[strings.ToLower(rg)] = true
			groupIDs = append(groupIDs, rg)
		}
	}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		out []string
	)
	for _, rg := range groupIDs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rs := m.stateByID(rg); rs != nil {
				if <-rs.read; !rs.exists {
					return // it will be created: nothing in it yet
				}
			}
			if m.ctx.Err() != nil {
				return
			}
			items, err := m.opts.Reader.List(m.ctx, rg+"/resources", resourceGroupsAPIVersion)
			if arm.IsNotFound(err) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				m.diags.Add(diag.Warningf(diag.Source{}, "", "", "listing the resources of %s for the unmanaged report: %v", rg, err))
				return
			}
			for _, raw := range items {
				var item struct {
					ID string `json:"id"`
				}
				if json.Unmarshal(raw, &item) == nil && item.ID != "" && !inInput[strings.ToLower(item.ID)] {
					out = append(out, item.ID)
				}
			}
		}()
	}
	return func() []string {
		wg.Wait()
		sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
		return out
	}
}

// noteSameTypeUnmanaged tells, on each create, which unmanaged resources of
// the same type share its resource group: a new Azure name or owner is a new
// ARM ID, so a plan cannot tell a rename or a move from a second resource.
func noteSameTypeUnmanaged(p *Plan) {
	if len(p.Unmanaged) == 0 {
		return
	}
	// Each unmanaged ID is parsed once, not once for every create.
	type unmanaged struct{ armType, group, name string }
	others := make([]unmanaged, len(p.Unmanaged))
	for i, id := range p.Unmanaged {
		others[i] = unmanaged{armTypeOf(id), armid.ResourceGroupOf(id), id[strings.LastIndexByte(id, '/')+1:]}
	}
	for _, r := range p.Resources {
		if r.Action != ActionCreate {
			continue
		}
		rg := armid.ResourceGroupOf(r.ARMID)
		var names []string
		for _, o := range others {
			if strings.EqualFold(o.armType, r.ARMType) && strings.EqualFold(o.group, rg) {
				names = append(names, o.name)
			}
		}
		if len(names) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s in this resource group not in the input: %s; if this renames or moves one of them, "+
				"azk cannot tell (the Azure name and owner are part of the ARM ID): it creates a second resource and leaves the old one",
				r.ARMType, strings.Join(names, ", ")))
		}
	}
}

// inputsDigest identifies the resolved inputs: every object as parsed (and
// the base's resources), the subscription and the policy flag. Secrets are
// left out (their values are compared through the salted digests of the
// desired bodies instead).
func inputsDigest(g, base *graph.Graph, ifExists string) string {
	// Each object's tree goes into the hash one at a time, in the order of
	// its key (address and ID, unique, each ending in a newline, so none
	// starts another). The tree, not its YAML text: writing 20,000 objects
	// out as YAML cost more CPU than the rest of a plan's own work.
	type doc struct {
		key  string
		node *yaml.RNode
	}
	var docs []doc
	for _, n := range g.Nodes {
		docs = append(docs, doc{n.Address() + "\n" + n.ID + "\n", n.Object.Node})
	}
	if base != nil {
		for _, n := range base.Nodes {
			docs = append(docs, doc{"base " + n.Address() + "\n" + n.ID + "\n", n.Object.Node})
		}
	}
	for _, cm := range g.ConfigMaps {
		docs = append(docs, doc{cm.Address() + "\n", cm.Node})
	}
	for _, ns := range g.Namespaces {
		docs = append(docs, doc{ns.Address() + "\n", ns.Node})
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].key < docs[j].key })
	h := sha256.New()
	fmt.Fprintf(h, "subscription %s\nif-exists %s\ndefault-policy %s\n", g.Subscription, ifExists, g.DefaultPolicy)
	t := newTreeHasher(h)
	for _, d := range docs {
		t.buf = strconv.AppendInt(t.buf, int64(len(d.key)), 10)
		t.buf = append(t.buf, '\n')
		t.buf = append(t.buf, d.key...)
		t.node(d.node.YNode())
	}
	t.flush()
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// treeHasher writes YAML trees into a hash (through a buffer, without fmt:
// its writes for each node of 20,000 objects cost more than the hashing):
// each node's kind, tag and value, length-prefixed so that no two trees
// write the same bytes, then its children. Comments and styles are left out:
// they change no request.
type treeHasher struct {
	out io.Writer
	buf []byte
}

func newTreeHasher(out io.Writer) *treeHasher {
	return &treeHasher{out: out, buf: make([]byte, 0, 32<<10)}
}

func (t *treeHasher) flush() {
	t.out.Write(t.buf)
	t.buf = t.buf[:0]
}

func (t *treeHasher) node(n *yaml.Node) {
	if n == nil {
		t.buf = append(t.buf, '~')
		return
	}
	if n.Kind == yaml.AliasNode {
		t.node(n.Alias)
		return
	}
	if len(t.buf) > 16<<10 {
		t.flush()
	}
	tag := n.ShortTag()
	t.buf = strconv.AppendInt(t.buf, int64(n.Kind), 10)
	t.buf = append(t.buf, ' ')
	t.buf = strconv.AppendInt(t.buf, int64(len(tag)), 10)
	t.buf = append(t.buf, ':')
	t.buf = append(t.buf, tag...)
	t.buf = append(t.buf, ' ')
	t.buf = strconv.AppendInt(t.buf, int64(len(n.Value)), 10)
	t.buf = append(t.buf, ':')
	t.buf = append(t.buf, n.Value...)
	t.buf = append(t.buf, ' ')
	t.buf = strconv.AppendInt(t.buf, int64(len(n.Content)), 10)
	t.buf = append(t.buf, '[')
	for _, c := range n.Content {
		t.node(c)
	}
	t.buf = append(t.buf, ']')
}
