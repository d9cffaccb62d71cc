package extensions

// Notification Hubs. The operator's notificationhubs/namespace_extension.go
// exports the keys and connection strings of a namespace's
// RootManageSharedAccessKey rule, notificationhub_extension.go those of a
// hub's DefaultFullSharedAccessSignature rule; ARM creates both rules with
// their parent (Notification Hubs documentation). Both through listKeys.
// The operator hands secretExpressions the primary connection string as
// secret.primaryKey, and azk does the same.
type (
	notificationHubsNamespace struct{ *keyExporter }
	notificationHub           struct{ *keyExporter }
)

func init() {
	register("Microsoft.NotificationHubs/namespaces", notificationHubsNamespace{&keyExporter{
		reads: []keyRead{sameNames("AuthorizationRules/RootManageSharedAccessKey/listKeys", sharedAccessKeys...)},
		rawAs: map[string]string{"primaryKey": "primaryConnectionString"},
	}})
	register("Microsoft.NotificationHubs/namespaces/notificationHubs", notificationHub{&keyExporter{
		reads: []keyRead{sameNames("AuthorizationRules/DefaultFullSharedAccessSignature/listKeys", sharedAccessKeys...)},
		rawAs: map[string]string{"primaryKey": "primaryConnectionString"},
	}})
}

func (notificationHubsNamespace) CreatedWith() []string {
	return []string{"AuthorizationRules/RootManageSharedAccessKey"}
}

func (notificationHub) CreatedWith() []string {
	return []string{"AuthorizationRules/DefaultFullSharedAccessSignature", "AuthorizationRules/DefaultListenSharedAccessSignature"}
}
