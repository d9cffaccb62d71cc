package armcore

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// EmbeddedCollection is a child collection that ARM keeps inside its parent's
// body: the parent's GET lists the children there, and the parent's PUT
// replaces them (children it does not name are deleted). The children stay
// resources of their own, stored as such; the parent's stored body never
// holds the collection, it is rendered from the children on every read.
type EmbeddedCollection struct {
	ParentType string   // glob on the parent's resource type
	Path       []string // where the collection sits in the parent's body
	ChildType  string   // the children's type segment, e.g. "subnets"
	// brief: items carry only name and properties (without
	// provisioningState), as Compute embeds them; otherwise each item is the
	// full child body, as Network embeds them.
	Brief bool
	// InUseCode, when set, is the 400 error code ARM answers for removing a
	// child that another resource still refers to by ID.
	InUseCode string
}

// embeddedCollections are the collections the corpus recordings show
// embedded in their parent's body.
var embeddedCollections = []EmbeddedCollection{
	{ParentType: "Microsoft.Network/virtualNetworks", Path: []string{"properties", "subnets"}, ChildType: "subnets", InUseCode: "InUseSubnetCannotBeDeleted"},
	{ParentType: "Microsoft.Network/networkSecurityGroups", Path: []string{"properties", "securityRules"}, ChildType: "securityRules"},
	{ParentType: "Microsoft.Network/routeTables", Path: []string{"properties", "routes"}, ChildType: "routes"},
	{ParentType: "Microsoft.Network/loadBalancers", Path: []string{"properties", "inboundNatRules"}, ChildType: "inboundNatRules"},
	{ParentType: "Microsoft.Compute/virtualMachineScaleSets", Path: []string{"properties", "virtualMachineProfile", "extensionProfile", "extensions"}, ChildType: "extensions", Brief: true},
}

// collectionsByType caches collectionsOf: reads ask for every resource they render.
var collectionsByType sync.Map // resource type -> []EmbeddedCollection

// collectionsOf lists the embedded collections of resources of type typ.
func collectionsOf(typ string) []EmbeddedCollection {
	if v, ok := collectionsByType.Load(typ); ok {
		return v.([]EmbeddedCollection)
	}
	var out []EmbeddedCollection
	for _, c := range embeddedCollections {
		if armid.GlobMatch(c.ParentType, typ) {
			out = append(out, c)
		}
	}
	collectionsByType.Store(typ, out)
	return out
}

// EmbeddedCollections are the collections the corpus recordings show
// embedded in their parent's body.
func EmbeddedCollections() []EmbeddedCollection { return slices.Clone(embeddedCollections) }

// CollectionsOf lists the embedded collections of resources of type typ.
func CollectionsOf(typ string) []EmbeddedCollection { return slices.Clone(collectionsOf(typ)) }

// embeddedCollectionOf returns the collection a child type belongs to, if any.
func embeddedCollectionOf(childTyp string) (EmbeddedCollection, bool) {
	i := strings.LastIndexByte(childTyp, '/')
	if i < 0 {
		return EmbeddedCollection{}, false
	}
	for _, c := range collectionsOf(childTyp[:i]) {
		if strings.EqualFold(c.ChildType, childTyp[i+1:]) {
			return c, true
		}
	}
	return EmbeddedCollection{}, false
}

// render is a record's body as clients read it now: view plus its embedded
// collections, spliced into the stored bytes (which never hold them) rather
// than decoded and encoded again, since reads are the hot path. Callers hold c.mu.
func (c *Core) render(rec *store.Record, now time.Time) []byte {
	body := c.own(rec, now)
	for _, col := range collectionsOf(rec.Type) {
		items := c.embeddedItems(rec, col, now)
		if next, ok := spliceJSON(body, col.Path, items, string(items) != "[]" || filledAt(rec.Type, col.Path)); ok {
			body = next
		}
	}
	return body
}

// own is view plus the read-only back-references ARM lists in a resource
// (a subnet's IP configurations).
func (c *Core) own(rec *store.Record, now time.Time) []byte {
	body := View(rec, now)
	for _, br := range c.hooks.backRefs {
		if path, v := br.BackReferences(Tx{c}, rec); v != nil {
			if next, ok := spliceJSON(body, path, v, true); ok {
				body = next
			}
		}
	}
	return body
}

