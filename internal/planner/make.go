package planner

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/history"
	"github.com/azkcli/azk/internal/redact"
	"github.com/azkcli/azk/internal/registry"
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
	// NoUnmanagedChildren skips listing the children of the resources of
	// the manifests that the manifests do not hold (Plan.UnmanagedChildren):
	// a list per child collection of each resource.
	NoUnmanagedChildren bool
	// History reads Azure's change history of the resources the plan reads
	// (*arm.Client does), to classify what the manifests leave unsaid (see
	// History); nil skips it (azk plan --history=false).
	History history.Client
	// Secrets are the run's secret values: each string of Azure's bodies
	// that holds one reads as redact.Text, so that no plan, rendering, saved
	// plan or refresh holds it (Azure's values are free text azk does not
	// mark). nil scrubs nothing.
	Secrets *redact.Set
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
	// The unmanaged listings and the inputs' digest are worked out while the
	// reads wait for Azure, once the first have gone out.
	unmanaged := make(chan func() []string, 1)
	unmanagedChildren := make(chan func() ([]UnmanagedChild, diag.List), 1)
	go func() {
		<-m.readsSent
		unmanaged <- m.listUnmanaged()
		unmanagedChildren <- m.listUnmanagedChildren()
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
	readHistory := m.startHistory()
	m.readAll(badNames)
	if readHistory != nil {
		m.classifyHistory(readHistory())
	}
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
	noteReplacedReaders(p)
	diags = append(diags, m.matchSendSecrets(p)...)
	diags = append(diags, m.matchReplace(p)...)
	rm := <-removals
	diags = append(diags, rm.diags...)
	p.Resources = append(p.Resources, rm.resources...)
	orderUnique(p)
	p.Unmanaged = withoutRemoved((<-unmanaged)(), rm.resources)
	children, childDiags := (<-unmanagedChildren)()
	p.UnmanagedChildren = keepUnmanagedChildren(children, p)
	diags = append(diags, childDiags...)
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

	exists bool
	// current is Azure's body scrubbed of the run's secrets (maker.scrub),
	// which the plan compares and shows; raw is it as read, for what apply
	// carries back to Azure (Resource.CarryAzure).
	current, raw map[string]any
	etag         string
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
	// replacedInputs are the values its body takes from resources this plan
	// replaces, set by readReplacedInputs.
	replacedInputs []ReplacedInput
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
	// baseByID is the base's resources by lower-cased ARM ID.
	baseByID map[string]*graph.Node
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
		baseByID:     map[string]*graph.Node{},
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
			if n.ID != "" {
				m.baseByID[strings.ToLower(n.ID)] = n
			}
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
