package extensions

// Azure Data Explorer: the operator's kusto/cluster_extensions.go does not
// write a cluster whose provisioning state is not settled, and
// database_extensions.go writes no database while its cluster is in such a state.
func init() {
	clusterState := stateBlocks{path: []string{"properties", "provisioningState"}, settled: provisioningSettled, what: "the Kusto cluster"}
	register("Microsoft.Kusto/clusters", blocksWrite{clusterState})
	register("Microsoft.Kusto/clusters/databases", ownerBlocksWrite{clusterState})
}
