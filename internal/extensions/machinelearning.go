package extensions

import (
	"regexp"
	"strings"
)

// Azure Machine Learning. Workspaces have one edition since the Enterprise
// edition was retired (September 2020): the provider keeps its SKU as Basic
// whatever is sent, and it derives allowPublicAccessWhenBehindVnet, which
// is deprecated in favour of publicNetworkAccess, itself. A registry's
// system-created storage and container registry accounts are named by the
// provider.
//
// The operator's machinelearningservices/workspace_extension.go exports a
// workspace's keys and its container registry's credentials (listKeys),
// and retries a BadRequest saying its storage account is not provisioned yet.
type (
	mlWorkspace struct {
		storedAsSent
		*keyExporter
		codeMessage
	}
	mlRegistry struct{ storedAsSent }
)

func init() {
	register("Microsoft.MachineLearningServices/workspaces", mlWorkspace{keyExporter: &keyExporter{
		reads: []keyRead{{action: "listKeys", values: map[string]string{
			"appInsightsInstrumentationKey": "appInsightsInstrumentationKey",
			"userStorageKey":                "userStorageKey",
			"containerRegistryUserName":     "containerRegistryCredentials.username",
			"containerRegistryPassword":     "containerRegistryCredentials.passwords[name=password].value",
			"containerRegistryPassword2":    "containerRegistryCredentials.passwords[name=password2].value",
			"primaryNotebookAccessKey":      "notebookAccessKeys.primaryAccessKey",
			"secondaryNotebookAccessKey":    "notebookAccessKeys.secondaryAccessKey",
		}}},
	}, codeMessage: codeMessage{"BadRequest", regexp.MustCompile(`StorageAccountIsNotProvisioned`)}})
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

func (mlRegistry) Equivalent(path string, _, _ any) bool {
	return path == "properties.regionDetails[].acrDetails[].systemCreatedAcrAccount.acrAccountName" ||
		path == "properties.regionDetails[].storageAccountDetails[].systemCreatedStorageAccount.storageAccountName"
}
