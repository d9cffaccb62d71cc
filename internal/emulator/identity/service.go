package identity

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Service serves the token service's HTTP endpoints on the emulator's own
// host, as Microsoft Entra serves them on login.microsoftonline.com:
//
//	GET  /{tenant}/v2.0/.well-known/openid-configuration   OIDC discovery (also v1, without /v2.0)
//	GET  /{tenant}/discovery/v2.0/keys                     the signing keys (JWKS; also /discovery/keys)
//	GET  /common/discovery/instance                        instance discovery, for MSAL
//	POST /{tenant}/oauth2/v2.0/token                       client credentials grant (also v1 /oauth2/token)
//	GET  /adfs/.well-known/openid-configuration            the same as an AD FS authority, whose clients
//	POST /adfs/oauth2/token                                (MSAL) skip Microsoft's instance discovery
//	GET  /metadata/identity/oauth2/token                   a managed identity's token (IMDS and App Service styles)
//	GET  /v1.0/me, /v1.0/servicePrincipals, /v1.0/users    Microsoft Graph's lookups of the signed-in principal (graph.go)
//
// {tenant} is the emulator's tenant (Tenant); discovery also answers for
// "common" and "organizations". Any client ID with any non-empty secret or
// assertion gets a token: the emulator has no application registry, so the
// application's service principal is derived from its client ID
// (ForApplication). Secrets are neither kept nor logged.
type Service struct {
	Issuer *Issuer
	// UserAssigned finds the user-assigned identity a managed-identity
	// request names by client ID, object ID or resource ID; nil finds none.
	UserAssigned func(clientID, objectID, resourceID string) (Principal, bool)
}

// adfs is the tenant segment of the AD FS-style authority.
const adfs = "adfs"

// Serve answers r if its path is one of the service's, and reports whether it was.
func (s *Service) Serve(w http.ResponseWriter, r *http.Request) bool {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	rest := strings.Join(segs[min(1, len(segs)):], "/")
	tenant := segs[0]
	switch {
	case r.URL.Path == "/metadata/identity/oauth2/token":
		s.managedIdentity(w, r)
	case strings.HasPrefix(r.URL.Path, graphPrefix):
		s.serveGraph(w, r)
	case rest == "v2.0/.well-known/openid-configuration" || rest == ".well-known/openid-configuration":
		s.discovery(w, r, tenant, rest != ".well-known/openid-configuration" || tenant == adfs)
	case rest == "discovery/v2.0/keys" || rest == "discovery/keys":
		s.keys(w)
	case rest == "discovery/instance":
		s.instanceDiscovery(w, r)
	case rest == "oauth2/v2.0/token" || rest == "oauth2/token":
		s.token(w, r, tenant, rest == "oauth2/v2.0/token" || tenant == adfs)
	default:
		return false
	}
	return true
}

func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store, no-cache")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// oauthError answers an OAuth error as Entra shapes it: the error, a
// description starting with the AADSTS code, and the codes as numbers.
func oauthError(w http.ResponseWriter, status int, errName string, code int, format string, args ...any) {
	now := time.Now().UTC()
	trace, correlation := uuid.NewString(), uuid.NewString()
	msg := fmt.Sprintf("AADSTS%d: %s", code, fmt.Sprintf(format, args...))
	writeJSON(w, status, map[string]any{
		"error": errName,
		"error_description": fmt.Sprintf("%s Trace ID: %s Correlation ID: %s Timestamp: %s",
			msg, trace, correlation, now.Format("2006-01-02 15:04:05Z")),
		"error_codes": []int{code}, "timestamp": now.Format("2006-01-02 15:04:05Z"),
		"trace_id": trace, "correlation_id": correlation,
	})
}

// knownTenant reports whether discovery answers for tenant.
func knownTenant(tenant string) bool {
	switch strings.ToLower(tenant) {
	case Tenant, "common", "organizations", adfs:
		return true
	}
	return false
}

