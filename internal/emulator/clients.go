package emulator

import (
	"encoding/json"
	"strings"
)

// ClientSettings are what a client needs to reach an emulator serving HTTPS
// at URL (e.g. "https://127.0.0.1:8443") whose certificate is the PEM file
// CertFile. `azk emulator` prints them and the client tests use them, so
// what is printed is what is tested.
type ClientSettings struct {
	URL, CertFile string
}

// Host is the emulator's host and port, as metadata_host settings take it.
func (c ClientSettings) Host() string { return strings.TrimPrefix(c.URL, "https://") }

// ManagedIdentityEndpoint is the token endpoint of the emulator's managed
// identity, where IDENTITY_ENDPOINT points (App Service style).
func (c ClientSettings) ManagedIdentityEndpoint() string {
	return c.URL + "/metadata/identity/oauth2/token"
}

// AzureCLICloud is the cloud `az cloud register -n azk --cloud-config @FILE`
// registers. The configuration file is the only way the CLI (2.45 and
// later) takes a Microsoft Graph endpoint, which commands that look up the
// signed-in principal (az keyvault create) call; the emulator serves those
// lookups itself. The authority ends in /adfs on purpose: MSAL then reads
// the emulator's own discovery document instead of asking
// login.microsoftonline.com to vouch for it.
func (c ClientSettings) AzureCLICloud() []byte {
	b, _ := json.MarshalIndent(map[string]any{
		"endpoints": map[string]string{
			"resourceManager":          c.URL,
			"activeDirectory":          c.URL + "/adfs",
			"microsoftGraphResourceId": c.URL + "/",
		},
		"suffixes": map[string]string{
			"storageEndpoint": "core.windows.net",
			"keyvaultDns":     ".vault.azure.net",
		},
	}, "", "  ")
	return append(b, '\n')
}

// AzapiEnv is the environment the Terraform azapi provider (v1.15) reaches
// the emulator with, as NAME=value pairs. azapi has no metadata_host: its
// endpoint settings (ARM_RESOURCE_MANAGER_ENDPOINT,
// ARM_ACTIVE_DIRECTORY_AUTHORITY_HOST, or the provider's endpoint block)
// name the emulator, and it signs in as the emulator's managed identity
// through IDENTITY_ENDPOINT and IDENTITY_HEADER (any value). ARM_USE_CLI is
// off so that it never falls back to the signed-in Azure CLI's account;
// ARM_CLIENT_ID must be unset, as with one the managed identity token asks
// for a user-assigned identity of that client ID.
func (c ClientSettings) AzapiEnv() []string {
	return []string{
		"SSL_CERT_FILE=" + c.CertFile,
		"ARM_RESOURCE_MANAGER_ENDPOINT=" + c.URL + "/",
		"ARM_ACTIVE_DIRECTORY_AUTHORITY_HOST=" + c.URL + "/adfs/",
		"ARM_USE_MSI=true",
		"ARM_USE_CLI=false",
		"IDENTITY_ENDPOINT=" + c.ManagedIdentityEndpoint(),
		"IDENTITY_HEADER=azk-emulator",
		"ARM_TENANT_ID=" + Tenant,
		"ARM_SUBSCRIPTION_ID=" + DefaultSubscription,
	}
}

// AzurermEnv is the environment the Terraform azurerm provider reaches the
// emulator with: its metadata_host (ARM_METADATA_HOSTNAME) reads the
// emulator's cloud metadata, and it signs in with client credentials at
// the emulator's token service (any client ID and secret).
func (c ClientSettings) AzurermEnv(clientID string) []string {
	return []string{
		"SSL_CERT_FILE=" + c.CertFile,
		"ARM_METADATA_HOSTNAME=" + c.Host(),
		"ARM_TENANT_ID=" + Tenant,
		"ARM_CLIENT_ID=" + clientID,
		"ARM_CLIENT_SECRET=any-secret",
		"ARM_SUBSCRIPTION_ID=" + DefaultSubscription,
	}
}
