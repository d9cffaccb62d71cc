package extensions

// Microsoft.Compute/virtualMachineScaleSets: the operator's
// compute/vmss_extensions.go (ARMResourceModifier): a scale set's PUT replaces
// its extensions, which users may manage as separate resources; they are
// kept from Azure.
func init() {
	register("Microsoft.Compute/virtualMachineScaleSets",
		PreservedChildren{Path: []string{"properties", "virtualMachineProfile", "extensionProfile", "extensions"}})
}
