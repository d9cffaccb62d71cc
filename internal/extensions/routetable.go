package extensions

// Microsoft.Network/routeTables: the operator's network/route_table_extensions.go (ARMResourceModifier): a route table's PUT replaces its routes;
// they are kept from Azure.
func init() {
	register("Microsoft.Network/routeTables", PreservedChildren{Path: []string{"properties", "routes"}})
}
