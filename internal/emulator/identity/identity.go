// Package identity is the emulator's Microsoft Entra stand-in: who a request
// acts as (Principal), the tokens the emulator's token service issues
// (JWTs signed with a key of this process, published as a JWKS), and their
// verification. It is one of the emulator's lowest layers and imports
// nothing of it; the ARM core verifies tokens with it and the emulator
// serves its HTTP endpoints (service.go).
package identity

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Tenant is the Microsoft Entra tenant the emulator reports identities in,
// and the only tenant its token service issues tokens for.
const Tenant = "72f988bf-0000-4000-8000-000000000000"

// Principal is who a request acts as: the object ID, tenant and (for an
// application) application ID of its token.
type Principal struct {
	ObjectID string `json:"oid"`
	TenantID string `json:"tid"`
	// AppID is the application (client) ID; empty for a user.
	AppID string `json:"appid,omitempty"`
	// Type is "User" or "ServicePrincipal", as ARM's principalType spells them.
	Type string `json:"type"`
}

// Default is the principal of a request whose bearer token the emulator did
// not issue: an opaque token such as azk's own emulator credential sends.
// The emulator accepts those without checking them, as it always has, and
// treats the caller as this one user.
var Default = Principal{ObjectID: "0b5e3a42-7d1c-4e8a-9f6b-2c4d8e1a0f37", TenantID: Tenant, Type: "User"}

// ManagedIdentity is the principal of the managed-identity style token
// endpoint: the system-assigned identity of the machine the emulator stands for.
var ManagedIdentity = Principal{ObjectID: "5f1c9d2e-3b7a-4c6e-8d0f-1a2b3c4d5e6f", TenantID: Tenant, AppID: "8c2e7b14-6d3f-4a9e-b5c1-0e7f2d4a6b93", Type: "ServicePrincipal"}

// Audiences are the token audiences ARM accepts: its two resource IDs, with
// and without the trailing slash. The emulator's own URL is accepted too.
var Audiences = []string{
	"https://management.core.windows.net/", "https://management.core.windows.net",
	"https://management.azure.com/", "https://management.azure.com",
}

// appNamespace makes a service principal's object ID from its client ID, so
// that one application is the same principal in every token and restart.
var appNamespace = uuid.MustParse("6ba7b811-9dad-11d1-80b4-00c04fd430c8")

// ForApplication is the service principal of an application (client) ID.
func ForApplication(clientID string) Principal {
	return Principal{
		ObjectID: uuid.NewSHA1(appNamespace, []byte(Tenant+"/"+strings.ToLower(clientID))).String(),
		TenantID: Tenant, AppID: clientID, Type: "ServicePrincipal",
	}
}

// Issuer signs and verifies the emulator's tokens. Its RSA key is made on
// first use and lives as long as the process: it is a secret, so it is never
// written to the state, and tokens from an earlier run are refused.
type Issuer struct {
	once sync.Once
	key  *rsa.PrivateKey
	kid  string
	err  error
	now  func() time.Time
}

// NewIssuer returns an issuer; its key is made when first needed.
func NewIssuer() *Issuer { return &Issuer{now: time.Now} }

func (i *Issuer) signingKey() (*rsa.PrivateKey, error) {
	i.once.Do(func() {
		i.key, i.err = rsa.GenerateKey(rand.Reader, 2048)
		if i.err == nil {
			sum := sha256.Sum256(i.key.PublicKey.N.Bytes())
			i.kid = base64.RawURLEncoding.EncodeToString(sum[:16])
		}
	})
	return i.key, i.err
}

// TokenLifetime is how long an issued token is valid, as Entra's default.
const TokenLifetime = time.Hour

// claims are the claims of an issued token: Entra's access-token claims the
// clients and ARM read.
type claims struct {
	jwt.RegisteredClaims
	TenantID string `json:"tid"`
	ObjectID string `json:"oid"`
	AppID    string `json:"appid,omitempty"`
	AZP      string `json:"azp,omitempty"`
	IDType   string `json:"idtyp"`
	Version  string `json:"ver"`
}

