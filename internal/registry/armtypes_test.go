package registry

import (
	"slices"
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
