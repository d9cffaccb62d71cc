package emulator

import (
	"net/http"
	"testing"
)

// The ARM APIs and answers of issue 40 items 3 and 4, each over real HTTP.

// TestGenericPathWithEmptyParentPath: `az resource show|create|update|delete
// -g G -n N --resource-type NS/type` sends providers/NS//type/N (an empty
// parent path), which ARM serves as providers/NS/type/N.
func TestGenericPathWithEmptyParentPath(t *testing.T) {
	c := startWithGroup(t, Options{})
	const canonical = rgID + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	const cliForm = rgID + "/providers/Microsoft.Network//virtualNetworks/vnet1"
	body := map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}}
	created := c.mustPut(cliForm, body)
	if created["id"] != canonical {
		t.Errorf("created through the CLI's form, the ID is %v, want %s", created["id"], canonical)
	}
	for _, path := range []string{canonical, cliForm} {
		resp, got := c.do(http.MethodGet, path+api, nil)
		mustStatus(t, resp, got, http.StatusOK)
		if got["id"] != canonical {
			t.Errorf("GET %s: id %v", path, got["id"])
		}
	}
	// az resource tag and update send a PATCH (or a PUT) on the same form.
	resp, patched := c.do(http.MethodPatch, cliForm+api, map[string]any{"tags": map[string]any{"env": "test"}})
	mustStatus(t, resp, patched, http.StatusOK)
	resp, got := c.do(http.MethodGet, canonical+api, nil)
	mustStatus(t, resp, got, http.StatusOK)
	if tags, _ := got["tags"].(map[string]any); tags["env"] != "test" {
		t.Errorf("the PATCH through the CLI's form did not tag the resource: %v", got["tags"])
	}
	// A child type under the empty parent path is no top-level type: refused as ARM refuses an unknown path.
	resp, got = c.do(http.MethodGet, rgID+"/providers/Microsoft.Network//virtualNetworks//subnets/s1"+api, nil)
	mustStatus(t, resp, got, http.StatusNotFound)
	resp = c.send(http.MethodDelete, cliForm+api, nil)
	if _, err := c.pollUntilDone(resp); err != nil {
		t.Fatalf("DELETE through the CLI's form: %v", err)
	}
	resp, got = c.do(http.MethodGet, canonical+api, nil)
	mustStatus(t, resp, got, http.StatusNotFound)
}
