package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// embeddedCollection is a child collection that ARM keeps inside its parent's
// body: the parent's GET lists the children there, and the parent's PUT
// replaces them (children it does not name are deleted). The children stay
// resources of their own, stored as such; the parent's stored body never
// holds the collection, it is rendered from the children on every read.
type embeddedCollection struct {
	parentType string   // glob on the parent's resource type
	path       []string // where the collection sits in the parent's body
	childType  string   // the children's type segment, e.g. "subnets"
	// brief: items carry only name and properties (without
	// provisioningState), as Compute embeds them; otherwise each item is the
	// full child body, as Network embeds them.
	brief bool
	// inUseCode, when set, is the 400 error code ARM answers for removing a
	// child that another resource still refers to by ID.
	inUseCode string
}

// embeddedCollections are the collections the corpus recordings show
// embedded in their parent's body.
var embeddedCollections = []embeddedCollection{
	{parentType: "Microsoft.Network/virtualNetworks", path: []string{"properties", "subnets"}, childType: "subnets", inUseCode: "InUseSubnetCannotBeDeleted"},
	{parentType: "Microsoft.Network/networkSecurityGroups", path: []string{"properties", "securityRules"}, childType: "securityRules"},
	{parentType: "Microsoft.Network/routeTables", path: []string{"properties", "routes"}, childType: "routes"},
	{parentType: "Microsoft.Network/loadBalancers", path: []string{"properties", "inboundNatRules"}, childType: "inboundNatRules"},
	{parentType: "Microsoft.Compute/virtualMachineScaleSets", path: []string{"properties", "virtualMachineProfile", "extensionProfile", "extensions"}, childType: "extensions", brief: true},
}

// collectionsByType caches collectionsOf: reads ask for every resource they render.
var collectionsByType sync.Map // resource type -> []embeddedCollection

// collectionsOf lists the embedded collections of resources of type typ.
func collectionsOf(typ string) []embeddedCollection {
	if v, ok := collectionsByType.Load(typ); ok {
		return v.([]embeddedCollection)
	}
	var out []embeddedCollection
	for _, c := range embeddedCollections {
		if globMatch(c.parentType, typ) {
			out = append(out, c)
		}
	}
	collectionsByType.Store(typ, out)
	return out
}

// embeddedCollectionOf returns the collection a child type belongs to, if any.
func embeddedCollectionOf(childTyp string) (embeddedCollection, bool) {
	i := strings.LastIndexByte(childTyp, '/')
	if i < 0 {
		return embeddedCollection{}, false
	}
	for _, c := range collectionsOf(childTyp[:i]) {
		if strings.EqualFold(c.childType, childTyp[i+1:]) {
			return c, true
		}
	}
	return embeddedCollection{}, false
}

