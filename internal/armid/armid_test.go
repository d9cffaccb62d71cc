package armid

import (
	"net/url"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

const sub = "00000000-0000-0000-0000-000000000001"

func TestParseAcceptsTheFormsAzkUses(t *testing.T) {
	for _, tc := range []struct {
		in, typ, name string
	}{
		{"/subscriptions/" + sub, "Microsoft.Resources/subscriptions", sub},
		{"/subscriptions/" + sub + "/resourceGroups/rg-1_(a).b", "Microsoft.Resources/resourceGroups", "rg-1_(a).b"},
		{"/subscriptions/" + sub + "/resourcegroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/web", "Microsoft.Network/virtualNetworks/subnets", "web"},
		{"/subscriptions/" + sub + "/providers/Microsoft.KeyVault/locations/westus2/deletedVaults/kv", "Microsoft.KeyVault/locations/deletedVaults", "kv"},
		{"/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c", "Microsoft.Authorization/roleDefinitions", "b24988ac-6180-42a0-ab88-20f7382dd24c"},
		{"/providers/Microsoft.Subscription/aliases/my-alias", "Microsoft.Subscription/aliases", "my-alias"},
		{"/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa/providers/Microsoft.Authorization/roleAssignments/ra", "Microsoft.Authorization/roleAssignments", "ra"},
		{"/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Web/sites/app:staging", "Microsoft.Web/sites", "app:staging"},
	} {
		id, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if id.Type() != tc.typ || id.Name() != tc.name {
			t.Errorf("Parse(%q): type %q name %q, want %q %q", tc.in, id.Type(), id.Name(), tc.typ, tc.name)
		}
		if !strings.EqualFold(id.String(), tc.in) {
			t.Errorf("Parse(%q).String() = %q", tc.in, id.String())
		}
	}
}

// TestParseRejectsInjection: every segment is checked for its place, so no
// value can end the path (?, #), escape it (%, /, ..) or hide in whitespace.
func TestParseRejectsInjection(t *testing.T) {
	rg := "/subscriptions/" + sub + "/resourceGroups/"
	for _, in := range []string{
		rg + "victim-rg?api-version=2020-06-01&x=",
		rg + "victim-rg#x",
		rg + "victim%2Frg",
		rg + "victim rg",
		rg + "rg.",
		rg + strings.Repeat("a", 91),
		rg + "rg/providers/Microsoft.Network/virtualNetworks/v?api-version=1",
		rg + "rg/providers/Microsoft.Network/virtualNetworks/..",
		rg + "rg/providers/Microsoft.Network/virtualNetworks/a\tb",
		rg + "rg/providers/Microsoft.Network/virtualNetworks/a\x00b",
		rg + "rg/providers/Microsoft.Network/virtualNetworks/a\\b",
		rg + "rg/providers/Microsoft.Network/virtualNetworks/a\u00a0b",
		rg + "rg/providers/Microsoft.Network/virtualNetworks/\xff",
		rg + "rg/providers/Microsoft.Network/virtual%4etworks/v",
		rg + "rg/providers/Microsoft.Network/virtualNetworks",
		rg + "rg/providers/Microsoft.Network/virtualNetworks/v/",
		rg + "rg//providers/Microsoft.Network/virtualNetworks/v",
		rg + "rg/providers/Microsoft..Network/virtualNetworks/v",
		rg + "rg/something/else",
		"/subscriptions/not-a-guid/resourceGroups/rg",
		"/subscriptions/" + sub + "?x=1",
		"/subscriptions/" + SubscriptionPlaceholder + "/resourceGroups/rg",
		"subscriptions/" + sub,
		"/",
		"",
		"https://management.azure.com/subscriptions/" + sub,
	} {
		if id, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted it as %q", in, id.String())
		}
	}
}

func TestParseOfflineAcceptsOnlyThePlaceholder(t *testing.T) {
	if _, err := ParseOffline("/subscriptions/" + SubscriptionPlaceholder + "/resourceGroups/rg"); err != nil {
		t.Error(err)
	}
	if _, err := ParseOffline("/subscriptions/{other}/resourceGroups/rg"); err == nil {
		t.Error("a placeholder other than " + SubscriptionPlaceholder + " was accepted")
	}
}

