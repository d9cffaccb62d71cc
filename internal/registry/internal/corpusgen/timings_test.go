package corpusgen

import (
	"slices"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
)

func interaction(method, url string, code int, headers map[string][]string, body string) corpus.Interaction {
	var in corpus.Interaction
	in.Request.Method, in.Request.URL = method, url
	in.Response.Code, in.Response.Headers, in.Response.Body = code, headers, body
	return in
}

// TestTimingsFollowPolls: an operation's timing is the sum of the waits its
// answers asked for (the SDKs' default where none), up to the poll that saw
// it succeed; failed operations, a 201's Location and operations the
// recording leaves unfinished are not timings.
func TestTimingsFollowPolls(t *testing.T) {
	const (
		rg  = "https://management.azure.com/subscriptions/s/resourceGroups/rg"
		op  = "https://management.azure.com/subscriptions/s/providers/Microsoft.Network/locations/w/operations/1?api-version=x&sig=y"
		op2 = "https://management.azure.com/subscriptions/s/providers/Microsoft.Network/locations/w/operations/2?api-version=x"
		loc = "https://management.azure.com/subscriptions/s/providers/Microsoft.Storage/locations/w/asyncoperations/3?api-version=x"
	)
	vnet := rg + "/providers/Microsoft.Network/virtualNetworks/v?api-version=x"
	sa := rg + "/providers/Microsoft.Storage/storageAccounts/sa?api-version=x"
	id := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i?api-version=x"
	h := func(kv ...string) map[string][]string {
		m := map[string][]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = []string{kv[i+1]}
		}
		return m
	}
	rec := recording{name: "r.yaml", Recording: &corpus.Recording{Interactions: []corpus.Interaction{
		interaction("PUT", vnet, 201, h("Azure-AsyncOperation", op, "Retry-After", "10"), "{}"),
		interaction("PUT", sa, 202, h("Location", loc, "Retry-After", "17"), ""),
		interaction("PUT", id, 201, h("Location", "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i"), "{}"),
		interaction("GET", op, 200, h("Retry-After", "20"), `{"status": "InProgress"}`),
		interaction("GET", loc, 202, h("Retry-After", "3"), ""),
		interaction("GET", op, 200, nil, `{"status":"InProgress"}`),
		interaction("GET", loc, 200, nil, `{"id":"sa"}`),
		interaction("GET", op, 200, nil, `{"status":"Succeeded"}`),
		interaction("GET", id, 200, nil, `{"id":"i"}`),
		interaction("PUT", vnet, 200, h("Azure-AsyncOperation", op2), "{}"),
		interaction("GET", op2, 200, nil, `{"status":"Failed"}`),
		interaction("DELETE", rg+"?api-version=x", 202, h("Location", rg+"/operationresults/4", "Retry-After", "15"), ""),
	}}}
	tbl := armTypeTable{}
	tbl.timings(rec)
	vn := timing(tbl.get("Microsoft.Network/virtualNetworks").ops[verbCreate])
	if vn == nil || vn.Seconds != 10+20+30 || !slices.Equal(vn.RetryAfter, []int{10, 20, 0}) || vn.Operations != 1 {
		t.Errorf("virtual network create timing: %+v", vn)
	}
	if up := tbl.get("Microsoft.Network/virtualNetworks").ops[verbUpdate]; len(up) != 0 {
		t.Errorf("a failed update was timed: %+v", up)
	}
	if st := timing(tbl.get("Microsoft.Storage/storageAccounts").ops[verbCreate]); st == nil || st.Seconds != 20 || !slices.Equal(st.RetryAfter, []int{17, 3}) {
		t.Errorf("storage account create timing: %+v", st)
	}
	if ops := tbl.get("Microsoft.ManagedIdentity/userAssignedIdentities").ops[verbCreate]; len(ops) != 0 {
		t.Errorf("a 201's Location was followed as an operation: %+v", ops)
	}
	if ops := tbl.get("Microsoft.Resources/resourceGroups").ops[verbDelete]; len(ops) != 0 {
		t.Errorf("an operation the recording leaves unfinished was timed: %+v", ops)
	}
}

// TestTimingIsTheMedianOperation: the median operation's duration and hints,
// so one slow run does not make a type look slow.
func TestTimingIsTheMedianOperation(t *testing.T) {
	got := timing([]recordedOp{{hints: []int{3, 3}}, {hints: []int{3}}, {hints: []int{3, 3, 3, 3, 3, 3}}})
	if got.Seconds != 6 || !slices.Equal(got.RetryAfter, []int{3, 3}) || got.Operations != 3 {
		t.Errorf("median timing: %+v", got)
	}
	if got := timing([]recordedOp{{hints: []int{0, 0}}}); got.Seconds != 60 || got.RetryAfter != nil {
		t.Errorf("timing without hints: %+v", got)
	}
	if timing(nil) != nil {
		t.Error("a timing without operations")
	}
}
