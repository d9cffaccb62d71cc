package loader

import (
	"path/filepath"
	"testing"
)

func TestLooksLikeASOGroup(t *testing.T) {
	for group, want := range map[string]bool{
		"storage.azure.com":   true,
		"resources.azure.com": true,
		"azure.com":           true,
		"Storage.Azure.COM":   true, // case alone
		"storage.azure.com.":  true, // a trailing dot
		"storage.azure.con":   true,
		"storage.azure.co":    true,
		"storage.azure.comm":  true,
		"storageazure.com":    true,
		"storage.azur.com":    true,
		"storage-azure.com":   true,
		"storage.azure.cm":    true,
		"storage.zure.com":    true,
		"storage.aurze.com":   true,  // neighbours swapped
		"storage.zure.co":     true,  // two edits
		"storage.zur.co":      false, // three

		"":                                  false, // core v1
		"apps":                              false,
		"batch":                             false,
		"networking.k8s.io":                 false,
		"cert-manager.io":                   false,
		"azure.microsoft.com":               false, // ASO v1
		"secrets-store.csi.x-k8s.io":        false,
		"monitoring.coreos.com":             false,
		"aadpodidentity.k8s.io":             false,
		"external-secrets.io":               false,
		"keda.sh":                           false,
		"kustomize.config.k8s.io":           false,
		"apiextensions.k8s.io":              false,
		"rbac.authorization.k8s.io":         false,
		"policy.open-cluster-management.io": false,
	} {
		if got := looksLikeASOGroup(group); got != want {
			t.Errorf("looksLikeASOGroup(%q) = %v, want %v", group, got, want)
		}
	}
}

// TestOthersKeepWhatIsNotRead: objects of kinds azk does not read are kept
// in input order, across files and List items, and still warned about; a
// misspelt ASO group is read as a resource, not among them.
func TestOthersKeepWhatIsNotRead(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml": rgDoc + `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
---
apiVersion: storage.azure.con/v1api20230101
kind: StorageAccount
metadata:
  name: st
`,
		"b.yaml": `apiVersion: v1
kind: List
items:
- apiVersion: cert-manager.io/v1
  kind: Certificate
  metadata:
    name: tls
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: api
`,
	})
	res, diags := Load(Options{Paths: []string{dir}})
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	check(t, "others", summarize(res.Others), []string{
		"apps/Deployment/shop/web @ " + a + ":6",
		"cert-manager.io/Certificate/default/tls @ " + b + ":4",
		"apps/Deployment/default/api @ " + b + ":8",
	})
	check(t, "resources", summarize(res.Resources), []string{
		"resources.azure.com/ResourceGroup/default/rg @ " + a + ":1",
		"storage.azure.con/StorageAccount/default/st @ " + a + ":12",
	})
	check(t, "diagnostics", render(diags), []string{
		"warning: ignored 2 objects of kind apps/v1 Deployment (first at " + a + ":6)",
		"warning: ignored 1 object of kind cert-manager.io/v1 Certificate (first at " + b + ":4)",
	})
}
