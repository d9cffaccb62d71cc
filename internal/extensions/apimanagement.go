package extensions

// API Management. The operator's apimanagement/subscription_extensions.go
// exports a subscription's keys (listSecrets), service_gateway_extensions.go
// a gateway's (listKeys, whose answer names them primary and secondary).
func init() {
	register("Microsoft.ApiManagement/service/subscriptions", &keyExporter{
		reads: []keyRead{sameNames("listSecrets", "primaryKey", "secondaryKey")},
	})
	register("Microsoft.ApiManagement/service/gateways", &keyExporter{
		reads: []keyRead{{action: "listKeys", values: map[string]string{"primaryKey": "primary", "secondaryKey": "secondary"}}},
	})
}