// render is a record's body as clients read it now: view plus its embedded
// collections. Callers hold s.mu.
func (s *Server) render(rec *record, now time.Time) []byte {
	body := view(rec, now)
	cols := collectionsOf(rec.Type)
	if len(cols) == 0 {
		return body
	}
	m, err := decodeObject(body)
	if err != nil {
		return body
	}
	for _, c := range cols {
		items := s.embeddedItems(rec, c, now)
		if len(items) > 0 || pathExists(m, c.path[:len(c.path)-1]) {
			setPath(m, c.path, items)
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

// embeddedItems are the live children of rec in collection c, oldest first
// (children created by one parent PUT keep the order of its body).
func (s *Server) embeddedItems(rec *record, c embeddedCollection, now time.Time) []any {
	typ := rec.Type + "/" + c.childType
	var kids []*record
	for k := range s.st.children[key(rec.ID)] {
		if kid := s.live(k); kid != nil && strings.EqualFold(kid.Type, typ) {
			kids = append(kids, kid)
		}
	}
	sort.Slice(kids, func(i, j int) bool {
		if !kids[i].Created.Equal(kids[j].Created) {
			return kids[i].Created.Before(kids[j].Created)
		}
		return key(kids[i].ID) < key(kids[j].ID)
	})
	items := make([]any, 0, len(kids))
	for _, kid := range kids {
		body := view(kid, now)
		if !c.brief {
			items = append(items, json.RawMessage(body))
			continue
		}
		m, err := decodeObject(body)
		if err != nil {
			continue
		}
		props, _ := m["properties"].(map[string]any)
		delete(props, "provisioningState")
		items = append(items, map[string]any{"name": m["name"], "properties": props})
	}
	return items
}

// childWrite is one child a parent's PUT creates or updates.
type childWrite struct {
	id, typ string
	body    map[string]any
}

// childChanges is what a parent's PUT does to its embedded children.
type childChanges struct {
	writes  []childWrite
	removes []string // keys
}

// planChildren takes the embedded collections out of a parent's request body
// req and works out which children to write and which to remove; it changes
// nothing stored, so that a refused request leaves no trace. A PATCH that
// does not name a collection leaves it alone; a PUT that does not name one
// empties it, as ARM does.
func (s *Server) planChildren(parentID, parentType string, req map[string]any, patch bool) (childChanges, error) {
	var ch childChanges
	for _, c := range collectionsOf(parentType) {
		v, present := lookupPath(req, c.path)
		if !present && patch {
			continue
		}
		deletePath(req, c.path)
		field := strings.Join(c.path, ".")
		list, ok := v.([]any)
		if v != nil && !ok {
			return ch, errorf(http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request: '%s' must be an array.", field)
		}
		childTyp := parentType + "/" + c.childType
		named := map[string]bool{}
		for i, item := range list {
			m, _ := item.(map[string]any)
			name, _ := m["name"].(string)
			if name == "" || strings.Contains(name, "/") {
				return ch, errorf(http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request: '%s[%d]' needs a name without '/'.", field, i)
			}
			if named[strings.ToLower(name)] {
				return ch, errorf(http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request: '%s' names '%s' twice.", field, name)
			}
			named[strings.ToLower(name)] = true
			ch.writes = append(ch.writes, childWrite{id: parentID + "/" + c.childType + "/" + name, typ: childTyp, body: m})
		}
		var removes []string
		for k := range s.st.children[key(parentID)] {
			kid := s.live(k)
			if kid == nil || !strings.EqualFold(kid.Type, childTyp) || named[strings.ToLower(kid.ID[strings.LastIndexByte(kid.ID, '/')+1:])] {
				continue
			}
			if err := s.inUse(kid, c); err != nil {
				return ch, err
			}
			removes = append(removes, k)
		}
		sort.Strings(removes)
		ch.removes = append(ch.removes, removes...)
	}
	return ch, nil
}

// applyChildren stores what planChildren decided. Written children share the
// parent's operation (p, nil when synchronous) and are created in body order.
func (s *Server) applyChildren(ch childChanges, parentKey string, now time.Time, state string, p *pending) error {
	for _, k := range ch.removes {
		if err := s.removeSubtreeLocked(k, now); err != nil {
			return err
		}
	}
	for i, w := range ch.writes {
		k := key(w.id)
		existing := s.live(k)
		// A nanosecond apart, so that reads list new children in body order.
		rec := &record{ID: w.id, Type: w.typ, Parent: parentKey, Created: now.Add(time.Duration(i))}
		var prev map[string]any
		if existing != nil {
			rec.ID, rec.Type, rec.Created = existing.ID, existing.Type, existing.Created
			_ = json.Unmarshal(existing.Body, &prev)
		}
		rec.ETag = `W/"` + s.newUUID() + `"`
		body, err := json.Marshal(s.buildBody(rec, w.body, prev, now, state))
		if err != nil {
			return err
		}
		rec.Body = body
		if p != nil {
			childPending := *p
			if existing != nil {
				childPending.State = stateUpdating
			}
			rec.Pending = &childPending
		}
		if err := s.st.putResource(k, rec); err != nil {
			return err
		}
	}
	return nil
}

// inUse refuses to remove a child of a collection with an inUseCode while
// another stored resource refers to it by ID, as ARM refuses to delete a
// subnet a network interface's IP configuration is in.
func (s *Server) inUse(kid *record, c embeddedCollection) error {
	if c.inUseCode == "" {
		return nil
	}
	quoted := []byte(`"` + strings.ToLower(kid.ID))
	own := key(kid.ID)
	for k, rec := range s.st.resources {
		if k == own || k == kid.Parent || strings.HasPrefix(k, own+"/") || !containsIDFold(rec.Body, quoted) {
			continue
		}
		return errorf(http.StatusBadRequest, c.inUseCode,
			"%s %s is in use by %s and cannot be deleted. In order to delete it, delete all the resources that refer to it.",
			kid.Type[strings.LastIndexByte(kid.Type, '/')+1:], kid.ID[strings.LastIndexByte(kid.ID, '/')+1:], rec.ID)
	}
	return nil
}

// containsIDFold reports whether body holds quotedLower (a quote and a
// lower-case ID) followed by a quote or a '/' (a reference to the ID or to
// something inside it), ignoring case.
func containsIDFold(body, quotedLower []byte) bool {
	n := len(quotedLower)
	for i := bytes.IndexByte(body, '"'); i >= 0 && i+n < len(body); {
		if bytes.EqualFold(body[i:i+n], quotedLower) && (body[i+n] == '"' || body[i+n] == '/') {
			return true
		}
		j := bytes.IndexByte(body[i+1:], '"')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

func lookupPath(m map[string]any, path []string) (any, bool) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	v, ok := m[path[len(path)-1]]
	return v, ok
}

func pathExists(m map[string]any, path []string) bool {
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			return false
		}
		m = next
	}
	return true
}

func deletePath(m map[string]any, path []string) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, path[len(path)-1])
}

// setPath sets the value at path, creating the objects on the way.
func setPath(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}
