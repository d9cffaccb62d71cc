package extensions

// Microsoft.RedHatOpenShift/hcpOpenShiftClusters: the operator's
// redhatopenshift/hcp_open_shift_cluster_extension.go does not write a
// cluster being deleted. (Its secret exporter asks Azure for a new admin
// credential, a write; azk does not fetch it.)
func init() {
	register("Microsoft.RedHatOpenShift/hcpOpenShiftClusters",
		blocksWrite{stateBlocks{path: []string{"properties", "provisioningState"}, blocking: []string{"deleting"}, what: "the cluster"}})
}
