# This change never deletes a kind that holds data: a deletion (removed from
# the manifests, or destroyed) or a replacement (deleted, then created empty)
# of one needs its own pull request that changes this policy, a second
# approval in effect. ARM's cascade counts: a database deleted with its
# server is deleted too.
package main

stateful_types := {
	"Microsoft.Storage/storageAccounts",
	"Microsoft.Sql/servers",
	"Microsoft.Sql/servers/databases",
	"Microsoft.DBforPostgreSQL/flexibleServers",
	"Microsoft.DBforPostgreSQL/flexibleServers/databases",
	"Microsoft.DBforMySQL/flexibleServers",
	"Microsoft.DBforMySQL/flexibleServers/databases",
	"Microsoft.DocumentDB/databaseAccounts",
	"Microsoft.KeyVault/vaults",
	"Microsoft.Cache/redis",
}

deny_stateful_deletion contains {"msg": msg, "address": r.address} if {
	some r in input.resources
	r.action in {"delete", "replace"}
	r.armType in stateful_types
	msg := sprintf("%s holds data and is to be %s: that needs a change of its own", [r.address, verb[r.action]])
}

verb := {"delete": "deleted", "replace": "deleted and created again"}
