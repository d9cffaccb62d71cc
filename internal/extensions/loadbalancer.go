package extensions

// Microsoft.Network/loadBalancers: the operator's network/load_balancer_extension.go (ARMResourceModifier): a load balancer's PUT replaces its inbound NAT rules;
// they are kept from Azure.
func init() {
	register("Microsoft.Network/loadBalancers", PreservedChildren{Path: []string{"properties", "inboundNatRules"}})
}
