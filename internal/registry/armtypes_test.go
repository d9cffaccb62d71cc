package registry

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestARMTypeFacts checks the generated per-type facts against what the
// recordings and REST specs are known to show for a few types.
func TestARMTypeFacts(t *testing.T) {
	r := Default()
	sa, ok := r.ARMType("microsoft.storage/STORAGEACCOUNTS")
	if !ok {
		t.Fatal("no facts for storage accounts")
	}
	if !slices.Contains(sa.APIVersions, "2023-01-01") {
		t.Errorf("storage account api-versions: %v", sa.APIVersions)
	}
	if sa.Create == nil || sa.Create.Status != 202 || sa.Create.Async != "Location" {
		t.Errorf("storage account create answer: %+v (recordings show 202 with Location)", sa.Create)
	}
	if !slices.ContainsFunc(sa.Actions, func(a Action) bool { return a.Name == "listKeys" && a.Output != nil && a.Output.Fields["keys"] != nil }) {
		t.Errorf("storage account actions: %+v", sa.Actions)
	}
	if !slices.ContainsFunc(sa.Filled, func(f FilledValue) bool {
		return f.Path == "properties.primaryEndpoints.blob" && f.Value == "https://{name}.blob.core.windows.net/"
	}) {
		t.Errorf("storage account filled values lack the blob endpoint: %+v", sa.Filled)
	}
	nic, _ := r.ARMType("Microsoft.Network/networkInterfaces")
	if nic == nil || !slices.Contains(nic.SubResourceIDs, SubResourceID{Path: "properties.ipConfigurations", Segment: "ipConfigurations"}) {
		t.Errorf("network interface sub-resource IDs: %+v", nic)
	}
	// Storage accounts answer 202 and Retry-After 17, then 17 again while running.
	if tm := sa.CreateTiming; tm == nil || tm.Seconds != 34 || !slices.Equal(tm.RetryAfter, []int{17, 17}) || tm.Operations < 10 {
		t.Errorf("storage account create timing: %+v", tm)
	}
	if aks, _ := r.ARMType("Microsoft.ContainerService/managedClusters"); aks == nil || aks.CreateTiming == nil || aks.CreateTiming.Seconds < 120 || aks.CreateTiming.RetryAfter != nil {
		t.Errorf("AKS create timing (minutes, no Retry-After in the recordings): %+v", aks)
	}
	if d := r.OperationDuration("PUT", "microsoft.storage/storageaccounts"); d != 34*time.Second {
		t.Errorf("storage account PUT lasts %s, want the create's 34s", d)
	}
	if d := r.OperationDuration("DELETE", "Microsoft.Resources/resourceGroups"); d <= 0 {
		t.Errorf("resource group DELETE lasts %s; the recordings show its operation", d)
	}
	if d := r.Duration("Microsoft.Nothing/here", OpCreate); d != 0 {
		t.Errorf("unknown type lasts %s", d)
	}
	kinds := r.KindsOfARMType("Microsoft.Storage/storageAccounts")
	if len(kinds) == 0 || kinds[0].Kind != "StorageAccount" {
		t.Errorf("kinds of storage accounts: %v", kinds)
	}
	if _, ok := r.ARMType("Microsoft.Nothing/here"); ok {
		t.Error("facts for an unknown type")
	}
}

// TestChildTypes: the types directly below a storage account and its blob
// service, from the embedded table, with what deleting their parent needs.
func TestChildTypes(t *testing.T) {
	r := Default()
	segment := func(cs []ChildType, seg string) *ChildType {
		for i := range cs {
			if strings.EqualFold(cs[i].Segment, seg) {
				return &cs[i]
			}
		}
		t.Errorf("no child type %s among %+v", seg, cs)
		return &ChildType{}
	}
	sa := r.ChildTypes("microsoft.storage/STORAGEACCOUNTS")
	if !slices.IsSortedFunc(sa, func(a, b ChildType) int {
		return strings.Compare(strings.ToLower(a.Segment), strings.ToLower(b.Segment))
	}) {
		t.Errorf("child types not sorted by segment: %+v", sa)
	}
	seen := map[string]bool{}
	for _, c := range sa {
		if seen[strings.ToLower(c.Type)] {
			t.Errorf("%s listed twice", c.Type)
		}
		seen[strings.ToLower(c.Type)] = true
		if !strings.EqualFold(c.Type, "Microsoft.Storage/storageAccounts/"+c.Segment) || c.APIVersion == "" {
			t.Errorf("child type %+v", c)
		}
	}
	if blob := segment(sa, "blobServices"); !slices.Equal(blob.FixedNames, []string{"default"}) || blob.ReadOnly || blob.Type != "Microsoft.Storage/storageAccounts/blobServices" {
		t.Errorf("blob services: %+v", blob)
	}
	for _, seg := range []string{"fileServices", "queueServices", "tableServices"} {
		segment(sa, seg)
	}
	if usages := segment(r.ChildTypes("Microsoft.Storage/storageAccounts/fileServices"), "usages"); !usages.ReadOnly {
		t.Errorf("file service usages are not a read-only type: %+v", usages)
	}
	if c := segment(r.ChildTypes("Microsoft.Storage/storageAccounts/blobServices"), "containers"); c.APIVersion == "" || strings.Contains(c.APIVersion, "preview") || c.FixedNames != nil {
		t.Errorf("blob containers: %+v", c)
	}
	if cs := r.ChildTypes("Microsoft.Nothing/here"); cs != nil {
		t.Errorf("child types of an unknown type: %+v", cs)
	}
}

