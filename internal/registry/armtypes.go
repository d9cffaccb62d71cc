package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"
)

// armTypeIndex is a registry's ARMType table, read on first use.
type armTypeIndex struct {
	once  sync.Once
	types map[string]*ARMType // lower-cased type
	kinds map[string][]GVK    // lower-cased type -> kinds mapping to it
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
