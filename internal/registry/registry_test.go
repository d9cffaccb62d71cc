package registry_test

import (
	"bytes"
	"encoding/json"
	"github.com/azkcli/azk/internal/corpus"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/registry/internal/corpusgen"
)

// servedKinds lists, straight from the CRDs, every served version that is
// not an internal storage version.
func servedKinds(t *testing.T, corpus string) []registry.GVK {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpus, "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []registry.GVK
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Group string `yaml:"group"`
				Names struct {
					Kind string `yaml:"kind"`
				} `yaml:"names"`
				Versions []struct {
					Name   string `yaml:"name"`
					Served bool   `yaml:"served"`
				} `yaml:"versions"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range crd.Spec.Versions {
			if v.Served && !strings.HasSuffix(v.Name, "storage") {
				out = append(out, registry.GVK{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind})
			}
		}
	}
	return out
}

func TestEveryServedKindIsRegistered(t *testing.T) {
	want := servedKinds(t, corpus.Dir(t))
	got := registry.Default().All()
	t.Logf("CRDs serve %d non-storage group/version/kinds; registry has %d", len(want), len(got))
	if len(got) != len(want) {
		t.Errorf("registry has %d kinds, CRDs serve %d", len(got), len(want))
	}
	for _, g := range want {
		if _, ok := registry.Default().Lookup(g.Group, g.Version, g.Kind); !ok {
			t.Errorf("%s/%s %s served by the CRDs is not in the registry", g.Group, g.Version, g.Kind)
		}
	}
}

// TestNoDeleteFollowsSupportedOperations: every kind the operator's list of
// supported operations gives no delete is served with Kind.NoDelete, and
// no other kind has it. A row naming a kind the registry does not serve
// fails only when the CRDs serve it (the list may name kinds the CRDs no
// longer serve).
func TestNoDeleteFollowsSupportedOperations(t *testing.T) {
	dir := corpus.Dir(t)
	data, err := os.ReadFile(filepath.Join(dir, "operator", "supported-operations.tsv"))
	if os.IsNotExist(err) {
		t.Skip("no operator/supported-operations.tsv in the corpus: skipping")
	}
	if err != nil {
		t.Fatal(err)
	}
	served := map[registry.GVK]bool{}
	for _, g := range servedKinds(t, dir) {
		served[g] = true
	}
	r := registry.Default()
	listed := map[registry.GVK]bool{} // rows without delete
	for _, line := range strings.Split(string(data), "\n") {
		cols := strings.Fields(line)
		if len(cols) != 4 || strings.HasPrefix(cols[0], "#") || slices.Contains(strings.Split(cols[3], ","), "delete") {
			continue
		}
		gvk := registry.GVK{Group: cols[0], Version: cols[1], Kind: cols[2]}
		listed[gvk] = true
		k, ok := r.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		switch {
		case ok && !k.NoDelete:
			t.Errorf("%s/%s %s: the operator cannot delete it, but NoDelete is not set", gvk.Group, gvk.Version, gvk.Kind)
		case !ok && served[gvk]:
			t.Errorf("%s/%s %s: served by the CRDs, not in the registry", gvk.Group, gvk.Version, gvk.Kind)
		case !ok:
			t.Logf("%s/%s %s: not served by the CRDs", gvk.Group, gvk.Version, gvk.Kind)
		}
	}
	if len(listed) == 0 {
		t.Fatal("no kind without delete in supported-operations.tsv")
	}
	for _, g := range r.All() {
		if k, _ := r.Lookup(g.Group, g.Version, g.Kind); k.NoDelete && !listed[g] {
			t.Errorf("%s/%s %s: NoDelete set, but the operator's list gives it delete or leaves it out", g.Group, g.Version, g.Kind)
		}
	}
}

func TestRegenerationIsByteIdentical(t *testing.T) {
	dir := corpus.Dir(t)
	armTypes := corpusgen.ARMTypesDir(dir)
	if _, err := os.Stat(armTypes); err != nil {
		t.Skipf("REST specification types not found at %s: skipping", armTypes)
	}
	// The generator runs as go generate runs it, a program of its own: in
	// this test binary, under -race, it took minutes, and corpusgen's own
	// tests run its code under the race detector already.
	out := t.TempDir()
	gen := exec.CommandContext(t.Context(), "go", "run", "./gen", "--corpus", dir, "--arm-types", armTypes, "--out", out)
	if output, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, output)
	}
	committed := readTree(t, "data")
	regenerated := readTree(t, out)
	for name, want := range committed {
		got, ok := regenerated[name]
		switch {
		case !ok:
			t.Errorf("%s is committed but no longer generated", name)
		case !bytes.Equal(got, want):
			t.Errorf("%s differs from a fresh generation: run go generate ./internal/registry", name)
		}
	}
	for name := range regenerated {
		if _, ok := committed[name]; !ok {
			t.Errorf("%s is generated but not committed", name)
		}
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func lookup(t *testing.T, group, version, kind string) *registry.Kind {
	t.Helper()
	k, ok := registry.Default().Lookup(group, version, kind)
	if !ok {
		t.Fatalf("%s/%s %s not in the registry", group, version, kind)
	}
	return k
}

// fieldAt follows JSON names from the spec or status root; "[]" steps into
// array items and "{}" into map values.
func fieldAt(t *testing.T, root *registry.Field, path ...string) *registry.Field {
	t.Helper()
	f := root
	for _, name := range path {
		switch name {
		case "[]":
			f = f.Items
		case "{}":
			f = f.Values
		default:
			f = f.Child(name)
		}
		if f == nil {
			t.Fatalf("no field %v (stopped at %q)", path, name)
		}
	}
	return f
}

// The expected values below are read off the corpus: the CRD's "ARM URI" line,
// the APIVersion enum and Owner line of structure.txt, and the ARM trees.
func TestSpotChecks(t *testing.T) {
	t.Run("subnet type, api-version and owner", func(t *testing.T) {
		k := lookup(t, "network.azure.com", "v1api20201101", "VirtualNetworksSubnet")
		if k.ARMType != "Microsoft.Network/virtualNetworks/subnets" || k.APIVersion != "2020-11-01" || k.Scope != registry.ScopeResourceGroup {
			t.Errorf("got type %q api-version %q scope %q", k.ARMType, k.APIVersion, k.Scope)
		}
		if want := []registry.GroupKind{{Group: "network.azure.com", Kind: "VirtualNetwork"}}; !slices.Equal(k.Owners, want) {
			t.Errorf("owners %v, want %v", k.Owners, want)
		}
	})
	t.Run("resource group is subscription scoped", func(t *testing.T) {
		k := lookup(t, "resources.azure.com", "v1api20200601", "ResourceGroup")
		if k.ARMType != "Microsoft.Resources/resourceGroups" || k.Scope != registry.ScopeSubscription || len(k.Owners) != 0 {
			t.Errorf("got type %q scope %q owners %v", k.ARMType, k.Scope, k.Owners)
		}
	})
	t.Run("blob services have the fixed name default", func(t *testing.T) {
		k := lookup(t, "storage.azure.com", "v1api20230101", "StorageAccountsBlobService")
		if k.FixedName != "default" || k.ARMType != "Microsoft.Storage/storageAccounts/blobServices" {
			t.Errorf("got fixed name %q type %q", k.FixedName, k.ARMType)
		}
		if k := lookup(t, "network.azure.com", "v1api20201101", "VirtualNetwork"); k.FixedName != "" {
			t.Errorf("virtual networks have user-chosen names, got fixed name %q", k.FixedName)
		}
	})
	t.Run("role assignment is an extension owned by anything", func(t *testing.T) {
		k := lookup(t, "authorization.azure.com", "v1api20220401", "RoleAssignment")
		if k.Scope != registry.ScopeExtension || len(k.Owners) != 0 || k.ARMType != "Microsoft.Authorization/roleAssignments" {
			t.Errorf("got scope %q owners %v type %q", k.Scope, k.Owners, k.ARMType)
		}
		if f := fieldAt(t, k.Spec, "owner"); f.Ref != registry.RefOwner || f.ARM != nil {
			t.Errorf("spec.owner: ref %q arm %v", f.Ref, f.ARM)
		}
		if f := fieldAt(t, k.Spec, "principalIdFromConfig"); f.Ref != registry.RefConfigMap || !slices.Equal(f.ARM, []string{"properties", "principalId"}) {
			t.Errorf("spec.principalIdFromConfig: ref %q arm %v", f.Ref, f.ARM)
		}
		if f := fieldAt(t, k.Spec, "roleDefinitionReference"); f.Ref != registry.RefWellKnown || !slices.Equal(f.ARM, []string{"properties", "roleDefinitionId"}) {
			t.Errorf("spec.roleDefinitionReference: ref %q arm %v", f.Ref, f.ARM)
		}
	})
	t.Run("subscription alias is tenant scoped", func(t *testing.T) {
		k := lookup(t, "subscription.azure.com", "v1api20211001", "Alias")
		if k.Scope != registry.ScopeTenant || k.ARMType != "Microsoft.Subscription/aliases" || k.APIVersion != "2021-10-01" {
			t.Errorf("got scope %q type %q api-version %q", k.Scope, k.ARMType, k.APIVersion)
		}
	})
	t.Run("NIC subnet reference", func(t *testing.T) {
		k := lookup(t, "network.azure.com", "v1api20201101", "NetworkInterface")
		ipc := fieldAt(t, k.Spec, "ipConfigurations")
		if !slices.Equal(ipc.ARM, []string{"properties", "ipConfigurations"}) {
			t.Errorf("ipConfigurations arm %v", ipc.ARM)
		}
		subnet := fieldAt(t, ipc, "[]", "subnet")
		if !slices.Equal(subnet.ARM, []string{"properties", "subnet"}) {
			t.Errorf("ipConfigurations[].subnet arm %v", subnet.ARM)
		}
		if ref := fieldAt(t, subnet, "reference"); ref.Ref != registry.RefResource || !slices.Equal(ref.ARM, []string{"id"}) {
			t.Errorf("subnet.reference: ref %q arm %v", ref.Ref, ref.ARM)
		}
		for _, name := range []string{"owner", "azureName", "operatorSpec"} {
			if f := k.Spec.Child(name); f == nil || f.ARM != nil {
				t.Errorf("spec.%s must exist and never reach ARM, got %+v", name, f)
			}
		}
		if f := fieldAt(t, k.Spec, "location"); !slices.Equal(f.ARM, []string{"location"}) {
			t.Errorf("location arm %v", f.ARM)
		}
	})
	t.Run("managed cluster agent pool subnet", func(t *testing.T) {
		k := lookup(t, "containerservice.azure.com", "v1api20240901", "ManagedCluster")
		f := fieldAt(t, k.Spec, "agentPoolProfiles", "[]", "vnetSubnetReference")
		if f.Ref != registry.RefResource || !slices.Equal(f.ARM, []string{"vnetSubnetID"}) {
			t.Errorf("agentPoolProfiles[].vnetSubnetReference: ref %q arm %v", f.Ref, f.ARM)
		}
		if f := fieldAt(t, k.Spec, "agentPoolProfiles"); !slices.Equal(f.ARM, []string{"properties", "agentPoolProfiles"}) {
			t.Errorf("agentPoolProfiles arm %v", f.ARM)
		}
	})
	t.Run("user-assigned identities are keyed by reference", func(t *testing.T) {
		k := lookup(t, "containerservice.azure.com", "v1api20240901", "ManagedCluster")
		f := fieldAt(t, k.Spec, "identity", "userAssignedIdentities")
		if !f.KeyedByRef || !slices.Equal(f.ARM, []string{"userAssignedIdentities"}) || f.Type != registry.TypeArray {
			t.Errorf("identity.userAssignedIdentities: keyed %v arm %v type %q", f.KeyedByRef, f.ARM, f.Type)
		}
		if ref := fieldAt(t, f, "[]", "reference"); ref.Ref != registry.RefResource {
			t.Errorf("identity.userAssignedIdentities[].reference ref %q", ref.Ref)
		}
		if f := fieldAt(t, k.Spec, "identity"); !slices.Equal(f.ARM, []string{"identity"}) {
			t.Errorf("identity arm %v", f.ARM)
		}
	})
	t.Run("VM admin password is a secret", func(t *testing.T) {
		k := lookup(t, "compute.azure.com", "v1api20220301", "VirtualMachine")
		f := fieldAt(t, k.Spec, "osProfile", "adminPassword")
		if f.Ref != registry.RefSecret || !slices.Equal(f.ARM, []string{"adminPassword"}) {
			t.Errorf("osProfile.adminPassword: ref %q arm %v", f.Ref, f.ARM)
		}
		if f := fieldAt(t, k.Spec, "osProfile"); !slices.Equal(f.ARM, []string{"properties", "osProfile"}) {
			t.Errorf("osProfile arm %v", f.ARM)
		}
	})
	t.Run("firewall policy rule collection one-of", func(t *testing.T) {
		k := lookup(t, "network.azure.com", "v1api20240301", "FirewallPoliciesRuleCollectionGroup")
		rc := fieldAt(t, k.Spec, "ruleCollections")
		if !slices.Equal(rc.ARM, []string{"properties", "ruleCollections"}) {
			t.Errorf("ruleCollections arm %v", rc.ARM)
		}
		item := fieldAt(t, rc, "[]")
		if !item.OneOf {
			t.Fatal("ruleCollections[] is not marked one-of")
		}
		filter := fieldAt(t, item, "firewallPolicyFilterRuleCollection")
		if filter.ARM == nil || len(filter.ARM) != 0 {
			t.Errorf("one-of alternative arm %#v, want empty non-nil", filter.ARM)
		}
		disc := fieldAt(t, filter, "ruleCollectionType")
		if !slices.Equal(disc.Enum, []string{"FirewallPolicyFilterRuleCollection"}) || !slices.Equal(disc.ARM, []string{"ruleCollectionType"}) {
			t.Errorf("discriminator enum %v arm %v", disc.Enum, disc.ARM)
		}
		if p := fieldAt(t, filter, "priority"); p.Minimum == nil || *p.Minimum != 100 || p.Maximum == nil || *p.Maximum != 65000 {
			t.Errorf("priority range %v..%v, want 100..65000", p.Minimum, p.Maximum)
		}
	})
	t.Run("user-assigned identity principal id status", func(t *testing.T) {
		k := lookup(t, "managedidentity.azure.com", "v1api20230131", "UserAssignedIdentity")
		if f := fieldAt(t, k.Status, "principalId"); !slices.Equal(f.ARM, []string{"properties", "principalId"}) {
			t.Errorf("status.principalId arm %v", f.ARM)
		}
		if f := fieldAt(t, k.Spec, "operatorSpec", "configMaps", "principalId"); f.Ref != registry.RefConfigMapExport {
			t.Errorf("operatorSpec.configMaps.principalId ref %q", f.Ref)
		}
	})
	t.Run("kinds that are not ARM resources", func(t *testing.T) {
		k := lookup(t, "entra.azure.com", "v1", "SecurityGroup")
		if k.IsARM() || k.Spec == nil {
			t.Errorf("SecurityGroup: IsARM %v, spec %v", k.IsARM(), k.Spec != nil)
		}
	})
}

func TestVersionsAreOrderedOldestFirst(t *testing.T) {
	got := registry.Default().Versions("authorization.azure.com", "RoleAssignment")
	want := []string{"v1api20200801preview", "v20200801preview", "v1api20220401", "v20220401"}
	if !slices.Equal(got, want) {
		t.Errorf("Versions = %v, want %v", got, want)
	}
	if got := registry.Default().Versions("network.azure.com", "NoSuchKind"); got != nil {
		t.Errorf("Versions of an unknown kind = %v, want nil", got)
	}
	if _, ok := registry.Default().Lookup("network.azure.com", "v1api20201101", "NoSuchKind"); ok {
		t.Error("Lookup of an unknown kind succeeded")
	}
}

// TestSpecFieldInvariants walks every spec field of every kind: fields that
// reach ARM have a path (empty only for one-of alternatives, at the root
// those the operator's configuration embeds in the resource), operator-only
// fields have none.
func TestSpecFieldInvariants(t *testing.T) {
	r := registry.Default()
	var missing []string
	for _, gvk := range r.All() {
		k, _ := r.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if k.Spec == nil {
			t.Errorf("%v: no spec schema", gvk)
			continue
		}
		for _, f := range k.Spec.Fields {
			where := gvk.Group + "/" + gvk.Version + "/" + gvk.Kind + " spec." + f.Name
			operatorOnly := f.Name == "owner" || f.Name == "azureName" || f.Name == "operatorSpec" || f.Name == "azureNameFromConfig"
			switch {
			case operatorOnly && f.ARM != nil:
				t.Errorf("%s: operator-only field has ARM path %v", where, f.ARM)
			case operatorOnly:
			case !k.IsARM():
				if f.ARM != nil {
					t.Errorf("%s: non-ARM kind has ARM path %v", where, f.ARM)
				}
			default:
				rootOneOf := k.Operator != nil && slices.Contains(k.Operator.RootOneOf, f.Name)
				walkARMFields(t, f, rootOneOf, where, &missing)
			}
		}
	}
	t.Logf("%d spec fields reaching ARM have no ARM pairing", len(missing))
	for _, m := range missing {
		t.Error("no ARM path:", m)
	}
}

func walkARMFields(t *testing.T, f *registry.Field, inOneOf bool, where string, missing *[]string) {
	switch {
	case f.ARM == nil:
		*missing = append(*missing, where)
		return
	case len(f.ARM) == 0 && !inOneOf:
		t.Errorf("%s: empty ARM path outside a one-of", where)
	case len(f.ARM) > 0 && inOneOf:
		t.Errorf("%s: one-of alternative has ARM path %v", where, f.ARM)
	}
	for _, s := range f.ARM {
		if s == "" {
			t.Errorf("%s: empty segment in ARM path %v", where, f.ARM)
		}
	}
	if f.Ref != "" || f.KeyedByRef {
		return // resolved to one ARM value
	}
	children(f, where, func(c *registry.Field, oneOf bool, cwhere string) {
		walkARMFields(t, c, oneOf, cwhere, missing)
	})
}

// children calls fn for each named field below f, through array items and map values.
func children(f *registry.Field, where string, fn func(c *registry.Field, oneOf bool, where string)) {
	for f.Items != nil || f.Values != nil {
		if f.Items != nil {
			f, where = f.Items, where+"[]"
		} else {
			f, where = f.Values, where+"{}"
		}
		if f.Ref != "" {
			return
		}
	}
	for _, c := range f.Fields {
		fn(c, f.OneOf, where+"."+c.Name)
	}
}

// armShape is the set of ARM body paths a kind's spec can produce: paths are
// JSON keys joined by "/", with "[]" for array elements and "{}" for map keys.
type armShape struct {
	known map[string]bool // every path a value may sit at
	open  map[string]bool // paths whose whole subtree is free-form (references, any, secret maps)
	// armType is the type the body is sent for. The operator copies live child
	// resources (a virtual network's subnets, each with "type" <armType>/subnets)
	// into the body so the PUT does not delete them; those are not spec fields.
	armType string
}

func (s *armShape) addSpec(f *registry.Field, at string) {
	for _, c := range f.Fields {
		if c.ARM == nil {
			continue
		}
		p := at
		for _, seg := range c.ARM {
			p += "/" + seg
			s.known[p] = true
		}
		s.addValue(c, p)
	}
}

func (s *armShape) addValue(f *registry.Field, p string) {
	s.known[p] = true
	switch {
	case f.Ref != "" || f.KeyedByRef || f.Type == registry.TypeAny:
		s.open[p] = true
	case f.Items != nil:
		s.addValue(f.Items, p+"/[]")
	case f.Values != nil:
		s.addValue(f.Values, p+"/{}")
	default:
		s.addSpec(f, p)
	}
}

// explain returns the paths of body that the shape does not account for.
func (s *armShape) explain(v any, p string, out *[]string) {
	if s.open[p] {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		if !s.known[p] && p != "" {
			*out = append(*out, p)
			return
		}
		for key, c := range v {
			cp := p + "/" + key
			if s.known[p+"/{}"] {
				cp = p + "/{}"
			}
			s.explain(c, cp, out)
		}
	case []any:
		for _, c := range v {
			if child, ok := c.(map[string]any); ok {
				if typ, _ := child["type"].(string); strings.HasPrefix(strings.ToLower(typ), strings.ToLower(s.armType)+"/") {
					continue
				}
			}
			s.explain(c, p+"/[]", out)
		}
	default:
		if !s.known[p] {
			*out = append(*out, p)
		}
	}
}

// TestRecordedPutBodiesFitTheSpecPaths checks the ARM paths against reality:
// every key of every PUT body the operator recorded must be a place some spec
// field of the matching kind (ARM type and api-version) lands in.
func TestRecordedPutBodiesFitTheSpecPaths(t *testing.T) {
	dir := corpus.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "recordings", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := registry.Default()
	byType := map[string][]*registry.Kind{}
	for _, g := range r.All() {
		k, _ := r.Lookup(g.Group, g.Version, g.Kind)
		if k.IsARM() {
			key := strings.ToLower(k.ARMType) + "@" + k.APIVersion
			byType[key] = append(byType[key], k)
		}
	}
	checked, unmatched := 0, map[string]bool{}
	for _, file := range files {
		rec, err := corpus.ReadRecording(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, in := range rec.Interactions {
			if in.Request.Method != "PUT" || in.Request.Body == "" {
				continue
			}
			u, err := url.Parse(in.Request.URL)
			if err != nil {
				t.Fatalf("%s: interaction %d: %v", file, i, err)
			}
			armType := armTypeOf(u.Path)
			key := strings.ToLower(armType) + "@" + u.Query().Get("api-version")
			kinds := byType[key]
			if len(kinds) == 0 {
				unmatched[key] = true // recorded with an operator version whose kind the CRDs no longer serve
				continue
			}
			shape := &armShape{known: map[string]bool{}, open: map[string]bool{}, armType: armType}
			for _, k := range kinds {
				shape.addSpec(k.Spec, "")
			}
			var body map[string]any
			if err := json.Unmarshal([]byte(in.Request.Body), &body); err != nil {
				t.Fatalf("%s: interaction %d: %v", file, i, err)
			}
			delete(body, "name") // from azureName or metadata.name, not a spec field's ARM path
			var extra []string
			shape.explain(body, "", &extra)
			sort.Strings(extra)
			for _, p := range extra {
				t.Errorf("%s: interaction %d (%s): body path %s is not the ARM path of any spec field", filepath.Base(file), i, key, p)
			}
			checked++
		}
	}
	t.Logf("checked %d recorded PUT bodies; %d type/api-version pairs recorded are not served", checked, len(unmatched))
	if checked == 0 {
		t.Error("no recorded PUT matched a registry kind")
	}
}

// armTypeOf turns an ARM URL path into its resource type, e.g.
// /subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s
// -> Microsoft.Network/virtualNetworks/subnets.
func armTypeOf(path string) string {
	i := strings.LastIndex(path, "/providers/")
	if i < 0 {
		return "Microsoft.Resources/resourceGroups"
	}
	segs := strings.Split(path[i+len("/providers/"):], "/")
	types := []string{segs[0]}
	for j := 1; j < len(segs); j += 2 {
		types = append(types, segs[j])
	}
	return strings.Join(types, "/")
}
