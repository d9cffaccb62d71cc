package planner

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/registry"
)

// UnmanagedChild is a child resource Azure holds under a resource of the
// manifests that the manifests do not hold (a subnet, firewall rule or blob
// container added in the portal).
type UnmanagedChild struct {
	ID string `json:"armId"`
	// Parent is the address of the resource of the manifests it is under;
	// ParentID its ARM ID.
	Parent   string `json:"parent"`
	ParentID string `json:"parentArmId"`
}

// childCollection is a collection of children the unmanaged report lists
// under each resource of one ARM type.
type childCollection struct {
	// Path is the collection below the resource, e.g. "subnets" or
	// "blobServices/default/containers".
	Path       string
	Type       string
	APIVersion string
	// Through are the fixed-name singletons the path goes through
	// ("blobServices/default"), none for a direct child: when the manifests
	// hold one, its own listing covers the collection.
	Through []string
}

// unmanagedCollections are the child collections the unmanaged report lists
// under a resource of armType. The report costs a list per collection and
// resource, so it lists only what someone could have added by hand and
// could manage with azk instead:
//   - child types ASO has a kind for; the rest are Azure's own records (a
//     private endpoint connection, a subnet's service association link)
//     that no manifest could hold;
//   - not read-only types (views of the parent: nobody creates one), nor
//     types Azure cannot delete on their own (a server's configurations,
//     which Azure makes with the server by the hundred);
//   - through fixed-name singletons, which Azure makes with their parent
//     and which so are no one's addition (a storage account's
//     blobServices/default), to the collections under them (its
//     containers).
//
// Children the manifests hold are resources of the manifests too, whose
// own children are listed in turn; a child found unmanaged is not walked
// into: what it holds is its own. Of what is listed, the children Azure
// makes itself are left out as import leaves them out (builtInOf). The
// cost is at most one list per resource and collection here (paged when
// long), none for resources Azure does not have yet, and none for a
// collection the reads listed already.
func unmanagedCollections(armType string) []childCollection {
	if v, ok := unmanagedCollectionsOf.Load(strings.ToLower(armType)); ok {
		return v.([]childCollection)
	}
	reg := registry.Default()
	var out []childCollection
	var walk func(typ, prefix string, through []string)
	walk = func(typ, prefix string, through []string) {
		for _, c := range reg.ChildTypes(typ) {
			switch {
			case c.ReadOnly:
			case len(c.FixedNames) > 0:
				for _, name := range c.FixedNames {
					single := prefix + c.Segment + "/" + name
					walk(c.Type, single+"/", append(slices.Clip(through), single))
				}
			case partOfParent(c.Type), len(reg.KindsOfARMType(c.Type)) == 0:
			default:
				out = append(out, childCollection{Path: prefix + c.Segment, Type: c.Type, APIVersion: c.APIVersion, Through: through})
			}
		}
	}
	// A resource group's contents are the resource-group-level report's.
	if !strings.EqualFold(armType, "Microsoft.Resources/resourceGroups") {
		walk(armType, "", nil)
	}
	unmanagedCollectionsOf.Store(strings.ToLower(armType), out)
	return out
}

// unmanagedCollectionsOf caches unmanagedCollections by lower-cased ARM
// type: a plan asks it for every resource.
var unmanagedCollectionsOf sync.Map

