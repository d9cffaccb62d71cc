package corpus

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"
)

// Subscription is the subscription ID the recordings were redacted to.
const Subscription = "00000000-0000-0000-0000-000000000000"

// SampleResourceGroup is the resource group the operator's test harness adds
// to every samples folder (in westus2, as its recorded PUTs show).
const SampleResourceGroup = "aso-sample-rg"

const sampleResourceGroupYAML = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: aso-sample-rg
  namespace: {namespace}
spec:
  location: westus2
`

// Samples is a samples folder loaded the way the operator's test harness
// loads it, with what was changed to get there.
type Samples struct {
	Result *loader.Result
	// LoadDiagnostics are what loading the folder reported.
	LoadDiagnostics diag.List
	// Unserved lists objects left out because the CRDs no longer serve their version.
	Unserved []*loader.Object
	// Fixups describe each harness adjustment made (owner rebinding, field-name case).
	Fixups []string
}

// LoadSamples loads samples/<group>/<version> with its refs/ and the harness's
// resource group, then does what the operator's test harness does before
// creating them (see HarnessFixups). Objects of versions no longer served are
// left out, as the corpus README says.
func LoadSamples(t testing.TB, folder string) *Samples {
	t.Helper()
	res, diags := loader.Load(loader.Options{Paths: []string{folder}})
	if !hasObject(res, "ResourceGroup", SampleResourceGroup) {
		rgFile := filepath.Join(t.TempDir(), "harness-rg.yaml")
		if err := os.WriteFile(rgFile, []byte(strings.ReplaceAll(sampleResourceGroupYAML, "{namespace}", "default")), 0o644); err != nil {
			t.Fatal(err)
		}
		rg, _ := loader.Load(loader.Options{Paths: []string{rgFile}})
		res.Resources = append(res.Resources, rg.Resources...)
	}
	s := &Samples{Result: res, LoadDiagnostics: diags}
	reg := registry.Default()
	served := res.Resources[:0]
	for _, o := range res.Resources {
		if _, ok := reg.Lookup(o.Group(), o.Version(), o.Kind); ok {
			served = append(served, o)
		} else {
			s.Unserved = append(s.Unserved, o)
		}
	}
	res.Resources = served
	s.Fixups = HarnessFixups(res, reg)
	return s
}

// Graph resolves the samples with the recordings' subscription.
func (s *Samples) Graph() (*graph.Graph, error) {
	g, diags := graph.Build(s.Result, graph.Options{Subscription: Subscription})
	return g, diags.Err()
}

func hasObject(res *loader.Result, kind, name string) bool {
	for _, o := range res.Resources {
		if o.Kind == kind && o.Name == name {
			return true
		}
	}
	return false
}

// HarnessFixups changes the loaded samples the way the operator's test harness
// does before creating them, returning a description of each change:
//   - every owner of kind ResourceGroup becomes the harness's resource group;
//   - an owner naming no object of its kind is bound to the only object of
//     that kind in the folder (the harness renames samples and their owners by kind);
//   - spec field names are matched case-insensitively, as Go's JSON decoding in
//     the harness does (the Kubernetes API server would not: azk reports them).
func HarnessFixups(res *loader.Result, reg *registry.Registry) []string {
	byKind := map[string][]*loader.Object{}
	for _, o := range res.Resources {
		byKind[o.Group()+"/"+o.Kind] = append(byKind[o.Group()+"/"+o.Kind], o)
	}
	var fixups []string
	for _, o := range res.Resources {
		k, ok := reg.Lookup(o.Group(), o.Version(), o.Kind)
		if !ok {
			continue
		}
		spec := o.Node.Field("spec")
		if spec == nil {
			continue
		}
		fixups = append(fixups, fixCase(o, k.Spec, spec.Value.YNode(), "spec")...)
		owner := yamlnode.Value(spec.Value.YNode(), "owner")
		name := yamlnode.Value(owner, "name")
		if name == nil || yamlnode.Value(owner, "armId") != nil {
			continue
		}
		group, kind := yamlnode.String(owner, "group"), yamlnode.String(owner, "kind")
		if kind == "" && len(k.Owners) == 1 {
			group, kind = k.Owners[0].Group, k.Owners[0].Kind
		}
		if kind == "ResourceGroup" {
			if name.Value != SampleResourceGroup {
				fixups = append(fixups, o.Address()+": owner ResourceGroup "+name.Value+" -> "+SampleResourceGroup)
				name.Value = SampleResourceGroup
			}
			continue
		}
		candidates := byKind[group+"/"+kind]
		if len(candidates) == 1 && candidates[0].Name != name.Value && !namedIn(candidates, name.Value) {
			fixups = append(fixups, o.Address()+": owner "+kind+" "+name.Value+" -> "+candidates[0].Name)
			name.Value = candidates[0].Name
		}
	}
	sort.Strings(fixups)
	return fixups
}

func namedIn(objs []*loader.Object, name string) bool {
	for _, o := range objs {
		if o.Name == name {
			return true
		}
	}
	return false
}

// fixCase renames keys that match a schema field only case-insensitively.
func fixCase(o *loader.Object, f *registry.Field, n *yaml.Node, path string) []string {
	if f == nil || n == nil {
		return nil
	}
	var fixups []string
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			child := f.Child(key.Value)
			if child == nil && f.Type != registry.TypeMap {
				for _, c := range f.Fields {
					if strings.EqualFold(c.Name, key.Value) {
						fixups = append(fixups, o.Address()+": "+path+"."+key.Value+" -> "+c.Name)
						key.Value = c.Name
						child = c
						break
					}
				}
			}
			if f.Type == registry.TypeMap {
				child = f.Values
			}
			fixups = append(fixups, fixCase(o, child, n.Content[i+1], path+"."+key.Value)...)
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			fixups = append(fixups, fixCase(o, f.Items, item, path+"[]")...)
		}
	}
	return fixups
}
