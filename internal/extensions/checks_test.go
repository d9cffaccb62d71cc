package extensions_test

import (
	"testing"

	"github.com/azkcli/azk/internal/extensions"
)

// TestErrorClassifiers: each kind retries the errors the operator's
// classifier for it retries, and not what it does not.
func TestErrorClassifiers(t *testing.T) {
	for _, tc := range []struct {
		armType, code, message string
		retry                  bool
	}{
		{"Microsoft.App/containerApps", "ManagedEnvironmentNotProvisioned", "", true},
		{"Microsoft.App/jobs", "ManagedEnvironmentNotProvisioned", "", true},
		{"Microsoft.App/containerApps", "BadRequest", "", false},
		{"Microsoft.Cdn/profiles/afdEndpoints/routes", "BadRequest", "Please make sure the originGroup is created successfully and at least one enabled origin is created", true},
		{"Microsoft.Cdn/profiles/ruleSets/rules", "BadRequest", "originGroup is created successfully", false},
		{"Microsoft.Cdn/profiles/securityPolicies", "BadRequest", "domain x is not associated with the AFDX profile or is in a invalid provisioning state", true},
		{"Microsoft.Compute/disks", "BadRequest", "DiskAccess d1 not found", true},
		{"Microsoft.Compute/disks", "Conflict", "DiskAccess d1 is in failed state.", true},
		{"Microsoft.Compute/disks", "Conflict", "something else", false},
		{"Microsoft.Compute/virtualMachines", "OperationNotAllowed", "", true},
		{"Microsoft.Compute/virtualMachineScaleSets", "OperationNotAllowed", "", true},
		{"Microsoft.ContainerService/fleets/members", "DependentResourceNotFound", "", true},
		{"Microsoft.ContainerService/managedClusters", "CustomKubeletIdentityMissingPermissionError", "", true},
		{"Microsoft.ContainerService/managedClusters/agentPools", "NodePoolMcVersionIncompatible", "", true},
		{"Microsoft.DocumentDB/cassandraClusters", "BadRequest", "the service principal lacks permission", true},
		{"Microsoft.DocumentDB/databaseAccounts/mongodbDatabases", "BadRequest", "", true},
		{"Microsoft.DocumentDB/databaseAccounts/sqlDatabases", "BadRequest", "", true},
		{"Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments", "BadRequest", "principal p was not found in the AAD tenant", true},
		{"Microsoft.DocumentDB/databaseAccounts", "ServiceUnavailable", "currently experiencing high demand", false},
		{"Microsoft.Insights/dataCollectionRules", "WorkspaceNotFound", "", true},
		{"Microsoft.Insights/scheduledQueryRules", "BadRequest", "scope does not exist", true},
		{"Microsoft.Insights/scheduledQueryRules", "BadRequest", "insufficient access to the scope", true},
		{"Microsoft.MachineLearningServices/workspaces", "BadRequest", "StorageAccountIsNotProvisioned", true},
		{"Microsoft.Network/azureFirewalls", "AzfwAddToFirewallPolicyFailed", "Failed to reference Firewall Policy p", true},
		{"Microsoft.Network/dnsForwardingRulesets", "NotFound", "the endpoint was not found", true},
		{"Microsoft.Network/dnsZones/A", "BadRequest", "The referenced resource r was not found", true},
		{"Microsoft.Network/dnsZones/AAAA", "BadRequest", "The referenced resource r was not found", true},
		{"Microsoft.Network/dnsZones/CNAME", "BadRequest", "The referenced resource r was not found", true},
		{"Microsoft.Network/networkWatchers/flowLogs", "NetworkSecurityGroupNotFoundForFlowLog", "", true},
		{"Microsoft.Network/networkWatchers/flowLogs", "StorageProvisioningStateNotSucceeded", "", true},
		{"Microsoft.Network/publicIPAddresses", "ReferencedResourceNotProvisioned", "", true},
		{"Microsoft.Network/virtualNetworks/subnets", "NetcfgSubnetRangeOutsideVnet", "", true},
		{"Microsoft.Network/virtualNetworks", "NetcfgSubnetRangeOutsideVnet", "", false},
		{"Microsoft.Network/virtualNetworks/virtualNetworkPeerings", "ReferencedResourceNotProvisioned", "", true},
		{"Microsoft.ServiceBus/namespaces/topics/subscriptions", "MessagingGatewayBadRequest", "", true},
		{"Microsoft.Sql/servers/vulnerabilityAssessments", "VulnerabilityAssessmentADSIsDisabled", "", true},
		{"Microsoft.Sql/servers", "PasswordNotComplex", "", false},
	} {
		if got := extensions.Retryable(tc.armType, tc.code, tc.message); got != tc.retry {
			t.Errorf("%s %s %q: retryable %v, want %v", tc.armType, tc.code, tc.message, got, tc.retry)
		}
	}
}

// TestWriteBlockers: the states in which the operator does not write a
// resource, or its children.
func TestWriteBlockers(t *testing.T) {
	state := func(key, v string) map[string]any { return map[string]any{"properties": map[string]any{key: v}} }
	for _, tc := range []struct {
		armType string
		owner   bool
		body    map[string]any
		blocked bool
	}{
		{"Microsoft.ContainerService/managedClusters", false, state("provisioningState", "Upgrading"), true},
		{"Microsoft.ContainerService/managedClusters", false, state("provisioningState", "Failed"), false},
		{"Microsoft.ContainerService/managedClusters/agentPools", false, state("provisioningState", "Scaling"), true},
		{"Microsoft.ContainerService/managedClusters/agentPools", true, state("provisioningState", "Updating"), true},
		{"Microsoft.ContainerService/managedClusters/agentPools", true, state("provisioningState", "succeeded"), false},
		{"Microsoft.DBforPostgreSQL/flexibleServers", false, state("state", "Starting"), true},
		{"Microsoft.DBforPostgreSQL/flexibleServers", false, state("state", "Ready"), false},
		{"Microsoft.DBforPostgreSQL/flexibleServers/databases", true, state("state", "Restarting"), true},
		{"Microsoft.DBforPostgreSQL/flexibleServers/firewallRules", true, state("state", "Updating"), true},
		{"Microsoft.DocumentDB/databaseAccounts", false, state("provisioningState", "Deleting"), true},
		{"Microsoft.DocumentDB/databaseAccounts", false, state("provisioningState", "Updating"), false},
		{"Microsoft.DocumentDB/cassandraClusters/dataCenters", true, state("provisioningState", "Updating"), true},
		{"Microsoft.Kusto/clusters", false, state("provisioningState", "Creating"), true},
		{"Microsoft.Kusto/clusters/databases", true, state("provisioningState", "Moving"), true},
		{"Microsoft.RedHatOpenShift/hcpOpenShiftClusters", false, state("provisioningState", "Deleting"), true},
		{"Microsoft.RedHatOpenShift/hcpOpenShiftClusters", false, state("provisioningState", "Updating"), false},
		{"Microsoft.ContainerService/managedClusters", false, nil, false},
	} {
		var why string
		if tc.owner {
			why = extensions.OwnerWriteBlockerFor(tc.armType).OwnerBlocksWrite(tc.body)
		} else {
			why = extensions.WriteBlockerFor(tc.armType).BlocksWrite(tc.body)
		}
		if (why != "") != tc.blocked {
			t.Errorf("%s (owner %v) %v: %q, want blocked %v", tc.armType, tc.owner, tc.body, why, tc.blocked)
		}
	}
}
