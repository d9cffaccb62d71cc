package planner

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/graph"
)

// List reads. Resources of one type under one parent (a resource group's
// storage accounts, a virtual network's subnets) are read with one list of
// that collection instead of one GET each: a plan of a few thousand
// resources then costs a few hundred requests of ARM's read budget.
//
// A list item may carry less than a GET does (some providers trim their
// lists), and a plan decided on one must be the plan a GET would have given.
// So the first resource of each type to be read is also read with a GET,
// alongside its list: when the GET equals its list item, that type's list
// items are taken for its GETs for the rest of the plan; when not, every
// resource of the type is read with a GET. A resource missing from its list is confirmed with a GET,
// so a list that lags behind a create cannot make the plan create it again.
// Resources whose status other resources read (config-map exports, names)
// and those with ignore-changes are always read with a GET.

// minListed is the fewest resources a collection must serve for a list:
// below it a GET each costs no more.
const minListed = 2

// collection is one list that serves several resources.
type collection struct {
	path, apiVersion string
	// members is how many resources it serves.
	members int
	once    sync.Once
	items   map[string]map[string]any // lower-cased ID -> item
	err     error
}

// planListReads groups the resources to read by collection and keeps the
// collections that serve at least minListed of them.
func (m *maker) planListReads() {
	m.listed = map[*graph.Node]*collection{}
	if m.opts.ReadEach {
		return
	}
	producers := map[*graph.Node]bool{}
	for _, n := range m.g.Nodes {
		for _, e := range n.Edges {
			// A name from another resource's status (NameSource) is one of these edges too.
			if e.Kind == graph.EdgeConfigMap && e.To != nil {
				producers[e.To] = true
			}
		}
	}
	byKey := map[string]*collection{}
	members := map[*collection][]*graph.Node{}
	for _, n := range m.g.Nodes {
		if !readable(n) || producers[n] || len(n.IgnoreChanges) > 0 {
			continue
		}
		i := strings.LastIndexByte(n.ID, '/')
		if i <= 0 {
			continue
		}
		path := n.ID[:i]
		key := strings.ToLower(path) + "?" + n.Kind.APIVersion
		c := byKey[key]
		if c == nil {
			c = &collection{path: path, apiVersion: n.Kind.APIVersion}
			byKey[key] = c
		}
		members[c] = append(members[c], n)
	}
	for c, ns := range members {
		if len(ns) < minListed {
			continue
		}
		c.members = len(ns)
		for _, n := range ns {
			m.listed[n] = c
		}
	}
}

// list reads the collection once, for all its members.
func (m *maker) list(ctx context.Context, c *collection) {
	c.once.Do(func() {
		if c.err = m.ctx.Err(); c.err != nil {
			return
		}
		items, err := m.opts.Reader.List(ctx, c.path, c.apiVersion)
		if err != nil {
			c.err = err
			return
		}
		c.items = make(map[string]map[string]any, len(items))
		for _, raw := range items {
			var item map[string]any
			if json.Unmarshal(raw, &item) != nil {
				continue
			}
			if id, _ := item["id"].(string); id != "" {
				c.items[strings.ToLower(strings.TrimSuffix(id, "/"))] = item
			}
		}
	})
}

// read reads st: from its collection's list when one serves it and the
// list can be trusted, else with a GET. It returns the body and ETag, nil
// when the resource does not exist.
func (m *maker) read(st *nodeState) (map[string]any, string, error) {
	ctx := m.readContext(st)
	c := m.listed[st.node]
	if c == nil {
		return m.getAt(ctx, st.node.ID, st.node.Kind.APIVersion)
	}
	probe, get := m.probeFor(st, ctx)
	m.list(ctx, c)
	item, found := c.items[strings.ToLower(st.node.ID)]
	if get != nil {
		<-get.done
		probe.decide(c.err == nil && found, item, get)
		return get.got, get.etag, get.err
	}
	if c.err != nil || !found || !probe.whole() {
		return m.getAt(ctx, st.node.ID, st.node.Kind.APIVersion)
	}
	etag, _ := item["etag"].(string)
	return item, etag, nil
}

