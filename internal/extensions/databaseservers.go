package extensions

// MySQL and PostgreSQL flexible servers and MariaDB servers: the operator's
// dbformysql/flexible_server_extensions.go,
// dbforpostgresql/flexible_server_extensions.go and
// dbformariadb/server_extensions.go export the fully qualified domain name
// from status (not a secret, so secretExpressions do not see it).
type flexibleServer struct{ *keyExporter }

func init() {
	fqdn := func() *keyExporter {
		return &keyExporter{status: map[string][]string{"fullyQualifiedDomainName": {"fullyQualifiedDomainName"}}}
	}
	register("Microsoft.DBforMySQL/flexibleServers", flexibleServer{fqdn()})
	register("Microsoft.DBforPostgreSQL/flexibleServers", flexibleServer{fqdn()})
	register("Microsoft.DBforMariaDB/servers", fqdn())
}
