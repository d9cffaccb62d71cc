package emulator

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// anonymous sends a request without a bearer token, as clients call the
// cloud metadata and the token service.
func anonymous(t *testing.T, c *client, method, path string, form url.Values, headers ...string) (int, map[string]any) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, c.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.run.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	data, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(data, &m)
	return resp.StatusCode, m
}

// TestTokenServiceAnswersAsEntra: the OIDC discovery documents (the tenant's
// v2.0 and v1 ones, the AD FS-style one the Azure CLI reads, MSAL's
// instance discovery) are anonymous and name the emulator's own endpoints;
// the token endpoint grants client credentials and refuses, as Entra does,
// a request without a client ID (AADSTS900144), without a credential
// (AADSTS7000216), for another tenant (AADSTS90002) or without a .default
// scope (AADSTS1002012).
func TestTokenServiceAnswersAsEntra(t *testing.T) {
	c := start(t, Options{}, false)
	for path, tokenEndpoint := range map[string]string{
		"/" + Tenant + "/v2.0/.well-known/openid-configuration": "/" + Tenant + "/oauth2/v2.0/token",
		"/" + Tenant + "/.well-known/openid-configuration":      "/" + Tenant + "/oauth2/token",
		"/adfs/.well-known/openid-configuration":                "/adfs/oauth2/token",
		"/organizations/v2.0/.well-known/openid-configuration":  "/organizations/oauth2/v2.0/token",
	} {
		code, doc := anonymous(t, c, http.MethodGet, path, nil)
		if code != http.StatusOK || doc["token_endpoint"] != c.base+tokenEndpoint || doc["jwks_uri"] == nil {
			t.Errorf("%s: %d %v", path, code, doc)
		}
	}
	code, keys := anonymous(t, c, http.MethodGet, "/"+Tenant+"/discovery/v2.0/keys", nil)
	if set, _ := keys["keys"].([]any); code != http.StatusOK || len(set) != 1 {
		t.Errorf("JWKS: %d %v", code, keys)
	}
	code, inst := anonymous(t, c, http.MethodGet, "/common/discovery/instance?api-version=1.1&authorization_endpoint="+url.QueryEscape(c.base+"/"+Tenant+"/oauth2/v2.0/authorize"), nil)
	if code != http.StatusOK || inst["tenant_discovery_endpoint"] != c.base+"/"+Tenant+"/v2.0/.well-known/openid-configuration" {
		t.Errorf("instance discovery: %d %v", code, inst)
	}
	if code, _ := anonymous(t, c, http.MethodGet, "/11111111-1111-1111-1111-111111111111/v2.0/.well-known/openid-configuration", nil); code != http.StatusBadRequest {
		t.Errorf("discovery of another tenant: %d", code)
	}

	grant := func(tenant string, form url.Values) (int, map[string]any) {
		return anonymous(t, c, http.MethodPost, "/"+tenant+"/oauth2/v2.0/token", form)
	}
	ok := url.Values{"grant_type": {"client_credentials"}, "client_id": {"app-1"}, "client_secret": {"s"}, "scope": {"https://management.azure.com/.default"}}
	if code, tok := grant(Tenant, ok); code != http.StatusOK || tok["token_type"] != "Bearer" || tok["access_token"] == "" {
		t.Errorf("client credentials: %d %v", code, tok)
	}
	for _, tc := range []struct {
		tenant string
		drop   string
		set    [2]string
		status int
		aadsts string
	}{
		{tenant: Tenant, drop: "client_id", status: 400, aadsts: "AADSTS900144"},
		{tenant: Tenant, drop: "client_secret", status: 401, aadsts: "AADSTS7000216"},
		{tenant: "11111111-1111-1111-1111-111111111111", status: 400, aadsts: "AADSTS90002"},
		{tenant: Tenant, set: [2]string{"scope", "https://management.azure.com/user_impersonation"}, status: 400, aadsts: "AADSTS1002012"},
		{tenant: Tenant, set: [2]string{"grant_type", "password"}, status: 400, aadsts: "AADSTS70003"},
	} {
		form := url.Values{}
		for k, v := range ok {
			form[k] = v
		}
		form.Del(tc.drop)
		if tc.set[0] != "" {
			form.Set(tc.set[0], tc.set[1])
		}
		code, e := grant(tc.tenant, form)
		if desc, _ := e["error_description"].(string); code != tc.status || !strings.HasPrefix(desc, tc.aadsts) {
			t.Errorf("%+v: %d %v", tc, code, e)
		}
	}
	// The managed-identity endpoint needs the metadata header, as IMDS does.
	if code, _ := anonymous(t, c, http.MethodGet, "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/", nil); code != http.StatusBadRequest {
		t.Errorf("managed identity without Metadata: true: %d", code)
	}
	code, mi := anonymous(t, c, http.MethodGet, "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/", nil, "Metadata", "true")
	if code != http.StatusOK || mi["access_token"] == "" || mi["resource"] != "https://management.azure.com/" {
		t.Errorf("managed identity: %d %v", code, mi)
	}
	// A user-assigned identity is picked by its client ID.
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	uami := c.mustPut(rgID+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app", map[string]any{"location": "westus2"})
	clientID := uami["properties"].(map[string]any)["clientId"].(string)
	code, _ = anonymous(t, c, http.MethodGet, "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/&client_id="+clientID, nil, "Metadata", "true")
	if code != http.StatusOK {
		t.Errorf("user-assigned identity by client ID: %d", code)
	}
	if code, _ := anonymous(t, c, http.MethodGet, "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/&client_id=nobody", nil, "Metadata", "true"); code != http.StatusBadRequest {
		t.Errorf("an identity that does not exist: %d", code)
	}
}

// TestMetadataIsAnonymousAndVersioned: GET /metadata/endpoints needs no
// token, and its shape follows the api-version as ARM's does.
func TestMetadataIsAnonymousAndVersioned(t *testing.T) {
	c := start(t, Options{}, false)
	if code, body := anonymous(t, c, http.MethodGet, "/metadata/endpoints?api-version=2015-01-01", nil); code != http.StatusOK || body["authentication"] == nil {
		t.Errorf("2015-01-01: %d %v", code, body)
	}
	if code, body := anonymous(t, c, http.MethodGet, "//metadata/endpoints?api-version=2022-09-01", nil); code != http.StatusOK || body["resourceManager"] != c.base+"/" {
		t.Errorf("2022-09-01 (joined to an endpoint ending in a slash): %d %v", code, body)
	}
	if code, body := anonymous(t, c, http.MethodGet, "/metadata/endpoints", nil); code != http.StatusBadRequest || errorCode(body) != "MissingApiVersionParameter" {
		t.Errorf("no api-version: %d %v", code, body)
	}
}

// TestSubscriptionsAreThoseWithState: the emulator knows the configured
// subscription and every subscription something is stored in; any other is
// 404 SubscriptionNotFound, as ARM answers for one the caller cannot see.
func TestSubscriptionsAreThoseWithState(t *testing.T) {
	c := start(t, Options{Subscription: "22222222-2222-2222-2222-222222222222"}, false)
	list := func() []string {
		resp, body := c.do(http.MethodGet, "/subscriptions?api-version=2022-12-01", nil)
		mustStatus(t, resp, body, http.StatusOK)
		var ids []string
		for _, s := range body["value"].([]any) {
			ids = append(ids, s.(map[string]any)["subscriptionId"].(string))
		}
		return ids
	}
	if got := list(); len(got) != 1 || got[0] != "22222222-2222-2222-2222-222222222222" {
		t.Errorf("fresh: %v", got)
	}
	for _, path := range []string{sub, sub + "/resourcegroups", sub + "/resources", sub + "/locations"} {
		version := rgAPI
		if path == sub || strings.HasSuffix(path, "locations") {
			version = "?api-version=2022-12-01"
		}
		resp, body := c.do(http.MethodGet, path+version, nil)
		if resp.StatusCode != http.StatusNotFound || errorCode(body) != "SubscriptionNotFound" {
			t.Errorf("%s of an unknown subscription: %d %v", path, resp.StatusCode, body)
		}
	}
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	if got := list(); len(got) != 2 {
		t.Errorf("after a group was made in %s: %v", sub, got)
	}
	// The subscription-level reads have the subscriptions API's versions.
	resp, body := c.do(http.MethodGet, sub+rgAPI, nil)
	if resp.StatusCode != http.StatusBadRequest || errorCode(body) != "InvalidApiVersionParameter" || !strings.Contains(body["error"].(map[string]any)["message"].(string), "2022-12-01") {
		t.Errorf("a subscription at a resources API version: %d %v", resp.StatusCode, body)
	}
	// Tags at subscription scope show on the subscription.
	resp, body = c.do(http.MethodPut, sub+"/providers/Microsoft.Resources/tags/default?api-version=2021-04-01", map[string]any{"properties": map[string]any{"tags": map[string]any{"cost": "x"}}})
	mustStatus(t, resp, body, http.StatusOK)
	resp, body = c.do(http.MethodGet, sub+"?api-version=2022-12-01", nil)
	if tags, _ := body["tags"].(map[string]any); resp.StatusCode != http.StatusOK || tags["cost"] != "x" {
		t.Errorf("subscription tags: %d %v", resp.StatusCode, body)
	}
}

// TestResourceListsAsARM: resource lists show the envelope (no properties),
// $expand adds the times and state ARM adds, and a tag filter's results
// carry no tags, as ARM's Resources - List documents.
func TestResourceListsAsARM(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	c.mustPut(rgID+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/a", map[string]any{"location": "westus2", "tags": map[string]any{"env": "dev"}})
	resp, body := c.do(http.MethodGet, rgID+"/resources"+rgAPI+"&$expand=createdTime,provisioningState", nil)
	mustStatus(t, resp, body, http.StatusOK)
	item := body["value"].([]any)[0].(map[string]any)
	if item["properties"] != nil || item["createdTime"] == nil || item["provisioningState"] != "Succeeded" || item["tags"] == nil {
		t.Errorf("listed: %v", item)
	}
	resp, body = c.do(http.MethodGet, sub+"/resources"+rgAPI+"&$filter="+url.QueryEscape("tagName eq 'env'"), nil)
	mustStatus(t, resp, body, http.StatusOK)
	if items := body["value"].([]any); len(items) != 1 || items[0].(map[string]any)["tags"] != nil {
		t.Errorf("tag-filtered: %v", items)
	}
}

// TestComputedValues: the values ARM computes rather than stores as sent:
// a dynamic public IP gets its address when a network interface attaches
// it; a web app its default host name; a role assignment its scope; a
// create no recording shows answers 200 (see putAnswerFor), one the
// recordings show answers as recorded.
func TestComputedValues(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	vnet := rgID + "/providers/Microsoft.Network/virtualNetworks/v"
	c.mustPut(vnet, map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}},
		"subnets": []any{map[string]any{"name": "s", "properties": map[string]any{"addressPrefix": "10.0.1.0/24"}}}}})
	pip := rgID + "/providers/Microsoft.Network/publicIPAddresses/ip"
	created := c.mustPut(pip, map[string]any{"location": "westus2", "sku": map[string]any{"name": "Basic"}})
	if props := created["properties"].(map[string]any); props["publicIPAllocationMethod"] != "Dynamic" || props["ipAddress"] != nil {
		t.Errorf("a Basic public IP is Dynamic, with no address until attached: %v", props)
	}
	c.mustPut(rgID+"/providers/Microsoft.Network/networkInterfaces/nic", map[string]any{"location": "westus2", "properties": map[string]any{
		"ipConfigurations": []any{map[string]any{"name": "c", "properties": map[string]any{"subnet": map[string]any{"id": vnet + "/subnets/s"}, "publicIPAddress": map[string]any{"id": pip}}}}}})
	_, got := c.do(http.MethodGet, pip+apiFor(pip), nil)
	if ip, _ := got["properties"].(map[string]any)["ipAddress"].(string); !strings.HasPrefix(ip, "20.") {
		t.Errorf("an attached dynamic public IP has an address: %v", got["properties"])
	}
	site := rgID + "/providers/Microsoft.Web/sites/MyApp"
	resp := c.send(http.MethodPut, site+apiFor(site), map[string]any{"location": "westus2", "properties": map[string]any{}})
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var app map[string]any
	_ = json.Unmarshal(data, &app)
	if resp.StatusCode != http.StatusOK || app["properties"].(map[string]any)["defaultHostName"] != "myapp.azurewebsites.net" {
		t.Errorf("a web app (no recording shows its create): %d %v", resp.StatusCode, app["properties"])
	}
	resp, body := c.do(http.MethodPut, sub+"/resourceGroups/rg9"+rgAPI, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusCreated) // as the recordings show
}