// typeProbe finds out whether an ARM type's list items (at an api-version)
// are its GETs: the first of its resources to be read is read with a GET
// alongside its list, and the two compared. Until that is decided the
// type's other resources wait; when it cannot be (the resource is not in
// its list), they are read with GETs. Each subscription waits for its own
// first resource of the type, or for another's that decides first: a
// subscription whose reads wait for its budget holds back no other's.
type typeProbe struct {
	decided chan struct{} // closed once the comparison was made
	once    sync.Once
	isWhole bool

	mu sync.Mutex
	// probing are the subscriptions whose first resource of the type is
	// being read with a GET.
	probing map[string]bool
}

// probeGet is the GET of a resource that probes its type.
type probeGet struct {
	done chan struct{} // closed once the GET answered
	got  map[string]any
	etag string
	err  error
}

// probeFor is the probe of st's type, and the GET of st when st is the
// first resource of the type read in its subscription before the type is
// decided (the GET then starts now, alongside the list).
func (m *maker) probeFor(st *nodeState, ctx context.Context) (*typeProbe, *probeGet) {
	key := strings.ToLower(st.node.Kind.ARMType) + "?" + st.node.Kind.APIVersion
	v, _ := m.probes.LoadOrStore(key, &typeProbe{decided: make(chan struct{}), probing: map[string]bool{}})
	p := v.(*typeProbe)
	sub := st.subscription
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.decided:
		return p, nil
	default:
	}
	if p.probing[sub] {
		return p, nil
	}
	p.probing[sub] = true
	g := &probeGet{done: make(chan struct{})}
	go func() {
		defer close(g.done)
		g.got, g.etag, g.err = m.getAt(ctx, st.node.ID, st.node.Kind.APIVersion)
	}()
	return p, g
}

// decide compares a probe's GET with the resource's list item, unless
// another subscription's probe decided first.
func (p *typeProbe) decide(listed bool, item map[string]any, g *probeGet) {
	p.once.Do(func() {
		p.isWhole = listed && g.err == nil && g.got != nil && reflect.DeepEqual(g.got, item)
		close(p.decided)
	})
}

// whole waits for the comparison and reports whether the type's list items
// can be taken for its GETs.
func (p *typeProbe) whole() bool {
	<-p.decided
	return p.isWhole
}

// readContext is the context of st's reads: they wait for ARM's read budget
// by readPriority.
func (m *maker) readContext(st *nodeState) context.Context {
	return arm.WithPriority(m.ctx, m.readPriority(st))
}

// readPriority orders reads: those that more levels of reads wait for (a
// resource group, then a network, then its subnets) first, and on one
// level those that serve more resources (a list of hundreds of peerings
// takes pages one after the other).
func (m *maker) readPriority(st *nodeState) float64 {
	served := 1
	if c := m.listed[st.node]; c != nil {
		served = c.members
	}
	return float64(m.heights[st.node]) + 1 - 1/float64(served+1)
}

// readHeights sets how many levels of resources wait for each one's read.
func (m *maker) readHeights() {
	m.heights = map[*graph.Node]int{}
	var height func(n *graph.Node, seen map[*graph.Node]bool) int
	dependents := map[*graph.Node][]*graph.Node{}
	for _, n := range m.g.Nodes {
		for _, d := range n.DependsOn() {
			dependents[d] = append(dependents[d], n)
		}
	}
	height = func(n *graph.Node, seen map[*graph.Node]bool) int {
		if h, ok := m.heights[n]; ok {
			return h
		}
		if seen[n] {
			return 0 // a cycle: the graph reports it
		}
		seen[n] = true
		h := 0
		for _, d := range dependents[n] {
			h = max(h, height(d, seen)+1)
		}
		m.heights[n] = h
		return h
	}
	for _, n := range m.g.Nodes {
		height(n, map[*graph.Node]bool{})
	}
}
