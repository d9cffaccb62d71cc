package providers

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/emulator/armcore"
)

// endpoints is the host names and endpoints providers derive from names.
type endpoints struct{}

// FillBody gives resources the host names and endpoints their
// providers derive from the name (and location), as each provider documents
// them, where no recording shows them to be filled in: an Azure Cache for
// Redis host and ports, a Cosmos DB account's document endpoint, a Service
// Bus or Event Hubs namespace's endpoint, and an AKS cluster's OIDC issuer
// URL when the issuer is enabled (unique per cluster; kept across updates,
// as in Azure).
func (endpoints) FillBody(tx armcore.Tx, b *armcore.Body) {
	rec, out, props, prevProps := b.Record, b.Out, b.Props, b.PrevProps
	name := rec.ID[strings.LastIndexByte(rec.ID, '/')+1:]
	set := func(key string, v any) {
		if _, ok := props[key]; !ok {
			props[key] = v
		}
	}
	switch strings.ToLower(rec.Type) {
	case "microsoft.cache/redis":
		set("hostName", strings.ToLower(name)+".redis.cache.windows.net")
		set("port", 6379)
		set("sslPort", 6380)
	case "microsoft.documentdb/databaseaccounts":
		set("documentEndpoint", "https://"+strings.ToLower(name)+".documents.azure.com:443/")
	case "microsoft.servicebus/namespaces", "microsoft.eventhub/namespaces":
		set("serviceBusEndpoint", "https://"+strings.ToLower(name)+".servicebus.windows.net:443/")
	case "microsoft.containerservice/managedclusters":
		issuer, _ := props["oidcIssuerProfile"].(map[string]any)
		if enabled, _ := issuer["enabled"].(bool); !enabled {
			return
		}
		prev, _ := prevProps["oidcIssuerProfile"].(map[string]any)
		location, _ := out["location"].(string)
		issuer["issuerURL"] = keep(prev, "issuerURL", func() string {
			return fmt.Sprintf("https://%s.oic.prod-aks.azure.com/%s/%s/", strings.ToLower(strings.ReplaceAll(location, " ", "")), armcore.Tenant, tx.NewUUID())
		})
	}
}
