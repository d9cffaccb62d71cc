package extensions

// Event Hubs. The operator's eventhub/namespace_extension.go exports the keys
// and connection strings of a namespace's RootManageSharedAccessKey rule,
// which ARM creates with every namespace (Event Hubs documentation);
// namespaces_authorization_rule_extension.go and
// namespaces_eventhubs_authorization_rule_extension.go those of the rule
// itself. All through listKeys.
type eventHubNamespace struct{ *keyExporter }

func init() {
	register("Microsoft.EventHub/namespaces", eventHubNamespace{&keyExporter{
		reads: []keyRead{sameNames("authorizationRules/RootManageSharedAccessKey/listKeys", sharedAccessKeys...)},
	}})
	register("Microsoft.EventHub/namespaces/authorizationRules", &keyExporter{
		reads: []keyRead{sameNames("listKeys", sharedAccessKeys...)},
	})
	register("Microsoft.EventHub/namespaces/eventhubs/authorizationRules", &keyExporter{
		reads: []keyRead{sameNames("listKeys", sharedAccessKeys...)},
	})
}

func (eventHubNamespace) CreatedWith() []string {
	return []string{"authorizationRules/RootManageSharedAccessKey"}
}

// sharedAccessKeys are what a shared access authorization rule's listKeys
// answers with, and the secrets the operator names after them.
var sharedAccessKeys = []string{"primaryKey", "secondaryKey", "primaryConnectionString", "secondaryConnectionString"}
