package emulator

import (
	"net/http"
	"strings"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/identity"
)

// CloudName is the name the emulator's cloud metadata gives its cloud.
const CloudName = "AzkEmulator"

// metadataPath is ARM's anonymous cloud metadata endpoint.
const metadataPath = "/metadata/endpoints"

// serveMetadata answers GET /metadata/endpoints as ARM does, anonymously, in
// the shape the api-version selects: before 2019-05-01 the original object
// (galleryEndpoint, graphEndpoint, portalEndpoint, authentication), which
// the Azure CLI's "az cloud register" reads; from 2019-05-01 an array of
// clouds in the newer shape (name, resourceManager, authentication,
// suffixes, ...), which Pulumi's metadataHost reads; from 2022-09-01 that
// shape as a single object, which Terraform's metadata_host reads. The
// emulator's cloud names the emulator itself as its Resource Manager and its
// login endpoint; the audiences are ARM's, which the emulator accepts, and
// the suffixes are Azure's public ones, as the emulator's computed endpoints
// (a vault's vaultUri, a storage account's endpoints) use them.
func serveMetadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		armcore.WriteError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "The metadata endpoint only answers GET.")
		return
	}
	version := r.URL.Query().Get("api-version")
	if version == "" {
		armcore.WriteError(w, http.StatusBadRequest, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
		return
	}
	if !armcore.WellFormedAPIVersion(version) {
		armcore.WriteError(w, http.StatusBadRequest, "InvalidApiVersionParameter", "The api-version '%s' is invalid.", version)
		return
	}
	base := armcore.BaseURL(r)
	switch {
	case version < "2019-05-01":
		armcore.WriteJSON(w, http.StatusOK, map[string]any{
			"galleryEndpoint": "",
			"graphEndpoint":   "https://graph.windows.net/",
			"portalEndpoint":  base + "/",
			"authentication": map[string]any{
				"loginEndpoint": base + "/",
				"audiences":     identity.Audiences[:1:1],
			},
		})
	case version < "2022-09-01":
		armcore.WriteJSON(w, http.StatusOK, []any{cloudMetadata(base)})
	default:
		armcore.WriteJSON(w, http.StatusOK, cloudMetadata(base))
	}
}

// cloudMetadata is the emulator's cloud in the 2019-05-01 and later shape.
func cloudMetadata(base string) map[string]any {
	return map[string]any{
		"name":            CloudName,
		"portal":          base + "/",
		"resourceManager": base + "/",
		"authentication": map[string]any{
			"loginEndpoint":    base + "/",
			"audiences":        []string{identity.Audiences[0], identity.Audiences[2]},
			"tenant":           "common",
			"identityProvider": "AAD",
		},
		"media":                                 "https://rest.media.azure.net",
		"graphAudience":                         "https://graph.windows.net/",
		"graph":                                 "https://graph.windows.net/",
		"microsoftGraphResourceId":              "https://graph.microsoft.com/",
		"batch":                                 "https://batch.core.windows.net/",
		"sqlManagement":                         "https://management.core.windows.net:8443/",
		"vmImageAliasDoc":                       "https://raw.githubusercontent.com/Azure/azure-rest-api-specs/master/arm-compute/quickstart-templates/aliases.json",
		"activeDirectoryDataLake":               "https://datalake.azure.net/",
		"appInsightsResourceId":                 "https://api.applicationinsights.io",
		"appInsightsTelemetryChannelResourceId": "https://dc.applicationinsights.azure.com/v2/track",
		"attestationResourceId":                 "https://attest.azure.net",
		"synapseAnalyticsResourceId":            "https://dev.azuresynapse.net",
		"logAnalyticsResourceId":                "https://api.loganalytics.io",
		"ossrDbmsResourceId":                    "https://ossrdbms-aad.database.windows.net",
		"suffixes": map[string]any{
			"azureDataLakeStoreFileSystem":        "azuredatalakestore.net",
			"acrLoginServer":                      "azurecr.io",
			"sqlServerHostname":                   "database.windows.net",
			"azureDataLakeAnalyticsCatalogAndJob": "azuredatalakeanalytics.net",
			"keyVaultDns":                         "vault.azure.net",
			"storage":                             "core.windows.net",
			"azureFrontDoorEndpointSuffix":        "azurefd.net",
			"storageSyncEndpointSuffix":           "afs.azure.net",
			"mhsmDns":                             "managedhsm.azure.net",
			"mysqlServerEndpoint":                 "mysql.database.azure.com",
			"postgresqlServerEndpoint":            "postgres.database.azure.com",
			"mariadbServerEndpoint":               "mariadb.database.azure.com",
			"synapseAnalytics":                    "dev.azuresynapse.net",
			"attestationEndpoint":                 "attest.azure.net",
		},
	}
}

// isMetadataPath reports whether path is the metadata endpoint (clients
// that join a trailing-slash endpoint with it send "//metadata/endpoints").
func isMetadataPath(path string) bool {
	return "/"+strings.TrimLeft(path, "/") == metadataPath
}
