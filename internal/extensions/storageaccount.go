package extensions

// Microsoft.Storage/storageAccounts: ARM creates a storage account with its
// blob, file, queue and table services (each named default), and deletes them
// with it (Azure Storage documentation: every account has these services).
type storageAccount struct{}

func init() { register("Microsoft.Storage/storageAccounts", storageAccount{}) }

func (storageAccount) CreatedWith() []string {
	return []string{"blobServices/default", "fileServices/default", "queueServices/default", "tableServices/default"}
}
