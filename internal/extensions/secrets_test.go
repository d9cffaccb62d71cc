package extensions_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/registry"
)

// noSecretExporter are the ARM types whose kinds the operator's
// configuration gives operatorSpec.secrets but azk does not fetch: the
// fleet's has no exporter in the operator either, and the HCP cluster's
// asks Azure for a new credential (requestAdminCredential), a write.
var noSecretExporter = map[string]bool{
	"microsoft.containerservice/fleets":              true,
	"microsoft.redhatopenshift/hcpopenshiftclusters": true,
}

// TestSecretExportersMatchTheOperatorConfig: every kind the operator's
// configuration gives secrets ($azureGeneratedSecrets) has an exporter that
// writes each of them, reads only status paths the kind has, and calls only
// actions the REST specifications define on the type.
func TestSecretExportersMatchTheOperatorConfig(t *testing.T) {
	reg := registry.Default()
	names := map[string]map[string]bool{} // lower-cased ARM type -> every version's secrets
	for _, gvk := range reg.All() {
		k, _ := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if k.Operator == nil || len(k.Operator.Secrets) == 0 {
			continue
		}
		lt := strings.ToLower(k.ARMType)
		if noSecretExporter[lt] {
			continue
		}
		if names[lt] == nil {
			names[lt] = map[string]bool{}
		}
		have := extensions.SecretNames(k.ARMType)
		for _, s := range k.Operator.Secrets {
			names[lt][s] = true
			if !slices.Contains(have, s) {
				t.Errorf("%s %s: the exporter of %s does not write secret %s", gvk.APIVersion(), gvk.Kind, k.ARMType, s)
			}
		}
		for name, path := range extensions.SecretStatusPaths(k.ARMType) {
			if !slices.Contains(k.Operator.Secrets, name) {
				continue
			}
			f := k.Status
			for _, step := range path {
				f = f.Child(step)
			}
			if f == nil {
				t.Errorf("%s %s: secret %s reads status.%s, which the kind does not have", gvk.APIVersion(), gvk.Kind, name, strings.Join(path, "."))
			}
		}
		at, ok := reg.ARMType(k.ARMType)
		if !ok {
			t.Errorf("%s: no REST facts", k.ARMType)
			continue
		}
		for _, action := range extensions.SecretExporterFor(k.ARMType).SecretReads(k.Operator.Secrets) {
			typ, name := k.ARMType, action
			if i := strings.LastIndexByte(action, '/'); i >= 0 {
				// A child's action: {id}/authorizationRules/{rule}/listKeys.
				segs := strings.Split(action, "/")
				typ, name = typ+"/"+segs[0], segs[len(segs)-1]
				if at, ok = reg.ARMType(typ); !ok {
					t.Errorf("%s: action %s is on %s, which has no REST facts", k.ARMType, action, typ)
					continue
				}
			}
			if !slices.ContainsFunc(at.Actions, func(a registry.Action) bool { return strings.EqualFold(a.Name, name) }) {
				t.Errorf("%s: the REST specifications define no action %s on %s", k.ARMType, name, typ)
			}
			if !extensions.IsSecretRead(k.ARMType, action) {
				t.Errorf("%s: %s is not reported as a secret read", k.ARMType, action)
			}
		}
	}
	for lt, all := range names {
		for _, name := range extensions.SecretNames(lt) {
			if !all[name] {
				t.Errorf("%s: the exporter writes %s, which no version of its kinds has", lt, name)
			}
		}
	}
	if len(names) < 25 {
		t.Errorf("only %d ARM types export secrets", len(names))
	}
}

