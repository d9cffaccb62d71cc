package extensions

import "strings"

// Microsoft.DBforPostgreSQL/flexibleServers/databases: the operator's
// dbforpostgresql/flexible_servers_database_extensions.go writes no database
// while its server is in a state that blocks writes (see
// databaseservers.go), and, as an Importer, leaves out the built-in
// databases every server has (azure_maintenance, azure_sys, postgres),
// which ARM does not manage.
func init() {
	register("Microsoft.DBforPostgreSQL/flexibleServers/databases", postgresDatabase{ownerBlocksWrite{postgresServerState}})
}

type postgresDatabase struct{ ownerBlocksWrite }

func (postgresDatabase) SkipImport(body map[string]any, _ string) *ImportSkip {
	switch strings.ToLower(stringAt(body, "name")) {
	case "azure_maintenance", "azure_sys", "postgres":
		return &ImportSkip{One: "built-in PostgreSQL database, which ARM does not manage", Many: "built-in PostgreSQL databases, which ARM does not manage"}
	}
	return nil
}