func TestPathEscapesEverySegment(t *testing.T) {
	id, err := Parse("/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Web/sites/app:ü&x=1")
	if err != nil {
		t.Fatal(err)
	}
	want := "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Web/sites/" + url.PathEscape("app:ü&x=1")
	if id.Path() != want {
		t.Errorf("Path() = %q, want %q", id.Path(), want)
	}
	u, err := url.Parse("https://example.test" + id.Path())
	if err != nil || u.Path != id.String() || u.RawQuery != "" || u.Fragment != "" {
		t.Errorf("the escaped path reads back as path %q query %q fragment %q (%v)", u.Path, u.RawQuery, u.Fragment, err)
	}
}

func TestParsePathCollectionsAndActions(t *testing.T) {
	for in, want := range map[string]string{
		"/subscriptions/" + sub + "/resourceGroups/rg/resources":                                             "/subscriptions/" + sub + "/resourceGroups/rg",
		"/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions":                       "/subscriptions/" + sub,
		"/subscriptions/" + sub + "/providers/Microsoft.KeyVault/locations/westus/deletedVaults/kv/purge":    "/subscriptions/" + sub + "/providers/Microsoft.KeyVault/locations/westus/deletedVaults/kv",
		"/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets": "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v",
	} {
		id, tail, err := ParsePath(in)
		if err != nil {
			t.Errorf("ParsePath(%q): %v", in, err)
			continue
		}
		if id.String() != want || id.PathWith(tail) != in {
			t.Errorf("ParsePath(%q) = %q + %q, path %q", in, id.String(), tail, id.PathWith(tail))
		}
	}
	for _, in := range []string{
		"/subscriptions/" + sub + "/resourceGroups/rg/resources?$filter=x",
		"/subscriptions/" + sub + "/resourceGroups/rg/res%20ources",
		"/subscriptions/" + sub + "/resourceGroups/rg?x/resources",
	} {
		if _, _, err := ParsePath(in); err == nil {
			t.Errorf("ParsePath(%q) accepted it", in)
		}
	}
}

func TestBuildChecksEachSegment(t *testing.T) {
	rg, err := ResourceGroup(sub, "rg")
	if err != nil {
		t.Fatal(err)
	}
	vnet, err := rg.Resource("Microsoft.Network/virtualNetworks", "vnet")
	if err != nil {
		t.Fatal(err)
	}
	subnet, err := vnet.Child("subnets", "web")
	if err != nil || subnet.String() != "/subscriptions/"+sub+"/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/web" {
		t.Fatalf("%v %v", subnet, err)
	}
	if vnet.String() != "/subscriptions/"+sub+"/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet" {
		t.Errorf("Child changed its parent: %s", vnet)
	}
	for _, bad := range []func() error{
		func() error { _, err := ResourceGroup(sub, "victim?x="); return err },
		func() error { _, err := ResourceGroup("nope", "rg"); return err },
		func() error { _, err := rg.Resource("Microsoft.Network/virtualNetworks", "a/b"); return err },
		func() error { _, err := rg.Resource("Microsoft.Network", "a"); return err },
		func() error { _, err := vnet.Child("subnets", ".."); return err },
		func() error { _, err := rg.Child("subnets", "web"); return err },
	} {
		if bad() == nil {
			t.Error("an invalid segment was accepted")
		}
	}
}

// TestRegistryTypesAreValid: every ARM type azk knows builds IDs this package accepts.
func TestRegistryTypesAreValid(t *testing.T) {
	reg := registry.Default()
	for _, gvk := range reg.All() {
		k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if !ok || !k.IsARM() {
			continue
		}
		for _, seg := range strings.Split(k.ARMType, "/")[1:] {
			if reason := checkType(seg); reason != "" {
				t.Errorf("%s: %s", gvk.Kind, reason)
			}
		}
		if reason := checkNamespace(strings.Split(k.ARMType, "/")[0]); reason != "" {
			t.Errorf("%s: %s", gvk.Kind, reason)
		}
	}
}

// TestSubscriptionOf: the subscription segment as written, with or without
// the leading slash; none for a tenant's or a management group's resource.
func TestSubscriptionOf(t *testing.T) {
	for id, want := range map[string]string{
		"/subscriptions/AbC/resourceGroups/rg":                "AbC",
		"subscriptions/abc":                                   "abc",
		"/SUBSCRIPTIONS/abc/":                                 "abc",
		"/providers/Microsoft.Management/managementGroups/mg": "",
		"/providers/Microsoft.Subscription/aliases/a":         "",
		"": "",
	} {
		if got := SubscriptionOf(id); got != want {
			t.Errorf("SubscriptionOf(%q) = %q, want %q", id, got, want)
		}
	}
}
