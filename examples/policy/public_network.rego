# Storage accounts and databases this change writes are not reachable from
# the public internet: public network access is explicitly disabled (each
# of these services enables it when the body does not say).
package main

# The property that switches public access off, per ARM type.
public_access_path := {
	"Microsoft.Storage/storageAccounts": ["properties", "publicNetworkAccess"],
	"Microsoft.Sql/servers": ["properties", "publicNetworkAccess"],
	"Microsoft.DocumentDB/databaseAccounts": ["properties", "publicNetworkAccess"],
	"Microsoft.DBforPostgreSQL/flexibleServers": ["properties", "network", "publicNetworkAccess"],
	"Microsoft.DBforMySQL/flexibleServers": ["properties", "network", "publicNetworkAccess"],
}

deny_public_network_access contains {"msg": msg, "address": r.address} if {
	some r in input.resources
	r.action in {"create", "update", "replace"}
	path := public_access_path[r.armType]
	not private(r.desired, path)
	msg := sprintf("%s allows public network access: set %s to \"Disabled\"", [r.address, concat(".", path)])
}

private(body, path) if object.get(body, path, "Enabled") == "Disabled"

# A flexible server placed in a delegated subnet has no public endpoint.
private(body, _) if body.properties.network.delegatedSubnetResourceId
