package extensions

// Microsoft.ManagedIdentity/userAssignedIdentities: the operator's
// managedidentity/user_assigned_identity_extention_authorization.go exports
// the client, principal and tenant IDs from status and the subscription of
// the identity's ARM ID (none of them secret, so secretExpressions see none).
func init() {
	register("Microsoft.ManagedIdentity/userAssignedIdentities", &keyExporter{
		status: map[string][]string{
			"clientId":    {"clientId"},
			"principalId": {"principalId"},
			"tenantId":    {"tenantId"},
		},
		subscription: "subscriptionId",
	})
}
