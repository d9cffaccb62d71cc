package extensions

// Microsoft.Cache/redis: the operator's cache/redis_extensions.go exports the
// access keys (listKeys) and, from status, the host name and ports;
// secretExpressions see the keys only.
func init() {
	register("Microsoft.Cache/redis", &keyExporter{
		reads: []keyRead{sameNames("listKeys", "primaryKey", "secondaryKey")},
		status: map[string][]string{
			"hostName": {"hostName"},
			"port":     {"port"},
			"sslPort":  {"sslPort"},
		},
	})
}
