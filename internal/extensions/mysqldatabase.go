package extensions

import "strings"

// Microsoft.DBforMySQL/flexibleServers/databases: in MySQL 8, utf8 is an
// alias of the utf8mb3 character set (MySQL reference manual, "The utf8
// Character Set"), and the server reports the charset and its collations
// under the name utf8mb3.
type mysqlDatabase struct{ storedAsSent }

func init() { register("Microsoft.DBforMySQL/flexibleServers/databases", mysqlDatabase{}) }

func (mysqlDatabase) Equivalent(path string, want, have any) bool {
	if path != "properties.charset" && path != "properties.collation" {
		return false
	}
	w, _ := want.(string)
	h, _ := have.(string)
	return w != "" && strings.EqualFold(utf8mb3(w), utf8mb3(h))
}

// utf8mb3 spells a charset or collation with the utf8 alias resolved.
func utf8mb3(s string) string {
	lower := strings.ToLower(s)
	if lower == "utf8" || strings.HasPrefix(lower, "utf8_") {
		return "utf8mb3" + lower[len("utf8"):]
	}
	return lower
}
