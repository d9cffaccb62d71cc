package providers

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// builtInRole is a well-known Azure built-in role with its public GUID.
type builtInRole struct {
	name, guid string
	actions    []string
	notActions []string
	dataActs   []string
}

// builtInRoles are the roles clients most often resolve by name.
var builtInRoles = []builtInRole{
	{name: "Owner", guid: "8e3af657-a8ff-443c-a75c-2fe8c4bcb635", actions: []string{"*"}},
	{name: "Contributor", guid: "b24988ac-6180-42a0-ab88-20f7382dd24c", actions: []string{"*"},
		notActions: []string{"Microsoft.Authorization/*/Delete", "Microsoft.Authorization/*/Write", "Microsoft.Authorization/elevateAccess/Action"}},
	{name: "Reader", guid: "acdd72a7-3385-48ef-bd42-f606fba81ae7", actions: []string{"*/read"}},
	{name: "User Access Administrator", guid: "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9", actions: []string{"*/read", "Microsoft.Authorization/*"}},
	{name: "Storage Account Contributor", guid: "17d1049b-9a84-46fb-8f53-869881c3d3ab", actions: []string{"Microsoft.Storage/storageAccounts/*"}},
	{name: "Storage Blob Data Owner", guid: "b7e6dc6d-f1e8-4753-8033-0f276bb0955b", actions: []string{"Microsoft.Storage/storageAccounts/blobServices/containers/*"}, dataActs: []string{"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/*"}},
	{name: "Storage Blob Data Contributor", guid: "ba92f5b4-2d11-453d-a403-e96b0029c9fe", actions: []string{"Microsoft.Storage/storageAccounts/blobServices/containers/read"}, dataActs: []string{"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/*"}},
	{name: "Storage Blob Data Reader", guid: "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1", actions: []string{"Microsoft.Storage/storageAccounts/blobServices/containers/read"}, dataActs: []string{"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read"}},
	{name: "Storage Queue Data Contributor", guid: "974c5e8b-45b9-4653-ba55-5f855dd0fb88", actions: []string{"Microsoft.Storage/storageAccounts/queueServices/queues/*"}, dataActs: []string{"Microsoft.Storage/storageAccounts/queueServices/queues/messages/*"}},
	{name: "Storage Table Data Contributor", guid: "0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3", actions: []string{"Microsoft.Storage/storageAccounts/tableServices/tables/*"}, dataActs: []string{"Microsoft.Storage/storageAccounts/tableServices/tables/entities/*"}},
	{name: "Key Vault Administrator", guid: "00482a5a-887f-4fb3-b363-3b7fe8e74483", actions: []string{"Microsoft.KeyVault/vaults/*/read"}, dataActs: []string{"Microsoft.KeyVault/vaults/*"}},
	{name: "Key Vault Contributor", guid: "f25e0fa2-a7c8-4377-a976-54943a77a395", actions: []string{"Microsoft.KeyVault/*"}},
	{name: "Key Vault Reader", guid: "21090545-7ca7-4776-b22c-e363652d74d2", actions: []string{"Microsoft.KeyVault/vaults/read"}, dataActs: []string{"Microsoft.KeyVault/vaults/*/read"}},
	{name: "Key Vault Secrets Officer", guid: "b86a8fe4-44ce-4948-aee5-eccb2c155cd7", actions: []string{"Microsoft.KeyVault/vaults/*/read"}, dataActs: []string{"Microsoft.KeyVault/vaults/secrets/*"}},
	{name: "Key Vault Secrets User", guid: "4633458b-17de-408a-b874-0445c86b69e6", dataActs: []string{"Microsoft.KeyVault/vaults/secrets/getSecret/action", "Microsoft.KeyVault/vaults/secrets/readMetadata/action"}},
	{name: "Key Vault Crypto User", guid: "12338af0-0e69-4776-bea7-57ae8d297424", dataActs: []string{"Microsoft.KeyVault/vaults/keys/read", "Microsoft.KeyVault/vaults/keys/encrypt/action", "Microsoft.KeyVault/vaults/keys/decrypt/action"}},
	{name: "AcrPull", guid: "7f951dda-4ed3-4680-a7ca-43fe172d538d", actions: []string{"Microsoft.ContainerRegistry/registries/pull/read"}},
	{name: "AcrPush", guid: "8311e382-0749-4cb8-b61a-304f252e45ec", actions: []string{"Microsoft.ContainerRegistry/registries/pull/read", "Microsoft.ContainerRegistry/registries/push/write"}},
	{name: "Network Contributor", guid: "4d97b98b-1d4f-4787-a291-c67834d212e7", actions: []string{"Microsoft.Network/*", "Microsoft.Resources/subscriptions/resourceGroups/read"}},
	{name: "Virtual Machine Contributor", guid: "9980e02c-c2be-4d73-94e8-173b1dc7cf3c", actions: []string{"Microsoft.Compute/virtualMachines/*", "Microsoft.Network/networkInterfaces/*"}},
	{name: "Managed Identity Operator", guid: "f1a07417-d97a-45cb-824c-7a7467783830", actions: []string{"Microsoft.ManagedIdentity/userAssignedIdentities/*/read", "Microsoft.ManagedIdentity/userAssignedIdentities/*/assign/action"}},
	{name: "Managed Identity Contributor", guid: "e40ec5ca-96e0-45a2-b4ff-59039f2c2b59", actions: []string{"Microsoft.ManagedIdentity/userAssignedIdentities/*"}},
	{name: "Monitoring Reader", guid: "43d0d8ad-25c7-4714-9337-8ba259a9fe05", actions: []string{"*/read"}},
	{name: "Monitoring Metrics Publisher", guid: "3913510d-42f4-4e42-8a64-420c390055eb", actions: []string{"Microsoft.Insights/Register/Action"}, dataActs: []string{"Microsoft.Insights/Metrics/Write"}},
	{name: "Log Analytics Contributor", guid: "92aaf0da-9dab-42b6-94a3-d43ce8d16293", actions: []string{"*/read", "Microsoft.OperationalInsights/*"}},
	{name: "Azure Kubernetes Service Cluster User Role", guid: "4abbcc35-e782-43d8-92c5-2d3f1bd2253f", actions: []string{"Microsoft.ContainerService/managedClusters/listClusterUserCredential/action"}},
	{name: "Azure Service Bus Data Owner", guid: "090c5cfd-751d-490a-894a-3ce6f1109419", actions: []string{"Microsoft.ServiceBus/*"}, dataActs: []string{"Microsoft.ServiceBus/*"}},
	{name: "Azure Event Hubs Data Owner", guid: "f526a384-b230-433a-b45c-95f59c4a2dec", actions: []string{"Microsoft.EventHub/*"}, dataActs: []string{"Microsoft.EventHub/*"}},
	{name: "Cosmos DB Account Reader Role", guid: "fbdf93bf-df7d-467e-a4d2-9458aa1360c8", actions: []string{"Microsoft.DocumentDB/*/read"}},
}

