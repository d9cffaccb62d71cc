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
// as in Azure); a web app's (or slot's) default host name, a SQL,
// PostgreSQL or MySQL server's fully qualified domain name, a container
// registry's login server and an App Configuration store's endpoint.
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
	case "microsoft.web/sites":
		host := strings.ToLower(name) + ".azurewebsites.net"
		set("defaultHostName", host)
		set("hostNames", []any{host})
		set("enabledHostNames", []any{host, strings.ToLower(name) + ".scm.azurewebsites.net"})
	case "microsoft.web/sites/slots":
		site := rec.ID[:strings.LastIndex(strings.ToLower(rec.ID), "/slots/")]
		host := strings.ToLower(site[strings.LastIndexByte(site, '/')+1:]+"-"+name) + ".azurewebsites.net"
		set("defaultHostName", host)
		set("hostNames", []any{host})
	case "microsoft.sql/servers":
		set("fullyQualifiedDomainName", strings.ToLower(name)+".database.windows.net")
	case "microsoft.dbforpostgresql/flexibleservers":
		set("fullyQualifiedDomainName", strings.ToLower(name)+".postgres.database.azure.com")
	case "microsoft.dbformysql/flexibleservers":
		set("fullyQualifiedDomainName", strings.ToLower(name)+".mysql.database.azure.com")
	case "microsoft.containerregistry/registries":
		set("loginServer", strings.ToLower(name)+".azurecr.io")
	case "microsoft.appconfiguration/configurationstores":
		set("endpoint", "https://"+strings.ToLower(name)+".azconfig.io")
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
