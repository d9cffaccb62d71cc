package extensions

import "strings"

// Azure Machine Learning. Workspaces have one edition since the Enterprise
// edition was retired (September 2020): the provider keeps its SKU as Basic
// whatever is sent, and it derives allowPublicAccessWhenBehindVnet, which
// is deprecated in favour of publicNetworkAccess, itself. A workspace
// connection's value holds its credentials and is never returned, nor is
// its format. A registry's system-created storage and container registry
// accounts are named by the provider.
type (
	mlWorkspace  struct{ storedAsSent }
	mlConnection struct{ storedAsSent }
	mlRegistry   struct{ storedAsSent }
)

func init() {
	register("Microsoft.MachineLearningServices/workspaces", mlWorkspace{})
	register("Microsoft.MachineLearningServices/workspaces/connections", mlConnection{})
	register("Microsoft.MachineLearningServices/registries", mlRegistry{})
}

func (mlWorkspace) Equivalent(path string, _, have any) bool {
	switch path {
	case "sku.name", "sku.tier":
		h, _ := have.(string)
		return strings.EqualFold(h, "Basic")
	case "properties.allowPublicAccessWhenBehindVnet":
		return true
	}
	return false
}

func (mlConnection) NotReturned(path string) bool {
	return path == "properties.value" || path == "properties.valueFormat"
}

func (mlRegistry) Equivalent(path string, _, _ any) bool {
	return path == "properties.regionDetails[].acrDetails[].systemCreatedAcrAccount.acrAccountName" ||
		path == "properties.regionDetails[].storageAccountDetails[].systemCreatedStorageAccount.storageAccountName"
}