func TestListVersion(t *testing.T) {
	tests := []struct {
		versions []string
		want     string
	}{
		{[]string{"2021-04-01", "2023-01-01", "2024-01-01-preview"}, "2023-01-01"},
		{[]string{"2021-04-01-preview", "2022-01-01-beta"}, "2022-01-01-beta"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := listVersion(tt.versions); got != tt.want {
			t.Errorf("listVersion(%v) = %q, want %q", tt.versions, got, tt.want)
		}
	}
}

// TestNoDelete: kinds the operator cannot delete, and their ARM types.
func TestNoDelete(t *testing.T) {
	r := Default()
	for _, v := range r.Versions("storage.azure.com", "StorageAccountsBlobService") {
		if k, _ := r.Lookup("storage.azure.com", v, "StorageAccountsBlobService"); !k.NoDelete {
			t.Errorf("storage.azure.com/%s StorageAccountsBlobService: NoDelete not set", v)
		}
	}
	for _, v := range r.Versions("storage.azure.com", "StorageAccount") {
		if k, _ := r.Lookup("storage.azure.com", v, "StorageAccount"); k.NoDelete {
			t.Errorf("storage.azure.com/%s StorageAccount: NoDelete set", v)
		}
	}
	if pg, ok := r.ARMType("Microsoft.DBforPostgreSQL/flexibleServers/configurations"); !ok || !pg.NoDelete {
		t.Errorf("PostgreSQL flexible server configurations: %+v", pg)
	}
	if sa, _ := r.ARMType("Microsoft.Storage/storageAccounts"); sa.NoDelete || sa.ReadOnlyType || sa.FixedNames != nil {
		t.Errorf("storage accounts: NoDelete %v, ReadOnlyType %v, FixedNames %v", sa.NoDelete, sa.ReadOnlyType, sa.FixedNames)
	}
}

// TestFixedNamesAndReadOnlyTypes: the REST specs' newest api-version
// decides, names compare case-insensitively, and no name is empty.
func TestFixedNamesAndReadOnlyTypes(t *testing.T) {
	r := Default()
	// Read-only at 2021-05-01, writable since 2022-01-01.
	if c, _ := r.ARMType("Microsoft.DBforMySQL/flexibleServers/configurations"); c == nil || c.ReadOnlyType {
		t.Errorf("MySQL flexible server configurations: %+v", c)
	}
	// "default" at 2021-11-01 and in a kind's URI, "Default" at 2025-01-01.
	if p, _ := r.ARMType("Microsoft.Sql/servers/databases/securityAlertPolicies"); p == nil || !slices.Equal(p.FixedNames, []string{"Default"}) {
		t.Errorf("SQL database security alert policies: %+v", p)
	}
	// The names of a discriminated body's alternatives.
	if c, _ := r.ARMType("Microsoft.Web/sites/config"); c == nil || !slices.Contains(c.FixedNames, "web") || !slices.Contains(c.FixedNames, "appsettings") {
		t.Errorf("web site config: %+v", c)
	}
	fixed := 0
	for _, typ := range r.armTypeIndex().types {
		if len(typ.FixedNames) > 0 {
			fixed++
		}
		if slices.Contains(typ.FixedNames, "") {
			t.Errorf("%s: fixed names %q hold an empty name", typ.Type, typ.FixedNames)
		}
	}
	if fixed == 0 {
		t.Error("no type has fixed names")
	}
}
