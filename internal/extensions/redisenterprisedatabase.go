package extensions

// Microsoft.Cache/redisEnterprise/databases: the operator's
// cache/redis_enterprise_database_extensions.go exports the access keys (listKeys).
func init() {
	register("Microsoft.Cache/redisEnterprise/databases", &keyExporter{
		reads: []keyRead{sameNames("listKeys", "primaryKey", "secondaryKey")},
	})
}
