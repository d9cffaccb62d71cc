package providers

import (
	"net/http"
	"strings"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// Cosmos DB SQL role assignments grant data-plane access inside one account:
// Cosmos refuses (400 BadRequest) a scope that is an ARM path outside the
// account the assignment is written in, such as an account of another
// subscription. A scope relative to the account ("/", "/dbs/...") is inside it.

const typeCosmosSQLRoleAssignment = "Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments"

type cosmosRoles struct{}

// ValidateWrite refuses a SQL role assignment whose scope leaves its account.
func (cosmosRoles) ValidateWrite(_ armcore.Tx, _ *http.Request, t armpath.Target, body map[string]any, _ bool) error {
	if !strings.EqualFold(t.Type, typeCosmosSQLRoleAssignment) {
		return nil
	}
	props, _ := body["properties"].(map[string]any)
	scope, _ := props["scope"].(string)
	account := strings.ToLower(t.Parent)
	s := strings.ToLower(strings.TrimSuffix(scope, "/"))
	if !strings.HasPrefix(s, "/subscriptions/") || s == account || strings.HasPrefix(s, account+"/") {
		return nil
	}
	return armcore.Errorf(http.StatusBadRequest, "BadRequest",
		"The provided scope %s is not within the database account %s. A SQL role assignment's scope must be the account or a database or container in it.", scope, t.Parent)
}
