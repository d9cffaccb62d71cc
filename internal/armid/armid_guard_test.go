package armid

import (
	"fmt"
	"strings"
	"testing"
)

// TestParseRejectsRefusedCharactersInEveryNameSegment: ARM refuses ? # % \
// in names, and in a request path each would end the path (? starts the
// query, # the fragment, so the request names the resource before it) or
// escape it. Every place a name stands is checked, not only the resource
// group's, which has a stricter rule of its own.
func TestParseRejectsRefusedCharactersInEveryNameSegment(t *testing.T) {
	rg := "/subscriptions/" + sub + "/resourceGroups/rg"
	places := map[string]string{
		"resource name":                   rg + "/providers/Microsoft.Network/virtualNetworks/%s",
		"child resource name":             rg + "/providers/Microsoft.Network/virtualNetworks/vnet/subnets/%s",
		"grandchild resource name":        rg + "/providers/Microsoft.Storage/storageAccounts/sa/blobServices/default/containers/%s",
		"parent name before a child":      rg + "/providers/Microsoft.Network/virtualNetworks/%s/subnets/web",
		"extension resource name":         rg + "/providers/Microsoft.Storage/storageAccounts/sa/providers/Microsoft.Authorization/roleAssignments/%s",
		"name under an extension's scope": rg + "/providers/Microsoft.Storage/storageAccounts/%s/providers/Microsoft.Authorization/roleAssignments/ra",
		"subscription-level name":         "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/%s",
		"tenant-level name":               "/providers/Microsoft.Subscription/aliases/%s",
	}
	for place, pattern := range places {
		valid := strings.Replace(pattern, "%s", "victim", 1)
		if _, err := Parse(valid); err != nil {
			t.Fatalf("%s: the valid ID %q is refused: %v", place, valid, err)
		}
		for _, r := range []string{"#", "?", "%", `\`} {
			for _, name := range []string{"victim" + r + "x", r + "victim", "victim" + r} {
				in := strings.Replace(pattern, "%s", name, 1)
				for parse, f := range map[string]func(string) (ID, error){"Parse": Parse, "ParseOffline": ParseOffline} {
					id, err := f(in)
					if err == nil {
						t.Errorf("%s: %s(%q) accepted %q in a name, as %q", place, parse, in, r, id.String())
						continue
					}
					if want := fmt.Sprintf("contains %q", []rune(r)[0]); !strings.Contains(err.Error(), want) {
						t.Errorf("%s: %s(%q) refused it without naming %q: %v", place, parse, in, r, err)
					}
				}
				if _, _, err := ParsePath(in + "/subnets"); err == nil {
					t.Errorf("%s: ParsePath accepted %q in a name followed by a collection", place, r)
				}
			}
		}
	}
}