func (s *Service) discovery(w http.ResponseWriter, r *http.Request, tenant string, v2 bool) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !knownTenant(tenant) {
		oauthError(w, http.StatusBadRequest, "invalid_tenant", 90002, "Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant)
		return
	}
	base := baseURL(r)
	authority := base + "/" + tenant
	issuerTenant := tenant
	if t := strings.ToLower(tenant); t == "common" || t == "organizations" {
		issuerTenant = "{tenantid}" // as Entra writes it for the multi-tenant authorities
	}
	doc := map[string]any{
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
		"response_modes_supported":              []string{"query", "fragment", "form_post"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
		"scopes_supported":                      []string{"openid", "profile", "email", "offline_access"},
		"claims_supported":                      []string{"sub", "iss", "aud", "exp", "iat", "nbf", "tid", "oid", "appid", "azp", "idtyp", "ver"},
		"request_uri_parameter_supported":       false,
		"tenant_region_scope":                   "NA",
		"cloud_instance_name":                   r.Host,
	}
	switch {
	case tenant == adfs:
		doc["issuer"] = authority
		doc["token_endpoint"] = authority + "/oauth2/token"
		doc["authorization_endpoint"] = authority + "/oauth2/authorize"
		doc["jwks_uri"] = authority + "/discovery/keys"
	case v2:
		doc["issuer"] = base + "/" + issuerTenant + "/v2.0"
		doc["token_endpoint"] = authority + "/oauth2/v2.0/token"
		doc["authorization_endpoint"] = authority + "/oauth2/v2.0/authorize"
		doc["device_authorization_endpoint"] = authority + "/oauth2/v2.0/devicecode"
		doc["jwks_uri"] = authority + "/discovery/v2.0/keys"
	default:
		doc["issuer"] = base + "/" + issuerTenant + "/"
		doc["token_endpoint"] = authority + "/oauth2/token"
		doc["authorization_endpoint"] = authority + "/oauth2/authorize"
		doc["jwks_uri"] = authority + "/discovery/keys"
	}
	writeJSON(w, http.StatusOK, doc)
}

func (s *Service) keys(w http.ResponseWriter) {
	set, err := s.Issuer.JWKS()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, set)
}

// instanceDiscovery answers MSAL's instance discovery for an authority on
// this host: where its tenant's discovery document is, and that the host
// is its own alias.
func (s *Service) instanceDiscovery(w http.ResponseWriter, r *http.Request) {
	tenant := Tenant
	if u, err := url.Parse(r.URL.Query().Get("authorization_endpoint")); err == nil {
		if segs := strings.Split(strings.Trim(u.Path, "/"), "/"); segs[0] != "" {
			tenant = segs[0]
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"tenant_discovery_endpoint": baseURL(r) + "/" + tenant + "/v2.0/.well-known/openid-configuration",
		"api-version":               "1.1",
		"metadata":                  []map[string]any{{"preferred_network": r.Host, "preferred_cache": r.Host, "aliases": []string{r.Host}}},
	})
}

// audienceOf is the resource a v2 scope list asks for: the first scope
// ending in "/.default", without that suffix.
func audienceOf(scope string) (string, bool) {
	for _, s := range strings.Fields(scope) {
		if res, ok := strings.CutSuffix(s, "/.default"); ok && res != "" {
			return res, true
		}
	}
	return "", false
}

