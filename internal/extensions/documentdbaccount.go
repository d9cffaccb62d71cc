package extensions

import "regexp"

// Cosmos DB. The operator's documentdb/database_account_extensions.go
// exports an account's master and read-only keys (listKeys) and its
// document endpoint from status, and does not write an account being
// deleted. Its classifiers retry BadRequest for MongoDB and SQL databases
// (mongodb_database_extension.go, sql_database_extension_types.go: the
// account not ready for them yet), a SQL role assignment's BadRequest for a
// principal not yet in the tenant (sql_role_assignment_extension_types.go)
// and a Cassandra cluster's BadRequest about its service principal's
// permissions (cassandra_cluster_extensions.go);
// cassandra_data_center_extensions.go does not write a data center while
// its cluster's provisioning state is other than Succeeded.
type databaseAccount struct {
	*keyExporter
	blocksWrite
}

func init() {
	register("Microsoft.DocumentDB/databaseAccounts", databaseAccount{
		keyExporter: &keyExporter{
			reads:  []keyRead{sameNames("listKeys", "primaryMasterKey", "secondaryMasterKey", "primaryReadonlyMasterKey", "secondaryReadonlyMasterKey")},
			status: map[string][]string{"documentEndpoint": {"documentEndpoint"}},
		},
		blocksWrite: blocksWrite{stateBlocks{path: []string{"properties", "provisioningState"}, blocking: []string{"deleting"}, what: "the database account"}},
	})
	register("Microsoft.DocumentDB/databaseAccounts/mongodbDatabases", codes{"BadRequest"})
	register("Microsoft.DocumentDB/databaseAccounts/sqlDatabases", codes{"BadRequest"})
	register("Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments", codeMessage{"BadRequest", regexp.MustCompile(`was not found in the AAD tenant`)})
	register("Microsoft.DocumentDB/cassandraClusters", codeMessage{"BadRequest", regexp.MustCompile(`service principal`)})
	register("Microsoft.DocumentDB/cassandraClusters/dataCenters", ownerBlocksWrite{stateBlocks{path: []string{"properties", "provisioningState"}, settled: []string{"succeeded"}, what: "the Cassandra cluster"}})
}
