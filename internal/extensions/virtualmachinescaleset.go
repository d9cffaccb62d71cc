package extensions

import "regexp"

// Microsoft.Compute/virtualMachineScaleSets: the operator's
// compute/vmss_extensions.go (ARMResourceModifier): a scale set's PUT replaces
// its extensions, which users may manage as separate resources; they are
// kept from Azure. It retries OperationNotAllowed (an operation on the
// scale set still running), as compute/vm_extensions.go does for virtual
// machines; compute/disk_extensions.go retries a disk's BadRequest for a
// disk access not found yet and Conflict for one in a failed state.
type scaleSet struct {
	PreservedChildren
	codes
}

func init() {
	register("Microsoft.Compute/virtualMachineScaleSets", scaleSet{
		PreservedChildren{Path: []string{"properties", "virtualMachineProfile", "extensionProfile", "extensions"}},
		codes{"OperationNotAllowed"},
	})
	register("Microsoft.Compute/virtualMachines", codes{"OperationNotAllowed"})
	register("Microsoft.Compute/disks", anyOf{
		codeMessage{"BadRequest", regexp.MustCompile(`DiskAccess.*not found`)},
		codeMessage{"Conflict", regexp.MustCompile(`DiskAccess.*is in failed state.`)},
	})
}
