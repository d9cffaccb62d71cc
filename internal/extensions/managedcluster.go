package extensions

// AKS. The operator's containerservice/managed_cluster_extensions.go
// exports a cluster's first admin and user kubeconfigs
// (listClusterAdminCredential, listClusterUserCredential; ARM sends them
// base64), does not write a cluster whose provisioning state is not
// settled (Succeeded, Failed, Canceled), and retries
// CustomKubeletIdentityMissingPermissionError (the kubelet identity's role
// assignment not yet effective). managed_clusters_agent_pool_extensions.go
// does not write an agent pool while it, or its cluster, is in an unsettled
// provisioning state, and retries NodePoolMcVersionIncompatible (the
// cluster's upgrade not yet done); fleet_extensions.go retries a fleet
// member's DependentResourceNotFound.
type (
	managedCluster struct {
		*keyExporter
		blocksWrite
		codes
	}
	agentPool struct {
		blocksWrite
		ownerBlocksWrite
		codes
	}
)

func init() {
	clusterState := stateBlocks{path: []string{"properties", "provisioningState"}, settled: provisioningSettled, what: "the managed cluster"}
	register("Microsoft.ContainerService/managedClusters", managedCluster{
		keyExporter: &keyExporter{
			reads: []keyRead{
				{action: "listClusterAdminCredential", values: map[string]string{"adminCredentials": "kubeconfigs[0].value"}, base64: true},
				{action: "listClusterUserCredential", values: map[string]string{"userCredentials": "kubeconfigs[0].value"}, base64: true},
			},
		},
		blocksWrite: blocksWrite{clusterState},
		codes:       codes{"CustomKubeletIdentityMissingPermissionError"},
	})
	register("Microsoft.ContainerService/managedClusters/agentPools", agentPool{
		blocksWrite:      blocksWrite{stateBlocks{path: []string{"properties", "provisioningState"}, settled: provisioningSettled, what: "the agent pool"}},
		ownerBlocksWrite: ownerBlocksWrite{clusterState},
		codes:            codes{"NodePoolMcVersionIncompatible"},
	})
	register("Microsoft.ContainerService/fleets/members", codes{"DependentResourceNotFound"})
}
