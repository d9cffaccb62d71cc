package providers

import (
	"net/http"

	"github.com/azkcli/azk/internal/emulator/armcore"
	emuidentity "github.com/azkcli/azk/internal/emulator/identity"
)

// DefaultPrincipal is the object ID of the caller whose bearer token names no
// principal of the emulator's token service (azk's own emulator credential,
// any other token): the identity package's Default.
var DefaultPrincipal = emuidentity.Default.ObjectID

// principalOf is the object ID of the request's caller, as the core
// authenticated it (armcore.PrincipalOf): the principal of a token the
// emulator's token service issued, else DefaultPrincipal.
func principalOf(r *http.Request) string {
	if p, ok := armcore.PrincipalOf(r); ok && p.ObjectID != "" {
		return p.ObjectID
	}
	return DefaultPrincipal
}