// Issue returns a token for p with the given audience, issued by issuer (the
// token service's URL for the tenant), and when it expires.
func (i *Issuer) Issue(issuer string, p Principal, audience string) (string, time.Time, error) {
	key, err := i.signingKey()
	if err != nil {
		return "", time.Time{}, err
	}
	now := i.now().Truncate(time.Second)
	exp := now.Add(TokenLifetime)
	idType := "user"
	if p.Type == "ServicePrincipal" {
		idType = "app"
	}
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: issuer, Subject: p.ObjectID, Audience: jwt.ClaimStrings{audience},
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp),
			ID: uuid.NewString(),
		},
		TenantID: p.TenantID, ObjectID: p.ObjectID, AppID: p.AppID, AZP: p.AppID, IDType: idType, Version: "2.0",
	}
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	t.Header["kid"] = i.kid
	s, err := t.SignedString(key)
	return s, exp, err
}

// IsJWT reports whether a bearer token is JWT-shaped (three base64url parts
// whose first is a JSON header naming an algorithm): such a token must
// verify; any other token is one the emulator accepts without checking.
func IsJWT(token string) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	head, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return false
	}
	var h struct {
		Alg string `json:"alg"`
	}
	return json.Unmarshal(head, &h) == nil && h.Alg != ""
}

// Error is why a token was refused, with ARM's error code for it.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// errForeignKey is a token signed with a key other than the issuer's.
var errForeignKey = errors.New("not signed by this emulator")

// Verify checks a JWT the way ARM does: signed by this issuer's key,
// not expired, for one of the accepted audiences (Audiences, plus extra),
// in the emulator's tenant. It returns the token's principal.
func (i *Issuer) Verify(token string, extra ...string) (Principal, error) {
	key, err := i.signingKey()
	if err != nil {
		return Principal{}, err
	}
	var c claims
	_, err = jwt.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		if kid, _ := t.Header["kid"].(string); kid != i.kid {
			return nil, errForeignKey
		}
		return &key.PublicKey, nil
	}, jwt.WithValidMethods([]string{jwt.SigningMethodRS256.Alg()}), jwt.WithTimeFunc(i.now), jwt.WithExpirationRequired())
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return Principal{}, &Error{Code: "ExpiredAuthenticationToken", Message: fmt.Sprintf(
			"The access token expiry UTC time '%s' is earlier than current UTC time '%s'.", expiry(c), i.now().UTC().Format(time.RFC1123))}
	case errors.Is(err, errForeignKey):
		return Principal{}, &Error{Code: "InvalidAuthenticationToken", Message: "The access token is invalid: this emulator's token service did not sign it (a token of an earlier run of the emulator is refused: sign in again)."}
	case err != nil:
		return Principal{}, &Error{Code: "InvalidAuthenticationToken", Message: "The access token is invalid: " + err.Error()}
	}
	allowed := append(slices.Clone(Audiences), extra...)
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(allowed, a) }) {
		return Principal{}, &Error{Code: "InvalidAuthenticationTokenAudience", Message: fmt.Sprintf(
			"The access token has been obtained for wrong audience or resource '%s'. It should exactly match with one of the allowed audiences '%s'.",
			strings.Join(c.Audience, ","), strings.Join(allowed, "','"))}
	}
	if c.TenantID != Tenant {
		return Principal{}, &Error{Code: "InvalidAuthenticationTokenTenant", Message: fmt.Sprintf(
			"The access token is from the wrong issuer '%s'. It must match the tenant '%s' associated with this subscription.", c.Issuer, Tenant)}
	}
	p := Principal{ObjectID: c.ObjectID, TenantID: c.TenantID, AppID: c.AppID, Type: "User"}
	if c.IDType == "app" {
		p.Type = "ServicePrincipal"
	}
	return p, nil
}

func expiry(c claims) string {
	if c.ExpiresAt == nil {
		return ""
	}
	return c.ExpiresAt.UTC().Format(time.RFC1123)
}

// JWKS is the JSON Web Key Set publishing the issuer's public key.
func (i *Issuer) JWKS() (map[string]any, error) {
	key, err := i.signingKey()
	if err != nil {
		return nil, err
	}
	pub := key.PublicKey
	return map[string]any{"keys": []map[string]any{{
		"kty": "RSA", "use": "sig", "alg": "RS256", "kid": i.kid,
		"n": base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes()),
	}}}, nil
}
