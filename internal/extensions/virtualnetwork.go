package extensions

// Microsoft.Network/virtualNetworks: the operator's network/virtual_network_extensions.go (ARMResourceModifier): a virtual network's PUT replaces its subnets;
// they are kept from Azure.
func init() {
	register("Microsoft.Network/virtualNetworks", PreservedChildren{Path: []string{"properties", "subnets"}})
}