var roleNameFilter = regexp.MustCompile(`^\s*roleName\s+eq\s+'((?:[^']|'')*)'\s*$`)

func (r builtInRole) body(scope string) map[string]any {
	nz := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return map[string]any{
		"id":   scope + "/providers/Microsoft.Authorization/roleDefinitions/" + r.guid,
		"name": r.guid,
		"type": "Microsoft.Authorization/roleDefinitions",
		"properties": map[string]any{
			"roleName":         r.name,
			"type":             "BuiltInRole",
			"description":      "Built-in role " + r.name + ".",
			"assignableScopes": []string{"/"},
			"permissions": []map[string]any{{
				"actions": nz(r.actions), "notActions": nz(r.notActions),
				"dataActions": nz(r.dataActs), "notDataActions": []string{},
			}},
		},
	}
}

// roles is the Microsoft.Authorization behaviour: ARM's built-in role definitions.
type roles struct{ c *armcore.Core }

// Route answers GET of role definitions: it lists built-in roles at any
// scope, optionally filtered by "roleName eq '...'", or reads one by GUID.
// Role definitions a client PUT are served by the generic store.
func (ro roles) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	if !strings.EqualFold(t.Type, "microsoft.authorization/roledefinitions") || r.Method != http.MethodGet {
		return false, nil
	}
	return true, ro.get(w, r, t)
}

