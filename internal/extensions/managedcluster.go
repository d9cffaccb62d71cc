package extensions

// Microsoft.ContainerService/managedClusters: the operator's
// containerservice/managed_cluster_extensions.go exports the first admin
// and user kubeconfigs (listClusterAdminCredential,
// listClusterUserCredential; ARM sends them base64).
type managedCluster struct{ *keyExporter }

func init() {
	register("Microsoft.ContainerService/managedClusters", managedCluster{&keyExporter{
		reads: []keyRead{
			{action: "listClusterAdminCredential", values: map[string]string{"adminCredentials": "kubeconfigs[0].value"}, base64: true},
			{action: "listClusterUserCredential", values: map[string]string{"userCredentials": "kubeconfigs[0].value"}, base64: true},
		},
	}})
}
