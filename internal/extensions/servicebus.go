package extensions

// Service Bus. The operator's servicebus/namespace_extensions.go exports the
// keys and connection strings of a namespace's RootManageSharedAccessKey
// rule, which ARM creates with every namespace (Service Bus documentation),
// and its endpoint from status (which secretExpressions see too);
// namespaces_authorization_rule_extensions.go and
// topic_authorization_rule_extensions.go those of the rule itself. All
// through listKeys.
type serviceBusNamespace struct{ *keyExporter }

func init() {
	register("Microsoft.ServiceBus/namespaces", serviceBusNamespace{&keyExporter{
		reads:     []keyRead{sameNames("AuthorizationRules/RootManageSharedAccessKey/listKeys", sharedAccessKeys...)},
		status:    map[string][]string{"endpoint": {"serviceBusEndpoint"}},
		rawStatus: []string{"endpoint"},
	}})
	register("Microsoft.ServiceBus/namespaces/AuthorizationRules", &keyExporter{
		reads: []keyRead{sameNames("listKeys", sharedAccessKeys...)},
	})
	register("Microsoft.ServiceBus/namespaces/topics/authorizationRules", &keyExporter{
		reads: []keyRead{sameNames("listKeys", sharedAccessKeys...)},
	})
}

// servicebus/namespaces_topic_subscription_extension.go retries a topic
// subscription's MessagingGatewayBadRequest (its topic not ready yet).
func init() {
	register("Microsoft.ServiceBus/namespaces/topics/subscriptions", codes{"MessagingGatewayBadRequest"})
}

func (serviceBusNamespace) CreatedWith() []string {
	return []string{"AuthorizationRules/RootManageSharedAccessKey"}
}