// spliceJSON sets path in the JSON object body to the JSON value v. Objects
// missing on the way are created when create is set; otherwise body is
// returned as is. ok is false when body is not well-formed there.
func spliceJSON(body []byte, path []string, v []byte, create bool) (out []byte, ok bool) {
	start, end, found, ok := memberSpan(body, path[0])
	if !ok {
		return nil, false
	}
	var value []byte
	switch {
	case len(path) == 1:
		value = v
	case found:
		if value, ok = spliceJSON(body[start:end], path[1:], v, create); !ok {
			return nil, false
		}
	case !create:
		return body, true
	default:
		value = v
		for i := len(path) - 1; i >= 1; i-- {
			value = slices.Concat([]byte(`{"`+path[i]+`":`), value, []byte("}"))
		}
	}
	if found {
		return slices.Concat(body[:start], value, body[end:]), true
	}
	open := bytes.IndexByte(body, '{') + 1
	sep := []byte(",")
	if rest := bytes.TrimLeft(body[open:], " \t\r\n"); len(rest) > 0 && rest[0] == '}' {
		sep = nil
	}
	return slices.Concat(body[:open], []byte(`"`+path[0]+`":`), value, sep, body[open:]), true
}

// memberSpan finds the value of the top-level member name in the JSON
// object body: body[start:end] is the value when found.
func memberSpan(body []byte, name string) (start, end int, found, ok bool) {
	ok = eachMember(body, func(key []byte, s, e int) bool {
		if string(key) == name {
			start, end, found = s, e, true
		}
		return !found
	})
	return start, end, found, ok
}

// eachMember calls member with each top-level member of the JSON object
// body (its key, unquoted as written, and body[start:end] its value) until
// member returns false, scanning the object once. It reports whether body
// is an object well formed up to where it stopped.
func eachMember(body []byte, member func(key []byte, start, end int) bool) bool {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return true
	}
	for i < len(body) {
		keyEnd := skipValue(body, i)
		if keyEnd < 0 || body[i] != '"' {
			return false
		}
		key := body[i+1 : keyEnd-1]
		i = skipSpace(body, keyEnd)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		start := skipSpace(body, i+1)
		end := skipValue(body, start)
		if end < 0 {
			return false
		}
		if !member(key, start, end) {
			return true
		}
		i = skipSpace(body, end)
		if i < len(body) && body[i] == '}' {
			return true
		}
		if i >= len(body) || body[i] != ',' {
			return false
		}
		i = skipSpace(body, i+1)
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at i, or -1.
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object or array
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\r', '\n', ':':
			if depth == 0 {
				return i
			}
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}

