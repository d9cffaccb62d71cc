package suggest

import "testing"

func TestNearest(t *testing.T) {
	candidates := []string{"addressPrefix", "addressPrefixes", "networkSecurityGroup", "routeTable", "VirtualNetwork", "VirtualNetworksSubnet"}
	for word, want := range map[string]string{
		"adressPrefix":         "addressPrefix",        // a letter left out
		"addresPrefixes":       "addressPrefixes",      // nearer the plural than the singular
		"netwokrSecurityGroup": "networkSecurityGroup", // neighbours swapped
		"ROUTETABLE":           "routeTable",           // case alone
		"virtualnetwrok":       "VirtualNetwork",
		"location":             "", // nothing near
		"rt":                   "", // too short to guess
	} {
		if got := Nearest(word, candidates); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", word, got, want)
		}
	}
}
