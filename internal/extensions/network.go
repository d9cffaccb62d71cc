package extensions

import "regexp"

// Networking: the operator's network extensions retry what a resource gets
// while what it refers to is still being provisioned:
// public_ip_address_extension.go and
// virtual_networks_virtual_network_peering_extension.go
// ReferencedResourceNotProvisioned, virtual_network_subnet_extensions.go
// NetcfgSubnetRangeOutsideVnet (the network's address space being
// extended), network_watchers_flow_log_extensions.go
// NetworkSecurityGroupNotFoundForFlowLog and
// StorageProvisioningStateNotSucceeded, azure_firewall_extension.go
// AzfwAddToFirewallPolicyFailed failing to reference the firewall policy,
// dns_forwarding_ruleset.go any error saying a resource "was not found",
// and dns_zones_{a,aaaa,cname}_record_extension.go a BadRequest for a
// referenced resource not found.
func init() {
	register("Microsoft.Network/publicIPAddresses", codes{"ReferencedResourceNotProvisioned"})
	register("Microsoft.Network/virtualNetworks/virtualNetworkPeerings", codes{"ReferencedResourceNotProvisioned"})
	register("Microsoft.Network/virtualNetworks/subnets", codes{"NetcfgSubnetRangeOutsideVnet"})
	register("Microsoft.Network/networkWatchers/flowLogs", codes{"NetworkSecurityGroupNotFoundForFlowLog", "StorageProvisioningStateNotSucceeded"})
	register("Microsoft.Network/azureFirewalls", codeMessage{"AzfwAddToFirewallPolicyFailed", regexp.MustCompile(`(?i)failed to reference Firewall Policy`)})
	register("Microsoft.Network/dnsForwardingRulesets", codeMessage{"", regexp.MustCompile(`was not found`)})
	record := codeMessage{"BadRequest", regexp.MustCompile(`The referenced resource.*was not found`)}
	for _, t := range []string{"A", "AAAA", "CNAME"} {
		register("Microsoft.Network/dnsZones/"+t, record)
	}
}