// embeddedItems is the JSON array of the live children of rec in collection c, oldest first
// (children created by one parent PUT keep the order of its body).
func (c *Core) embeddedItems(rec *store.Record, col EmbeddedCollection, now time.Time) []byte {
	typ := rec.Type + "/" + col.ChildType
	var kids []*store.Record
	for k := range c.st.Children(armpath.Key(rec.ID)) {
		if kid := c.live(k); kid != nil && strings.EqualFold(kid.Type, typ) {
			kids = append(kids, kid)
		}
	}
	sort.Slice(kids, func(i, j int) bool {
		if !kids[i].Created.Equal(kids[j].Created) {
			return kids[i].Created.Before(kids[j].Created)
		}
		return armpath.Key(kids[i].ID) < armpath.Key(kids[j].ID)
	})
	items := []byte{'['}
	for _, kid := range kids {
		body := c.own(kid, now)
		if col.Brief {
			m, err := DecodeObject(body)
			if err != nil {
				continue
			}
			props, _ := m["properties"].(map[string]any)
			delete(props, "provisioningState")
			if body, err = json.Marshal(map[string]any{"name": m["name"], "properties": props}); err != nil {
				continue
			}
		}
		if len(items) > 1 {
			items = append(items, ',')
		}
		items = append(items, body...)
	}
	return append(items, ']')
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
func (c *Core) planChildren(parentID, parentType string, req map[string]any, patch bool) (childChanges, error) {
	var ch childChanges
	for _, col := range collectionsOf(parentType) {
		v, present := armjson.Lookup(req, col.Path)
		if !present && patch {
			continue
		}
		dropPath(req, col.Path)
		field := strings.Join(col.Path, ".")
		list, ok := v.([]any)
		if v != nil && !ok {
			return ch, Errorf(http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request: '%s' must be an array.", field)
		}
		childTyp := parentType + "/" + col.ChildType
		named := map[string]bool{}
		for i, item := range list {
			m, _ := item.(map[string]any)
			name, _ := m["name"].(string)
			if name == "" || strings.Contains(name, "/") {
				return ch, Errorf(http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request: '%s[%d]' needs a name without '/'.", field, i)
			}
			if named[strings.ToLower(name)] {
				return ch, Errorf(http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request: '%s' names '%s' twice.", field, name)
			}
			named[strings.ToLower(name)] = true
			ch.writes = append(ch.writes, childWrite{id: parentID + "/" + col.ChildType + "/" + name, typ: childTyp, body: m})
		}
		var removes []string
		for k := range c.st.Children(armpath.Key(parentID)) {
			kid := c.live(k)
			if kid == nil || !strings.EqualFold(kid.Type, childTyp) || named[strings.ToLower(kid.ID[strings.LastIndexByte(kid.ID, '/')+1:])] {
				continue
			}
			if err := c.inUse(kid, col); err != nil {
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
func (c *Core) applyChildren(ch childChanges, parentKey string, now time.Time, state string, p *store.Pending) error {
	for _, k := range ch.removes {
		if err := c.removeSubtreeLocked(k, now); err != nil {
			return err
		}
	}
	for i, w := range ch.writes {
		k := armpath.Key(w.id)
		existing := c.live(k)
		// A nanosecond apart, so that reads list new children in body order.
		rec := &store.Record{ID: w.id, Type: w.typ, Parent: parentKey, Created: now.Add(time.Duration(i))}
		var prev map[string]any
		if existing != nil {
			rec.ID, rec.Type, rec.Created = existing.ID, existing.Type, existing.Created
			_ = json.Unmarshal(existing.Body, &prev)
		}
		rec.ETag = `W/"` + c.newUUID() + `"`
		body, err := json.Marshal(c.buildBody(rec, w.body, prev, now, state))
		if err != nil {
			return err
		}
		rec.Body = body
		if p != nil {
			childPending := *p
			if existing != nil {
				childPending.State = StateUpdating
			}
			rec.Pending = &childPending
		}
		if err := c.st.PutResource(k, rec); err != nil {
			return err
		}
	}
	return nil
}

// subtreeInUse refuses to delete k when a child in its subtree belongs to a
// collection with an inUseCode and a resource outside the subtree refers to
// it, as ARM refuses to delete a virtual network whose subnet a network
// interface is in.
func (c *Core) subtreeInUse(k string) error {
	for _, sk := range c.subtree(k) {
		rec := c.st.Resource(sk)
		if col, ok := embeddedCollectionOf(rec.Type); ok {
			if err := c.inUseOutside(rec, col, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// inUse refuses to remove a child of a collection with an inUseCode while
// another stored resource refers to it by ID, as ARM refuses to delete a
// subnet a network interface's IP configuration is in.
func (c *Core) inUse(kid *store.Record, col EmbeddedCollection) error {
	return c.inUseOutside(kid, col, armpath.Key(kid.ID))
}

// inUseOutside is inUse, counting only referrers outside the subtree at root.
func (c *Core) inUseOutside(kid *store.Record, col EmbeddedCollection, root string) error {
	if col.InUseCode == "" {
		return nil
	}
	quoted := []byte(`"` + strings.ToLower(kid.ID))
	own := armpath.Key(kid.ID)
	for k, rec := range c.st.Resources() {
		if k == own || k == kid.Parent || k == root || strings.HasPrefix(k, own+"/") || strings.HasPrefix(k, root+"/") || !containsIDFold(rec.Body, quoted) {
			continue
		}
		return Errorf(http.StatusBadRequest, col.InUseCode,
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
