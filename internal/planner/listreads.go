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
// So the first resource of each type found in a list is also read with a
// GET: when the two bodies are equal, that type's list items are taken for
// its GETs for the rest of the plan; when not, every resource of the type is
// read with a GET. A resource missing from its list is confirmed with a GET,
// so a list that lags behind a create cannot make the plan create it again.
// Resources whose status other resources read (config-map exports, names)
// and those with ignore-changes are always read with a GET.

// minListed is the fewest resources a collection must serve for a list:
// below it a GET each costs no more.
const minListed = 2

// collection is one list that serves several resources.
type collection struct {
	path, apiVersion string
	once             sync.Once
	items            map[string]map[string]any // lower-cased ID -> item
	err              error
}

// planListReads groups the resources to read by collection and keeps the
// collections that serve at least minListed of them.
func (m *maker) planListReads() {
	m.listed = map[*nodeState]*collection{}
	if m.opts.ReadEach {
		return
	}
	producers := map[*graph.Node]bool{}
	for _, n := range m.g.Nodes {
		for _, e := range n.Edges {
			if e.Kind == graph.EdgeConfigMap && e.To != nil {
				producers[e.To] = true
			}
		}
		if src := n.NameSource(); src != nil && src.To != nil {
			producers[src.To] = true
		}
	}
	byKey := map[string]*collection{}
	members := map[*collection][]*nodeState{}
	for _, st := range m.ordered {
		n := st.node
		if producers[n] || len(n.IgnoreChanges) > 0 {
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
		members[c] = append(members[c], st)
	}
	for c, sts := range members {
		if len(sts) < minListed {
			continue
		}
		for _, st := range sts {
			m.listed[st] = c
		}
	}
}

// list reads the collection once, for all its members.
func (m *maker) list(ctx context.Context, c *collection) {
	c.once.Do(func() {
		if !m.acquire() {
			c.err = m.ctx.Err()
			return
		}
		items, err := m.opts.Reader.List(ctx, c.path, c.apiVersion)
		m.release()
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

// readListed reads st from its collection's list, and reports whether the
// list decided it; when it did not, the caller reads st with a GET.
func (m *maker) readListed(st *nodeState) bool {
	c := m.listed[st]
	if c == nil {
		return false
	}
	m.list(m.readContext(st), c)
	body, found := c.items[strings.ToLower(st.node.ID)]
	if c.err != nil || !found || !m.listsAreWhole(st, body) {
		return false
	}
	etag, _ := body["etag"].(string)
	st.exists, st.current, st.etag = true, body, etag
	return true
}

// wholeLists is, per ARM type and api-version, whether its list items are
// its GETs.
type wholeLists struct {
	once  sync.Once
	whole bool
}

// listsAreWhole reports whether the type of st lists whole resources: the
// first time it is asked for a type, st is read with a GET too and its
// list item compared.
func (m *maker) listsAreWhole(st *nodeState, item map[string]any) bool {
	key := strings.ToLower(st.node.Kind.ARMType) + "?" + st.node.Kind.APIVersion
	v, _ := m.wholeLists.LoadOrStore(key, &wholeLists{})
	w := v.(*wholeLists)
	w.once.Do(func() {
		got, _, err := m.getAt(m.readContext(st), st.node.ID, st.node.Kind.APIVersion)
		w.whole = err == nil && got != nil && reflect.DeepEqual(got, item)
	})
	return w.whole
}

// readContext is the context of st's reads: those that more reads wait for
// (a resource group, then a network, then its subnets) go first when they
// wait for ARM's read budget.
func (m *maker) readContext(st *nodeState) context.Context {
	return arm.WithPriority(m.ctx, float64(m.heights[st.node]))
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
