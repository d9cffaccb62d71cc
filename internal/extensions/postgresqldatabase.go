package extensions

import "strings"

// Microsoft.DBforPostgreSQL/flexibleServers/databases: the operator's
// dbforpostgresql/flexible_servers_database_extensions.go (Importer). Every
// server has the built-in databases azure_maintenance, azure_sys and
// postgres, which ARM does not manage: import leaves them out.
func init() { register("Microsoft.DBforPostgreSQL/flexibleServers/databases", postgresDatabase{}) }

type postgresDatabase struct{}

func (postgresDatabase) SkipImport(body map[string]any, _ string) string {
	switch strings.ToLower(stringAt(body, "name")) {
	case "azure_maintenance", "azure_sys", "postgres":
		return "a built-in database, which ARM does not manage"
	}
	return ""
}