func (ro roles) get(w http.ResponseWriter, r *http.Request, t armpath.Target) error {
	scope := t.Parent
	if t.Kind == armpath.Resource {
		for _, role := range builtInRoles {
			if strings.EqualFold(role.guid, t.Name) {
				armcore.WriteJSON(w, http.StatusOK, role.body(scope))
				return nil
			}
		}
		var rec *store.Record
		_ = ro.c.Read(func(tx armcore.Tx) error {
			rec = tx.Live(armpath.Key(t.ID))
			return nil
		})
		if rec == nil {
			return armcore.Errorf(http.StatusNotFound, "RoleDefinitionDoesNotExist", "The specified role definition with ID '%s' does not exist.", t.Name)
		}
		armcore.WriteRaw(w, http.StatusOK, armcore.View(rec, time.Now()))
		return nil
	}
	want := ""
	if f := r.URL.Query().Get("$filter"); f != "" {
		m := roleNameFilter.FindStringSubmatch(f)
		if m == nil {
			return armcore.Errorf(http.StatusBadRequest, "InvalidFilter", "The filter '%s' is not supported; use roleName eq 'name'.", f)
		}
		want = strings.ReplaceAll(m[1], "''", "'")
	}
	items := []json.RawMessage{}
	for _, role := range builtInRoles {
		if want != "" && !strings.EqualFold(role.name, want) {
			continue
		}
		b, err := json.Marshal(role.body(scope))
		if err != nil {
			return err
		}
		items = append(items, b)
	}
	armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items})
	return nil
}

const (
	typeRoleAssignment = "Microsoft.Authorization/roleAssignments"
	typeRoleDefinition = "Microsoft.Authorization/roleDefinitions"
)

// assignmentOf reads what identifies a role assignment: its principal and
// the GUID of its role definition.
func assignmentOf(body map[string]any) (principal, role string) {
	props, _ := body["properties"].(map[string]any)
	principal, _ = props["principalId"].(string)
	def, _ := props["roleDefinitionId"].(string)
	return principal, def[strings.LastIndexByte(def, '/')+1:]
}

// PreparePut enforces ARM's rules for role assignments: the role definition
// must exist (400 RoleDefinitionDoesNotExist), one principal holds one role
// at one scope once (409 RoleAssignmentExists, whatever the assignment's
// name), and an assignment's principal and role cannot change
// (400 RoleAssignmentUpdateNotPermitted).
func (ro roles) PreparePut(tx armcore.Tx, t armpath.Target, req, prev map[string]any) (map[string]any, error) {
	if !strings.EqualFold(t.Type, typeRoleAssignment) {
		return prev, nil
	}
	principal, role := assignmentOf(req)
	if role == "" || !ro.roleExists(tx, role) {
		return nil, armcore.Errorf(http.StatusBadRequest, "RoleDefinitionDoesNotExist", "The specified role definition with ID '%s' does not exist.", role)
	}
	if prev != nil {
		if p, r := assignmentOf(prev); !strings.EqualFold(p, principal) || !strings.EqualFold(r, role) {
			return nil, armcore.Errorf(http.StatusBadRequest, "RoleAssignmentUpdateNotPermitted", "Tenant ID, application ID, principal ID, and scope are not allowed to be updated.")
		}
		return prev, nil
	}
	for k := range tx.Store().Children(armpath.Key(t.Parent)) {
		rec := tx.Live(k)
		if rec == nil || !strings.EqualFold(rec.Type, typeRoleAssignment) || k == armpath.Key(t.ID) {
			continue
		}
		var body map[string]any
		if json.Unmarshal(rec.Body, &body) != nil {
			continue
		}
		if p, r := assignmentOf(body); strings.EqualFold(p, principal) && strings.EqualFold(r, role) {
			return nil, armcore.Errorf(http.StatusConflict, "RoleAssignmentExists", "The role assignment already exists. The ID of the existing role assignment is %s.", rec.ID[strings.LastIndexByte(rec.ID, '/')+1:])
		}
	}
	return prev, nil
}

// roleExists reports whether a role definition GUID is a built-in role or
// a custom role definition stored at any scope.
func (ro roles) roleExists(tx armcore.Tx, guid string) bool {
	for _, role := range builtInRoles {
		if strings.EqualFold(role.guid, guid) {
			return true
		}
	}
	for k, rec := range tx.Store().OfType(typeRoleDefinition) {
		if strings.EqualFold(rec.ID[strings.LastIndexByte(rec.ID, '/')+1:], guid) && tx.Live(k) != nil {
			return true
		}
	}
	return false
}

// FillBody gives a role assignment the scope ARM reports: the ID of what
// it is assigned at.
func (ro roles) FillBody(_ armcore.Tx, b *armcore.Body) {
	if !strings.EqualFold(b.Record.Type, typeRoleAssignment) {
		return
	}
	id := b.Record.ID
	if i := strings.LastIndex(strings.ToLower(id), "/providers/microsoft.authorization/roleassignments/"); i >= 0 {
		scope := id[:i]
		if scope == "" {
			scope = "/"
		}
		b.Props["scope"] = scope
	}
}
