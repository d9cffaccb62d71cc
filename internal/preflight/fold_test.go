package preflight

import (
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// TestFoldIntoRegistration: validate's MissingSubscriptionRegistration
// follows from the providers check's finding of the same subscription and
// namespace, told by the resource's ID or, for a refusal about a template's
// scope, by the namespace its message names; a refusal of another
// namespace, subscription or code stands on its own.
func TestFoldIntoRegistration(t *testing.T) {
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000001"
	unregistered := registrationFindings([]planner.Finding{
		{Check: "providers", Code: "ProviderWillBeRegistered", ARMID: sub + "/resourceGroups/app/providers/Microsoft.ManagedIdentity/userAssignedIdentities/a"},
		{Check: "providers", Code: "LocationNotOffered", ARMID: sub + "/resourceGroups/app/providers/Microsoft.Network/virtualNetworks/v"},
	})
	missing := func(id, message string) planner.Finding {
		return planner.Finding{Check: "validate", Code: "MissingSubscriptionRegistration", ARMID: id, Message: message}
	}
	cases := []struct {
		f    planner.Finding
		want bool
	}{
		{missing(sub+"/resourceGroups/app/providers/Microsoft.ManagedIdentity/userAssignedIdentities/b", ""), true},
		{missing(sub+"/resourceGroups/app", "The subscription is not registered to use namespace 'Microsoft.ManagedIdentity'."), true},
		{missing(sub+"/resourceGroups/app/providers/Microsoft.Network/virtualNetworks/v", ""), false},
		{missing("/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/app/providers/Microsoft.ManagedIdentity/userAssignedIdentities/b", ""), false},
		{planner.Finding{Check: "validate", Code: "InvalidRequestContent", ARMID: sub + "/resourceGroups/app/providers/Microsoft.ManagedIdentity/userAssignedIdentities/b"}, false},
	}
	for _, c := range cases {
		if got := followsFromRegistration(c.f, unregistered); got != c.want {
			t.Errorf("%s %s %q: folded %v, want %v", c.f.Code, c.f.ARMID, c.f.Message, got, c.want)
		}
	}
}
