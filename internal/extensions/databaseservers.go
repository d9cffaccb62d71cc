package extensions

// MySQL and PostgreSQL flexible servers and MariaDB servers: the operator's
// dbformysql/flexible_server_extensions.go,
// dbforpostgresql/flexible_server_extensions.go and
// dbformariadb/server_extensions.go export the fully qualified domain name
// from status (not a secret, so secretExpressions do not see it).
//
// dbforpostgresql/flexible_server_extensions.go does not write a
// PostgreSQL server whose state is not settled (Ready, or an operation's
// end: Succeeded, Failed, Canceled: not Starting, Updating, Restarting…),
// and flexible_servers_database_extensions.go and
// flexible_servers_firewall_rule_extensions.go write no database or
// firewall rule while their server is in such a state.
type (
	flexibleServer struct{ *keyExporter }
	postgresServer struct {
		*keyExporter
		blocksWrite
	}
)

// postgresServerState is when a PostgreSQL server takes writes, for itself
// and for its databases and firewall rules.
var postgresServerState = stateBlocks{path: []string{"properties", "state"}, settled: append([]string{"ready"}, provisioningSettled...), what: "the PostgreSQL server"}

func init() {
	fqdn := func() *keyExporter {
		return &keyExporter{status: map[string][]string{"fullyQualifiedDomainName": {"fullyQualifiedDomainName"}}}
	}
	register("Microsoft.DBforMySQL/flexibleServers", flexibleServer{fqdn()})
	register("Microsoft.DBforMariaDB/servers", fqdn())
	register("Microsoft.DBforPostgreSQL/flexibleServers", postgresServer{fqdn(), blocksWrite{postgresServerState}})
	register("Microsoft.DBforPostgreSQL/flexibleServers/firewallRules", ownerBlocksWrite{postgresServerState})
}
