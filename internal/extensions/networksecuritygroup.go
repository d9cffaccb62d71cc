package extensions

// Microsoft.Network/networkSecurityGroups: the operator's network/network_security_group_extension.go (ARMResourceModifier): a network security group's PUT replaces its security rules;
// they are kept from Azure.
func init() {
	register("Microsoft.Network/networkSecurityGroups", PreservedChildren{Path: []string{"properties", "securityRules"}})
}