// listUnmanagedChildren starts listing, under each resource of the
// manifests once its read finds it in Azure, the collections
// unmanagedCollections names, alongside the reads and after them in ARM's
// read budget (no priority: the reads go first); the returned function
// waits for the children the manifests do not hold, sorted by ID, and the
// warnings. A collection the reads already listed (listreads.go) is not
// listed again. A listing that fails is a warning naming the parent: the
// report is informational, so unlike the cascade guard it never stops a
// plan.
func (m *maker) listUnmanagedChildren() func() ([]UnmanagedChild, diag.List) {
	if m.opts.NoUnmanagedChildren {
		return func() ([]UnmanagedChild, diag.List) { return nil, nil }
	}
	held := map[string]bool{}
	for _, n := range m.g.Outside {
		held[strings.ToLower(n.ID)] = true
	}
	for _, st := range m.ordered {
		held[strings.ToLower(st.node.ID)] = true
	}
	readLists := map[string]*collection{} // lower-cased path -> the reads' list of it
	readMembers := map[*collection][]*nodeState{}
	for n, c := range m.listed {
		readLists[strings.ToLower(c.path)] = c
		readMembers[c] = append(readMembers[c], m.states[n])
	}
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		out   []UnmanagedChild
		diags diag.List
	)
	for _, st := range m.ordered {
		collections := unmanagedCollections(st.node.Kind.ARMType)
		if !readable(st.node) || len(collections) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if <-st.read; !st.exists || st.readErr != nil {
				return // it will be created (nothing under it yet), or the plan fails
			}
			for _, c := range collections {
				if slices.ContainsFunc(c.Through, func(single string) bool { return held[strings.ToLower(st.node.ID+"/"+single)] }) {
					continue // the manifests hold the singleton: its own listing covers it
				}
				path := st.node.ID + "/" + c.Path
				ids, err := m.childIDs(path, c.APIVersion, readLists[strings.ToLower(path)], readMembers, builtInOf(c.Type, path))
				mu.Lock()
				if err != nil {
					diags.Add(diag.Warningf(st.node.Object.Source, "", "", "listing %s under %s for the unmanaged report: %v", c.Path, st.node.Address(), err))
				}
				for _, id := range ids {
					if !held[strings.ToLower(id)] {
						out = append(out, UnmanagedChild{ID: id, Parent: st.node.Address(), ParentID: st.node.ID})
					}
				}
				mu.Unlock()
			}
		}()
	}
	return func() ([]UnmanagedChild, diag.List) {
		wg.Wait()
		sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].ID) < strings.ToLower(out[j].ID) })
		return out, diags
	}
}

// builtInOf says, for a child of armType in the collection at path, from
// its listed body, whether Azure makes it itself (a PostgreSQL server's
// azure_sys database): what the operator's Importer extensions leave out
// of an import (extensions.Importer), no manifest manages either. Nil when
// the type has none.
func builtInOf(armType, path string) func(body map[string]any) bool {
	ext := extensions.ImporterFor(armType)
	if ext == nil {
		return nil
	}
	parent := path[:strings.LastIndexByte(path, '/')]
	return func(body map[string]any) bool { return ext.SkipImport(body, parent) != nil }
}

// childIDs lists the IDs in the collection at path, but for those builtIn
// (when not nil) says Azure made: from the reads' list of it when there is
// one (once the reads it serves are done, so that the report never goes
// before them), else with a list of its own. A collection ARM says is not
// there (the parent went meanwhile, or the provider has no such type
// there) holds nothing.
func (m *maker) childIDs(path, apiVersion string, read *collection, members map[*collection][]*nodeState, builtIn func(map[string]any) bool) ([]string, error) {
	if read != nil {
		for _, st := range members[read] {
			<-st.read
		}
		m.list(m.ctx, read) // listed already, unless the reads took GETs
		if read.err == nil {
			ids := make([]string, 0, len(read.items))
			for _, item := range read.items {
				if id, _ := item["id"].(string); id != "" && (builtIn == nil || !builtIn(item)) {
					ids = append(ids, id)
				}
			}
			return ids, nil
		}
	}
	if err := m.ctx.Err(); err != nil {
		return nil, err
	}
	items, err := listChildren(m.ctx, m.opts.Reader, path, apiVersion)
	if err != nil && noSuchCollection(err) {
		return nil, nil
	}
	ids := make([]string, 0, len(items))
	for _, item := range items {
		if builtIn != nil {
			var body map[string]any
			if json.Unmarshal(item.Raw, &body) == nil && builtIn(body) {
				continue
			}
		}
		ids = append(ids, item.ID)
	}
	return ids, err
}

// keepUnmanagedChildren is the children found less those the plan shows
// otherwise: under a resource it deletes or replaces (the cascade guard
// names what goes with it), deleted or detached themselves, or already in
// the resource-group-level list (ARM lists a tracked child, such as a
// private DNS zone's virtual network link, with its resource group's).
func keepUnmanagedChildren(children []UnmanagedChild, p *Plan) []UnmanagedChild {
	shown := map[string]bool{}
	for _, id := range p.Unmanaged {
		shown[strings.ToLower(id)] = true
	}
	going := map[string]bool{}
	for _, r := range p.Resources {
		switch r.Action {
		case ActionDelete, ActionDetach:
			shown[strings.ToLower(r.ARMID)] = true
		}
		if r.Action == ActionDelete || r.Action == ActionRecreate {
			going[strings.ToLower(r.ARMID)] = true
		}
	}
	out := children[:0]
	for _, c := range children {
		if !shown[strings.ToLower(c.ID)] && !going[strings.ToLower(c.ParentID)] {
			out = append(out, c)
		}
	}
	return out
}
