package extensions

// Microsoft.RedHatOpenShift/openShiftClusters: the operator's
// redhatopenshift/open_shift_cluster_extensions.go exports the admin
// kubeconfig (listAdminCredentials) and the kubeadmin user name and
// password (listCredentials).
func init() {
	register("Microsoft.RedHatOpenShift/openShiftClusters", &keyExporter{
		reads: []keyRead{
			{action: "listAdminCredentials", values: map[string]string{"adminCredentials": "kubeconfig"}},
			{action: "listCredentials", values: map[string]string{"username": "kubeadminUsername", "password": "kubeadminPassword"}},
		},
	})
}