func TestFetchSecrets(t *testing.T) {
	id := "/subscriptions/sub1/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa"
	var posted []string
	post := func(path string) (map[string]any, error) {
		posted = append(posted, path)
		return map[string]any{"keys": []any{
			map[string]any{"keyName": "key2", "value": "second"},
			map[string]any{"keyName": "key1", "value": "first"},
		}}, nil
	}
	status := map[string]any{"primaryEndpoints": map[string]any{"blob": "https://sa.blob.core.windows.net/"}}

	values, raw, err := extensions.FetchSecrets("Microsoft.Storage/storageAccounts",
		extensions.SecretInputs{ID: id, Requested: []string{"blobEndpoint"}, Status: status}, post)
	if err != nil {
		t.Fatal(err)
	}
	if len(posted) != 0 || values["blobEndpoint"] != "https://sa.blob.core.windows.net/" || len(raw) != 0 {
		t.Errorf("endpoints only: posted %v, values %v, raw %v", posted, values, raw)
	}

	values, raw, err = extensions.FetchSecrets("Microsoft.Storage/storageAccounts",
		extensions.SecretInputs{ID: id, Requested: []string{"key1"}, Status: status}, post)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(posted, []string{id + "/listKeys"}) || values["key1"] != "first" || values["key2"] != "second" || raw["key1"] != "first" || raw["blobEndpoint"] != "" {
		t.Errorf("key1: posted %v, values %v, raw %v", posted, values, raw)
	}

	empty := func(string) (map[string]any, error) { return map[string]any{"keys": []any{}}, nil }
	if _, _, err := extensions.FetchSecrets("Microsoft.Storage/storageAccounts",
		extensions.SecretInputs{ID: id, Requested: []string{"key1"}}, empty); err == nil || !strings.Contains(err.Error(), "key1") {
		t.Errorf("a key Azure does not give: %v", err)
	}
}

func TestSecretExporterQuirks(t *testing.T) {
	id := "/subscriptions/sub1/resourceGroups/rg/providers/Microsoft.Search/searchServices/s"
	answers := map[string]map[string]any{
		id + "/listAdminKeys": {"primaryKey": "p", "secondaryKey": "s"},
		id + "/listQueryKeys": {"value": []any{map[string]any{"name": "app", "key": "q1"}, map[string]any{"name": nil, "key": "q0"}}},
	}
	post := func(path string) (map[string]any, error) { return answers[path], nil }
	values, raw, err := extensions.FetchSecrets("Microsoft.Search/searchServices",
		extensions.SecretInputs{ID: id, Requested: []string{"queryKey", "adminSecondaryKey"}}, post)
	if err != nil {
		t.Fatal(err)
	}
	// The operator writes the secondary key, hands expressions the primary
	// one under its name, and never hands them the query key.
	if values["queryKey"] != "q0" || values["adminSecondaryKey"] != "s" || raw["adminSecondaryKey"] != "p" || raw["queryKey"] != "" {
		t.Errorf("values %v, raw %v", values, raw)
	}

	uai := "/subscriptions/sub1/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id"
	values, raw, err = extensions.FetchSecrets("Microsoft.ManagedIdentity/userAssignedIdentities",
		extensions.SecretInputs{ID: uai, Requested: []string{"subscriptionId", "clientId"}, Status: map[string]any{"clientId": "c"}}, nil)
	if err != nil || values["subscriptionId"] != "sub1" || values["clientId"] != "c" || len(raw) != 0 {
		t.Errorf("identity: %v %v %v", values, raw, err)
	}

	mc := "/subscriptions/sub1/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c"
	post = func(path string) (map[string]any, error) {
		return map[string]any{"kubeconfigs": []any{map[string]any{"name": "clusterAdmin", "value": "YXBpVmVyc2lvbjogdjE="}}}, nil
	}
	values, _, err = extensions.FetchSecrets("Microsoft.ContainerService/managedClusters",
		extensions.SecretInputs{ID: mc, Requested: []string{"adminCredentials"}}, post)
	if err != nil || values["adminCredentials"] != "apiVersion: v1" {
		t.Errorf("kubeconfig: %q %v", values["adminCredentials"], err)
	}
}

func TestSecretReadsOnlyWhatIsRequested(t *testing.T) {
	e := extensions.SecretExporterFor("microsoft.containerservice/MANAGEDCLUSTERS")
	if e == nil {
		t.Fatal("no exporter for managed clusters")
	}
	got := e.SecretReads([]string{"userCredentials"})
	sort.Strings(got)
	if !slices.Equal(got, []string{"listClusterUserCredential"}) {
		t.Errorf("reads %v", got)
	}
	if extensions.IsSecretRead("Microsoft.Storage/storageAccounts", "regenerateKey") || !extensions.IsSecretRead("Microsoft.Storage/storageAccounts", "listkeys") {
		t.Error("IsSecretRead must know storage's listKeys, and only it")
	}
}
