package identity

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
)

// graphPrefix is where the emulator serves its Microsoft Graph stand-in:
// a client whose Microsoft Graph endpoint is the emulator's URL (the Azure
// CLI's microsoftGraphResourceId) sends /v1.0/... there, a path no ARM
// request has.
const graphPrefix = "/v1.0/"

// GraphAudiences are the token audiences Microsoft Graph accepts; the
// emulator's own URL is accepted too, as a cloud whose Graph endpoint is
// the emulator asks for tokens of that audience.
var GraphAudiences = []string{"https://graph.microsoft.com/", "https://graph.microsoft.com", "00000003-0000-0000-c000-000000000000"}

// DefaultUserPrincipalName is the sign-in name of the Default principal,
// the emulator's one user.
const DefaultUserPrincipalName = "emulator@example.com"

// The filters the directory lookups of clients send: the Azure CLI finds a
// service principal's object ID by its name (its client ID) and a user's by
// its sign-in name.
var (
	spnFilter   = regexp.MustCompile(`^servicePrincipalNames/any\(c:c eq '([^']+)'\)$`)
	appIDFilter = regexp.MustCompile(`^appId eq '([^']+)'$`)
	upnFilter   = regexp.MustCompile(`^userPrincipalName eq '([^']+)'$`)
)

// serveGraph answers the few Microsoft Graph reads a client makes to learn
// who it is signed in as (az keyvault create grants its caller an access
// policy by object ID):
//
//	GET /v1.0/me                                                        the signed-in user; an application's token is refused as Graph refuses it
//	GET /v1.0/servicePrincipals?$filter=servicePrincipalNames/any(c:c eq '{appId}')   (or appId eq '{appId}')
//	GET /v1.0/users?$filter=userPrincipalName eq '{upn}'
//
// The directory it answers from is the token service's: every client ID is
// an application whose service principal ForApplication derives, the
// managed identities are the stored ones (UserAssigned) and ManagedIdentity,
// and the one user is Default. Anything else is refused by name rather
// than answered empty.
func (s *Service) serveGraph(w http.ResponseWriter, r *http.Request) {
	caller, ok := s.graphCaller(w, r)
	if !ok {
		return
	}
	if r.Method != http.MethodGet {
		graphError(w, r, http.StatusMethodNotAllowed, "Request_BadRequest", "The emulator's Microsoft Graph serves reads of the signed-in principal only.")
		return
	}
	filter := r.URL.Query().Get("$filter")
	switch strings.TrimPrefix(r.URL.Path, graphPrefix) {
	case "me":
		if caller.Type != "User" {
			graphError(w, r, http.StatusBadRequest, "BadRequest", "/me request is only valid with delegated authentication flow.")
			return
		}
		writeJSON(w, http.StatusOK, graphUser(caller))
	case "servicePrincipals":
		appID := ""
		if m := spnFilter.FindStringSubmatch(filter); m != nil {
			appID = m[1]
		} else if m := appIDFilter.FindStringSubmatch(filter); m != nil {
			appID = m[1]
		} else {
			graphError(w, r, http.StatusBadRequest, "Request_UnsupportedQuery", "The emulator's Microsoft Graph finds a service principal by $filter=servicePrincipalNames/any(c:c eq '{appId}') or appId eq '{appId}' only; got '%s'.", filter)
			return
		}
		writeGraphList(w, "servicePrincipals", []any{graphServicePrincipal(s.servicePrincipal(appID))})
	case "users":
		m := upnFilter.FindStringSubmatch(filter)
		if m == nil {
			graphError(w, r, http.StatusBadRequest, "Request_UnsupportedQuery", "The emulator's Microsoft Graph finds a user by $filter=userPrincipalName eq '{upn}' only; got '%s'.", filter)
			return
		}
		users := []any{}
		if strings.EqualFold(m[1], DefaultUserPrincipalName) {
			users = append(users, graphUser(Default))
		}
		writeGraphList(w, "users", users)
	default:
		segment, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, graphPrefix), "/")
		graphError(w, r, http.StatusBadRequest, "BadRequest", "Resource not found for the segment '%s'.", segment)
	}
}

// graphCaller verifies the request's bearer token as Graph does: one the
// token service issued, for Graph's audience or the emulator's URL. As on
// ARM's paths, a token that is not a JWT is the Default user.
func (s *Service) graphCaller(w http.ResponseWriter, r *http.Request) (Principal, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		graphError(w, r, http.StatusUnauthorized, "InvalidAuthenticationToken", "Access token is empty.")
		return Principal{}, false
	}
	if !IsJWT(token) {
		return Default, true
	}
	base := baseURL(r)
	p, err := s.Issuer.Verify(token, append([]string{base, base + "/"}, GraphAudiences...)...)
	if err != nil {
		msg := err.Error()
		if e, ok := err.(*Error); ok {
			msg = e.Message
		}
		graphError(w, r, http.StatusUnauthorized, "InvalidAuthenticationToken", "%s", msg)
		return Principal{}, false
	}
	return p, true
}

// servicePrincipal is the directory's service principal of an application
// (client) ID: a managed identity's where the ID is one, else the one the
// token service derives for any client ID.
func (s *Service) servicePrincipal(appID string) Principal {
	if strings.EqualFold(appID, ManagedIdentity.AppID) {
		return ManagedIdentity
	}
	if s.UserAssigned != nil {
		if p, ok := s.UserAssigned(appID, "", ""); ok {
			return p
		}
	}
	return ForApplication(appID)
}

func graphServicePrincipal(p Principal) map[string]any {
	return map[string]any{
		"id": p.ObjectID, "appId": p.AppID, "displayName": p.AppID, "accountEnabled": true,
		"servicePrincipalNames": []string{p.AppID}, "servicePrincipalType": "Application",
		"appOwnerOrganizationId": p.TenantID,
	}
}

func graphUser(p Principal) map[string]any {
	return map[string]any{
		"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#users/$entity",
		"id":             p.ObjectID, "userPrincipalName": DefaultUserPrincipalName, "displayName": "Emulator User",
		"mail": DefaultUserPrincipalName,
	}
}

func writeGraphList(w http.ResponseWriter, set string, items []any) {
	writeJSON(w, http.StatusOK, map[string]any{"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#" + set, "value": items})
}

// graphError answers an error in Microsoft Graph's shape.
func graphError(w http.ResponseWriter, r *http.Request, status int, code, format string, args ...any) {
	requestID := uuid.NewString()
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"code": code, "message": fmt.Sprintf(format, args...),
		"innerError": map[string]any{
			"date": time.Now().UTC().Format("2006-01-02T15:04:05"), "request-id": requestID,
			"client-request-id": r.Header.Get("client-request-id"),
		},
	}})
}
