package exported

import (
	"context"
	"fmt"
	"sort"

	"github.com/azkcli/azk/internal/graph"
)

// Select reads what the resources of g export, in input order: all of it,
// or what the addresses name (a resource, see graph.MatchAddress, or one
// exported object, ConfigMap/NAME or Secret/NAME). Secrets hold their
// values only when revealed, else their keys. absent hears of each resource
// that does not exist yet: it exports nothing. An address that names
// nothing is an error.
func (f *Fetcher) Select(ctx context.Context, g *graph.Graph, addresses []string, reveal bool, absent func(*graph.Node)) ([]Object, error) {
	matched := make([]bool, len(addresses))
	matches := func(address string) bool {
		if len(addresses) == 0 {
			return true
		}
		hit := false
		for i, a := range addresses {
			if graph.MatchAddress(address, a) {
				matched[i], hit = true, true
			}
		}
		return hit
	}
	var out []Object
	for _, n := range g.Nodes {
		if n.ID == "" || (len(n.Exports) == 0 && len(n.SecretExports) == 0) {
			continue
		}
		whole := matches(n.Address())
		if exists, err := f.Exists(ctx, n); err != nil {
			return nil, fmt.Errorf("%s: %w", n.Address(), err)
		} else if !exists {
			absent(n)
			continue
		}
		var objs []Object
		cms, err := f.ConfigMaps(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.Address(), err)
		}
		objs = append(objs, cms...)
		if reveal {
			secrets, err := f.Secrets(ctx, n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n.Address(), err)
			}
			objs = append(objs, secrets...)
		} else {
			objs = append(objs, declaredSecrets(n)...)
		}
		for _, o := range objs {
			if whole || matches("v1/"+o.Kind+"/"+o.Namespace+"/"+o.Name) {
				out = append(out, o)
			}
		}
	}
	for i, a := range addresses {
		if !matched[i] {
			return nil, fmt.Errorf("%s: no resource of the inputs, nor a config map or Secret they export, has that address (group/Kind/namespace/name, Kind/namespace/name, Kind/name, ConfigMap/NAME or Secret/NAME)", a)
		}
	}
	return out, nil
}

// declaredSecrets are the Secrets n exports as the manifests declare them:
// keys without values (an expression yielding a map has its keys only
// once evaluated).
func declaredSecrets(n *graph.Node) []Object {
	byName := map[string]*Object{}
	var names []string
	for _, e := range n.SecretExports {
		o := byName[e.Secret]
		if o == nil {
			o = &Object{Kind: "Secret", Namespace: n.Object.Namespace, Name: e.Secret, Data: map[string]string{}, From: n.Address()}
			byName[e.Secret] = o
			names = append(names, e.Secret)
		}
		key := e.Key
		if key == "" {
			key = "(keys of " + e.Field + ")"
		}
		o.Data[key] = ""
	}
	sort.Strings(names)
	out := make([]Object, len(names))
	for i, name := range names {
		out[i] = *byName[name]
	}
	return out
}
