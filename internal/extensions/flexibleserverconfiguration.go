package extensions

import (
	"fmt"
	"strings"
)

// Microsoft.DBforMySQL/flexibleServers/configurations and
// Microsoft.DBforPostgreSQL/flexibleServers/configurations: the operator's
// dbformysql and dbforpostgresql flexible_servers_configuration_extensions.go
// (Importer). A server lists every configuration parameter; import keeps
// those set by someone: not the system defaults, not read-only ones, not
// those holding their default value.
func init() {
	register("Microsoft.DBforMySQL/flexibleServers/configurations", flexibleServerConfiguration{})
	register("Microsoft.DBforPostgreSQL/flexibleServers/configurations", flexibleServerConfiguration{})
}

type flexibleServerConfiguration struct{}

func (flexibleServerConfiguration) SkipImport(body map[string]any, _ string) *ImportSkip {
	props, _ := body["properties"].(map[string]any)
	switch value, hasValue := props["value"].(string); {
	case strings.EqualFold(stringAt(body, "properties", "source"), "system-default"):
		return &ImportSkip{One: "server parameter at its system default", Many: "server parameters at their system default"}
	case props["isReadOnly"] == true || strings.EqualFold(fmt.Sprint(props["isReadOnly"]), "True"):
		return &ImportSkip{One: "read-only server parameter, which cannot be set", Many: "read-only server parameters, which cannot be set"}
	case hasValue && props["defaultValue"] == value:
		return &ImportSkip{One: "server parameter holding its default value", Many: "server parameters holding their default value"}
	}
	return nil
}
