package armid_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/armid"
)

// FuzzParse: whatever ParsePath accepts names exactly the resource it parsed
// to. Its escaped path reads back as the same segments, with no query,
// fragment, empty or relative segment; and the ID it prints parses to itself.
func FuzzParse(f *testing.F) {
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000000"
	for _, s := range []string{
		sub,
		sub + "/resourceGroups/victim-rg?api-version=2020-06-01&x=",
		sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/web",
		sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v%3Fx",
		sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/..",
		sub + "/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa/providers/Microsoft.Authorization/roleAssignments/ra",
		sub + "/providers/Microsoft.KeyVault/locations/westus/deletedVaults/kv/purge",
		sub + "/providers/Microsoft.Authorization/roleDefinitions",
		"/providers/Microsoft.Subscription/aliases/a",
		"/providers/Microsoft.Authorization/roleDefinitions",
	} {
		f.Add(s)
	}
	for _, p := range recordedPaths(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, tail, err := armid.ParsePath(s)
		if err != nil {
			return
		}
		path := id.PathWith(tail)
		u, err := url.Parse("https://arm.test" + path)
		if err != nil {
			t.Fatalf("%q: the built path %q does not parse: %v", s, path, err)
		}
		if u.RawQuery != "" || u.Fragment != "" || u.Host != "arm.test" {
			t.Fatalf("%q: the built path %q has host %q query %q fragment %q", s, path, u.Host, u.RawQuery, u.Fragment)
		}
		segs := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
		for _, seg := range segs {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("%q: the built path %q has the segment %q", s, path, seg)
			}
		}
		if !strings.EqualFold(u.Path, s) {
			t.Fatalf("%q: the built path %q names %q", s, path, u.Path)
		}
		if len(tail) > 0 {
			return
		}
		again, err := armid.Parse(id.String())
		if err != nil || again.String() != id.String() || again.Type() != id.Type() || again.Name() != id.Name() {
			t.Fatalf("%q: printed as %q, which parses as %q (%v)", s, id.String(), again.String(), err)
		}
	})
}
