package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"
)

// armTypeIndex is a registry's ARMType table, read on first use.
type armTypeIndex struct {
	once  sync.Once
	types map[string]*ARMType // lower-cased type
	kinds map[string][]GVK    // lower-cased type -> kinds mapping to it

	childrenOnce sync.Once
	children     map[string][]ChildType // lower-cased parent type -> its child types
}

// armTypeIndexes holds one armTypeIndex per Registry (the Registry type
// itself stays as the generator's index describes it).
var armTypeIndexes sync.Map // *Registry -> *armTypeIndex

func (r *Registry) armTypeIndex() *armTypeIndex {
	v, _ := armTypeIndexes.LoadOrStore(r, &armTypeIndex{})
	idx := v.(*armTypeIndex)
	idx.once.Do(func() {
		idx.types = map[string]*ARMType{}
		idx.kinds = map[string][]GVK{}
		var list []ARMType
		err := readGzipJSON(r.fsys, "armtypes.json.gz", &list)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			// The data is embedded at build time; failing to read it is a build defect.
			panic(fmt.Sprintf("registry: embedded data: %v", err))
		}
		for i := range list {
			idx.types[strings.ToLower(list[i].Type)] = &list[i]
		}
		for _, gvk := range r.all {
			if k := r.kinds[gvk]; k.ARMType != "" {
				t := strings.ToLower(k.ARMType)
				idx.kinds[t] = append(idx.kinds[t], gvk)
			}
		}
	})
	return idx
}

// ARMType returns what the corpus shows about an ARM resource type
// (case-insensitive), e.g. "Microsoft.Storage/storageAccounts". The value
// is shared: callers must not modify it.
func (r *Registry) ARMType(typ string) (*ARMType, bool) {
	t, ok := r.armTypeIndex().types[strings.ToLower(typ)]
	return t, ok
}

// ARMTypesIn returns what the corpus shows about the ARM types of a
// provider namespace (case-insensitive), in no particular order.
func (r *Registry) ARMTypesIn(namespace string) []*ARMType {
	prefix := strings.ToLower(namespace) + "/"
	var out []*ARMType
	for name, t := range r.armTypeIndex().types {
		if strings.HasPrefix(name, prefix) {
			out = append(out, t)
		}
	}
	return out
}

// KindsOfARMType returns the served kinds whose ARM type is typ (case-insensitive), sorted.
func (r *Registry) KindsOfARMType(typ string) []GVK {
	return append([]GVK(nil), r.armTypeIndex().kinds[strings.ToLower(typ)]...)
}

// ChildType is an ARM type directly below another (one more type segment).
type ChildType struct {
	Segment    string   // the last type segment, e.g. "blobServices"
	Type       string   // the full ARM type, as the table spells it
	APIVersion string   // the api-version to list it with: the newest stable one the type publishes, else the newest
	FixedNames []string // ARMType.FixedNames
	ReadOnly   bool     // ARMType.ReadOnlyType
}

// ChildTypes returns the ARM types directly below parentType
// (case-insensitive), sorted by Segment, from the ARMType table. The
// FixedNames are shared: callers must not modify them.
func (r *Registry) ChildTypes(parentType string) []ChildType {
	idx := r.armTypeIndex()
	idx.childrenOnce.Do(idx.indexChildren)
	return slices.Clone(idx.children[strings.ToLower(parentType)])
}

// indexChildren groups the table's types under their parent types once:
// ChildTypes is asked per deleted resource.
func (idx *armTypeIndex) indexChildren() {
	idx.children = map[string][]ChildType{}
	for name, t := range idx.types {
		i := strings.LastIndexByte(name, '/')
		if strings.Count(name, "/") < 2 {
			continue // a namespace's top-level type: no parent type
		}
		idx.children[name[:i]] = append(idx.children[name[:i]], ChildType{
			Segment:    t.Type[i+1:],
			Type:       t.Type,
			APIVersion: listVersion(t.APIVersions),
			FixedNames: t.FixedNames,
			ReadOnly:   t.ReadOnlyType,
		})
	}
	for _, cs := range idx.children {
		slices.SortFunc(cs, func(a, b ChildType) int {
			if c := strings.Compare(strings.ToLower(a.Segment), strings.ToLower(b.Segment)); c != 0 {
				return c
			}
			return strings.Compare(a.Segment, b.Segment)
		})
	}
}

// listVersion is the newest stable api-version of versions (sorted oldest
// first, as ARMType.APIVersions are), else the newest.
func listVersion(versions []string) string {
	for _, v := range slices.Backward(versions) {
		if len(v) == len("2006-01-02") {
			return v // no -preview, -beta or similar suffix
		}
	}
	if len(versions) == 0 {
		return ""
	}
	return versions[len(versions)-1]
}

// Op is the kind of operation a Timing is about.
type Op int

const (
	OpCreate Op = iota
	OpUpdate
	OpDelete
)

// Timing is how the recordings show op on the type going; nil when they
// show no long-running operation for it.
func (t *ARMType) Timing(op Op) *Timing {
	switch op {
	case OpCreate:
		return t.CreateTiming
	case OpUpdate:
		return t.UpdateTiming
	case OpDelete:
		return t.DeleteTiming
	}
	return nil
}

// Duration is how long op on armType lasts as the recordings show it (see
// Timing.Seconds); 0 when they show none.
func (r *Registry) Duration(armType string, op Op) time.Duration {
	t, ok := r.ARMType(armType)
	if !ok {
		return 0
	}
	if tm := t.Timing(op); tm != nil {
		return time.Duration(tm.Seconds * float64(time.Second))
	}
	return 0
}

// OperationDuration is Duration for a request's method: a DELETE deletes, a
// PATCH updates, and a PUT counts as the create it usually is (an update's
// operation is rarely longer).
func (r *Registry) OperationDuration(method, armType string) time.Duration {
	op := OpCreate
	switch method {
	case "DELETE":
		op = OpDelete
	case "PATCH":
		op = OpUpdate
	}
	return r.Duration(armType, op)
}
