package extensions

import (
	"net/http"
	"net/url"
)

// API Management. The operator's apimanagement/subscription_extensions.go
// exports a subscription's keys (listSecrets), service_gateway_extensions.go
// a gateway's (listKeys, whose answer names them primary and secondary).
// product_extensions.go deletes a product with its subscriptions
// (deleteSubscriptions=true, If-Match: *), which a plain DELETE refuses to.
type apiManagementProduct struct{}

func (apiManagementProduct) DeleteWith() (url.Values, http.Header) {
	return url.Values{"deleteSubscriptions": {"true"}}, http.Header{"If-Match": {"*"}}
}

func init() {
	register("Microsoft.ApiManagement/service/products", apiManagementProduct{})
	register("Microsoft.ApiManagement/service/subscriptions", &keyExporter{
		reads: []keyRead{sameNames("listSecrets", "primaryKey", "secondaryKey")},
	})
	register("Microsoft.ApiManagement/service/gateways", &keyExporter{
		reads: []keyRead{{action: "listKeys", values: map[string]string{"primaryKey": "primary", "secondaryKey": "secondary"}}},
	})
}
