package identity

import (
	"errors"
	"testing"
	"time"
)

// TestVerifyAsARM: a token verifies while it is valid and for ARM's
// audience; after it expires it is ExpiredAuthenticationToken, for another
// audience InvalidAuthenticationTokenAudience, from another issuer's key
// InvalidAuthenticationToken, as ARM answers them.
func TestVerifyAsARM(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	iss := NewIssuer()
	iss.now = func() time.Time { return now }
	app := ForApplication("Client-1")
	if app.ObjectID != ForApplication("client-1").ObjectID || app.ObjectID == ForApplication("client-2").ObjectID {
		t.Errorf("an application's principal is one per client ID: %+v", app)
	}
	token, exp, err := iss.Issue("https://emulator/"+Tenant+"/v2.0", app, "https://management.core.windows.net/")
	if err != nil || !exp.Equal(now.Add(TokenLifetime)) || !IsJWT(token) || IsJWT("azk-emulator") {
		t.Fatalf("issue: %v %v", exp, err)
	}
	if p, err := iss.Verify(token); err != nil || p != app {
		t.Errorf("valid token: %+v %v", p, err)
	}
	code := func(err error) string {
		var e *Error
		if errors.As(err, &e) {
			return e.Code
		}
		return ""
	}
	vault, _, _ := iss.Issue("https://emulator/"+Tenant+"/v2.0", app, "https://vault.azure.net")
	if _, err := iss.Verify(vault); code(err) != "InvalidAuthenticationTokenAudience" {
		t.Errorf("vault token: %v", err)
	}
	if _, err := iss.Verify(vault, "https://vault.azure.net"); err != nil {
		t.Errorf("an extra accepted audience: %v", err)
	}
	if _, err := NewIssuer().Verify(token); code(err) != "InvalidAuthenticationToken" {
		t.Errorf("another issuer's token: %v", err)
	}
	now = now.Add(TokenLifetime + time.Minute)
	if _, err := iss.Verify(token); code(err) != "ExpiredAuthenticationToken" {
		t.Errorf("expired token: %v", err)
	}
}
