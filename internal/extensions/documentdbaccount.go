package extensions

// Microsoft.DocumentDB/databaseAccounts: the operator's
// documentdb/database_account_extensions.go exports the master and read-only
// keys (listKeys) and the document endpoint from status.
type databaseAccount struct{ *keyExporter }

func init() {
	register("Microsoft.DocumentDB/databaseAccounts", databaseAccount{&keyExporter{
		reads:  []keyRead{sameNames("listKeys", "primaryMasterKey", "secondaryMasterKey", "primaryReadonlyMasterKey", "secondaryReadonlyMasterKey")},
		status: map[string][]string{"documentEndpoint": {"documentEndpoint"}},
	}})
}
