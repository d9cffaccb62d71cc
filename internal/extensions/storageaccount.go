package extensions

// Microsoft.Storage/storageAccounts: ARM creates a storage account with its
// blob, file, queue and table services (each named default), and deletes them
// with it (Azure Storage documentation: every account has these services).
//
// Secrets, as the operator's storage/storage_account_extensions.go exports
// them: key1 and key2 from listKeys (found by keyName), the primary
// endpoints from status. secretExpressions see every key listKeys gives.
type storageAccount struct{ *keyExporter }

func init() {
	register("Microsoft.Storage/storageAccounts", storageAccount{&keyExporter{
		reads: []keyRead{{action: "listKeys", values: map[string]string{
			"key1": "keys[keyName=key1].value",
			"key2": "keys[keyName=key2].value",
		}}},
		status: map[string][]string{
			"blobEndpoint":  {"primaryEndpoints", "blob"},
			"queueEndpoint": {"primaryEndpoints", "queue"},
			"tableEndpoint": {"primaryEndpoints", "table"},
			"fileEndpoint":  {"primaryEndpoints", "file"},
			"webEndpoint":   {"primaryEndpoints", "web"},
			"dfsEndpoint":   {"primaryEndpoints", "dfs"},
		},
	}})
}

func (storageAccount) CreatedWith() []string {
	return []string{"blobServices/default", "fileServices/default", "queueServices/default", "tableServices/default"}
}
