package importer

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/arm"
)

// listing is Azure as a Reader: one resource group whose listing holds
// what azk imports and what it refuses.
type listing struct {
	items  []string // the ARM IDs the group's listing names
	failed string   // the ARM ID whose read fails
}

func (l listing) Get(_ context.Context, id, _ string) (*arm.Response, error) {
	if strings.EqualFold(id, l.failed) {
		return nil, &arm.ResponseError{StatusCode: 403, Code: "AuthorizationFailed", Message: "no read access"}
	}
	body, _ := json.Marshal(map[string]any{"id": id, "location": "westus2"})
	return &arm.Response{StatusCode: 200, Body: body}, nil
}

func (l listing) List(_ context.Context, path, _ string) ([]json.RawMessage, error) {
	if !strings.EqualFold(path, rg+"/resources") {
		return nil, nil
	}
	var out []json.RawMessage
	for _, id := range l.items {
		item, _ := json.Marshal(map[string]any{"id": id})
		out = append(out, item)
	}
	return out, nil
}

// TestImportReportsWhatItLeavesOut: resources found below the import that
// azk refuses (an ARM ID it does not accept, a type no ASO kind manages) or
// cannot read are each reported as left out, apart from the skips the
// operator makes by design; before, those with refused names were dropped
// without a word (issue 22, item 6).
func TestImportReportsWhatItLeavesOut(t *testing.T) {
	vnet := rg + "/providers/Microsoft.Network/virtualNetworks/"
	az := listing{
		items: []string{
			vnet + "good",
			vnet + "with space",
			vnet + "per%cent",
			vnet + "unreadable",
			rg + "/providers/Microsoft.Fabrikam/widgets/w1",
			"/subscriptions/" + sub + "/resourceGroups/elsewhere/providers/Microsoft.Network/virtualNetworks/not below",
		},
		failed: vnet + "unreadable",
	}
	res, err := Import(context.Background(), []string{rg}, Options{Reader: az, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, r := range res.Resources {
		imported = append(imported, r.ID)
	}
	if want := []string{rg, vnet + "good"}; !reflect.DeepEqual(imported, want) {
		t.Errorf("imported %q, want %q", imported, want)
	}
	want := []LeftOut{
		{rg + "/providers/Microsoft.Fabrikam/widgets/w1", "no ASO kind manages Microsoft.Fabrikam/widgets resources", true},
		{vnet + "per%cent", "azk refuses its ARM ID: ", true},
		{vnet + "unreadable", "reading it: ", false},
		{vnet + "with space", "azk refuses its ARM ID: ", true},
	}
	if len(res.LeftOut) != len(want) {
		t.Fatalf("left out %+v, want %d", res.LeftOut, len(want))
	}
	for i, w := range want {
		got := res.LeftOut[i]
		if got.ID != w.ID || !strings.HasPrefix(got.Reason, w.Reason) || got.Unsupported != w.Unsupported {
			t.Errorf("left out %+v, want %+v", got, w)
		}
	}
	if len(res.Omitted) != 0 {
		t.Errorf("by-design omissions: %+v, want none", res.Omitted)
	}
}