func (s *Service) token(w http.ResponseWriter, r *http.Request, tenant string, scoped bool) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", 900144, "The request body must be form-encoded: %v", err)
		return
	}
	switch t := strings.ToLower(tenant); {
	case t == "common" || t == "organizations":
		oauthError(w, http.StatusBadRequest, "invalid_request", 50059, "No tenant-identifying information found in either the request or implied by any provided credentials.")
		return
	case t != Tenant && t != adfs:
		oauthError(w, http.StatusBadRequest, "invalid_request", 90002, "Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant)
		return
	}
	f := r.PostForm
	if grant := f.Get("grant_type"); grant != "client_credentials" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", 70003, "The app requested an unsupported grant type '%s': the emulator's token service grants client_credentials only.", grant)
		return
	}
	clientID, secret, basic := r.BasicAuth()
	if !basic {
		clientID, secret = f.Get("client_id"), f.Get("client_secret")
	}
	if clientID == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", 900144, "The request body must contain the following parameter: 'client_id'.")
		return
	}
	if secret == "" && f.Get("client_assertion") == "" {
		oauthError(w, http.StatusUnauthorized, "invalid_client", 7000216, "'client_assertion', 'client_secret' or 'request' is required for the 'client_credentials' grant type.")
		return
	}
	audience, resource := f.Get("resource"), f.Get("resource") != ""
	if scope := f.Get("scope"); scope != "" || !resource {
		var ok bool
		if audience, ok = audienceOf(scope); !ok {
			oauthError(w, http.StatusBadRequest, "invalid_scope", 1002012, "The provided value for scope %s is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).", scope)
			return
		}
		resource = false
	}
	issuer := baseURL(r) + "/" + tenant + "/v2.0"
	if tenant == adfs {
		issuer = baseURL(r) + "/" + adfs
	}
	token, exp, err := s.Issuer.Issue(issuer, ForApplication(clientID), audience)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", 50000, "Issuing the token failed: %v", err)
		return
	}
	s.answerToken(w, token, exp, audience, clientID, scoped && !resource)
}

// answerToken answers an issued token: with numeric lifetimes for a
// scoped (v2) request, with the v1 string fields for a resource request.
func (s *Service) answerToken(w http.ResponseWriter, token string, exp time.Time, audience, clientID string, scoped bool) {
	lifetime := int(time.Until(exp).Seconds())
	if scoped {
		writeJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": lifetime, "ext_expires_in": lifetime, "access_token": token})
		return
	}
	out := map[string]any{
		"token_type": "Bearer", "expires_in": strconv.Itoa(lifetime), "ext_expires_in": strconv.Itoa(lifetime),
		"expires_on": strconv.FormatInt(exp.Unix(), 10), "not_before": strconv.FormatInt(exp.Add(-TokenLifetime).Unix(), 10),
		"resource": audience, "access_token": token,
	}
	if clientID != "" {
		out["client_id"] = clientID
	}
	writeJSON(w, http.StatusOK, out)
}

// managedIdentity answers the token request of a managed identity: the
// Azure Instance Metadata Service style (GET, header "Metadata: true") and
// the App Service style (header X-IDENTITY-HEADER, api-version 2019-08-01),
// and the Cloud Shell style (POST of a form, header "Metadata: true").
// client_id, object_id or mi_res_id (msi_res_id) pick a user-assigned
// identity; none picks the system-assigned one (ManagedIdentity).
func (s *Service) managedIdentity(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !strings.EqualFold(r.Header.Get("Metadata"), "true") && r.Header.Get("X-IDENTITY-HEADER") == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request", "error_description": "Required metadata header not specified"})
		return
	}
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request", "error_description": err.Error()})
		return
	}
	resource := r.Form.Get("resource")
	if resource == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request", "error_description": "Required audience parameter not specified"})
		return
	}
	p := ManagedIdentity
	clientID, objectID := r.Form.Get("client_id"), r.Form.Get("object_id")
	resourceID := r.Form.Get("mi_res_id")
	if resourceID == "" {
		resourceID = r.Form.Get("msi_res_id")
	}
	if clientID != "" || objectID != "" || resourceID != "" {
		found, ok := Principal{}, false
		if s.UserAssigned != nil {
			found, ok = s.UserAssigned(clientID, objectID, resourceID)
		}
		if !ok {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request", "error_description": "Identity not found"})
			return
		}
		p = found
	}
	token, exp, err := s.Issuer.Issue(baseURL(r)+"/"+Tenant+"/v2.0", p, strings.TrimSuffix(resource, "/.default"))
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "server_error", "error_description": err.Error()})
		return
	}
	s.answerToken(w, token, exp, resource, p.AppID, false)
}
