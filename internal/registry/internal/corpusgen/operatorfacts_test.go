package corpusgen

import (
	"slices"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

// TestOperatorConfigPlaced: every fact of the operator's configuration that
// belongs to a kind names a field of that kind.
func TestOperatorConfigPlaced(t *testing.T) {
	for _, u := range built(t).OperatorUnplaced {
		t.Error(u)
	}
}

func builtKind(t *testing.T, group, version, kind string) *registry.Kind {
	t.Helper()
	for _, k := range built(t).Kinds {
		if k.Group == group && k.Version == version && k.Kind == kind {
			return k
		}
	}
	t.Fatalf("%s/%s/%s not built", group, version, kind)
	return nil
}

// TestOperatorConfigFacts checks facts read off the operator's configuration
// (operator/config/<group>.yaml) for kinds the issue names.
func TestOperatorConfigFacts(t *testing.T) {
	exports := []struct {
		group, version, kind, name string
		status                     []string
	}{
		{"containerservice.azure.com", "v1api20240901", "ManagedCluster", "oidcIssuerProfile", []string{"oidcIssuerProfile", "issuerURL"}},
		{"containerservice.azure.com", "v1api20240901", "ManagedCluster", "principalId", []string{"identity", "principalId"}},
		{"network.azure.com", "v1api20220401", "TrafficManagerProfile", "dnsConfigFqdn", []string{"dnsConfig", "fqdn"}},
		{"app.azure.com", "v1api20240301", "ContainerApp", "fqdn", []string{"latestRevisionFqdn"}},
		{"kusto.azure.com", "v1api20240413", "Cluster", "clusterPrincipalId", []string{"identity", "principalId"}},
		{"kusto.azure.com", "v1api20240413", "Cluster", "clusterTenantId", []string{"identity", "tenantId"}},
		{"managedidentity.azure.com", "v1api20230131", "UserAssignedIdentity", "clientId", []string{"clientId"}},
		{"storage.azure.com", "v1api20230101", "StorageAccount", "blobEndpoint", []string{"primaryEndpoints", "blob"}},
	}
	for _, e := range exports {
		k := builtKind(t, e.group, e.version, e.kind)
		got := k.ConfigMapExport(e.name)
		if got == nil || !slices.Equal(got.Status, e.status) {
			t.Errorf("%s/%s: export %s = %+v, want status %v", e.version, e.kind, e.name, got, e.status)
		}
	}
	if k := builtKind(t, "storage.azure.com", "v1api20230101", "StorageAccount"); k.Operator == nil || !slices.Contains(k.Operator.Secrets, "key1") {
		t.Errorf("StorageAccount secrets = %+v, want key1 among them", k.Operator)
	}
	if k := builtKind(t, "network.azure.com", "v1api20220701", "PrivateEndpoint"); k.Operator == nil || !slices.Contains(k.Operator.ManualConfigMaps, "primaryNicPrivateIpAddress") {
		t.Errorf("PrivateEndpoint manual config maps = %+v", k.Operator)
	}
	if k := builtKind(t, "authorization.azure.com", "v1api20220401", "RoleAssignment"); k.Operator == nil || !k.Operator.NoDefaultAzureName {
		t.Errorf("RoleAssignment: the operator does not default its azureName, got %+v", k.Operator)
	}
	db := builtKind(t, "kusto.azure.com", "v1api20240413", "Database")
	if db.Operator == nil || !slices.Equal(db.Operator.RootOneOf, []string{"readWriteDatabase"}) {
		t.Errorf("kusto Database root one-of = %+v", db.Operator)
	}
	if f := db.Spec.Child("readWriteDatabase"); f == nil || f.ARM == nil || len(f.ARM) != 0 {
		t.Errorf("kusto Database readWriteDatabase must stand inline at the body root, got %+v", f)
	}
	if fw := builtKind(t, "network.azure.com", "v20250301", "AzureFirewall"); fw.Operator != nil && len(fw.Operator.RootOneOf) > 0 {
		t.Errorf("AzureFirewall: an embedded IP configuration is not a one-of, got %v", fw.Operator.RootOneOf)
	}
	pool := builtKind(t, "containerservice.azure.com", "v1api20240901", "ManagedClustersAgentPool")
	if want := []string{"properties.nodeLabels", "properties.nodeTaints", "properties.tags"}; !pool.NullCollections || !slices.Equal(pool.EmptyCollections, want) {
		t.Errorf("agent pool collections: null %v, empty %v, want %v", pool.NullCollections, pool.EmptyCollections, want)
	}
}
