package emulator

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// TestReplayCorpusRecordings sends the PUT, GET and DELETE requests of real
// recordings to the emulator, in order, and compares the envelope of each
// answer with what ARM answered: status code, the long-running operation
// headers, id/name/type, provisioningState and error code. The emulator is
// configured the way ARM behaved for each type (which types answered with
// Azure-AsyncOperation); everything else is the emulator's own behaviour.
// Skipped interactions: operation polls (the emulator's operation URLs are
// its own and are polled instead), lists, and answers ARM gave for reasons
// outside the emulator's model (429 throttling, 400 validation, 409 and 404
// from a resource provider's own checks on PUT).
func TestReplayCorpusRecordings(t *testing.T) {
	dir := filepath.Join(corpus.Dir(t), "recordings")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("ASO corpus recordings not found at %s (set AZK_CORPUS): %v", dir, err)
	}
	for _, name := range []string{
		"Test_Network_v1api20201101_CreationAndDeletion.yaml",
		"Test_Managedidentity_v1api20230131_CreationAndDeletion.yaml",
		"Test_Managedidentity_v1api20181130_CreationAndDeletion.yaml",
	} {
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) { replay(t, filepath.Join(dir, name)) })
	}
}

func replay(t *testing.T, file string) {
	cas, err := corpus.ReadRecording(file)
	if err != nil {
		t.Skipf("recording not available: %v", err)
	}
	// Configure long-running writes for the types whose first successful PUT
	// ARM answered that way.
	lro := []LRORule{{Type: armpath.TypeResourceGroup, Delete: time.Millisecond}}
	seen := map[string]bool{}
	for _, it := range cas.Interactions {
		u, err := url.Parse(it.Request.URL)
		if err != nil || it.Request.Method != http.MethodPut || it.Response.Code >= 300 {
			continue
		}
		tg, ok := armpath.Parse(u.Path)
		if !ok || seen[strings.ToLower(tg.Type)] {
			continue
		}
		seen[strings.ToLower(tg.Type)] = true
		if header(it.Response.Headers, "Azure-AsyncOperation") != "" {
			lro = append(lro, LRORule{Type: tg.Type, Write: time.Millisecond})
		}
	}
	c := start(t, Options{LRO: lro}, false)

	compared := 0
	for i, it := range cas.Interactions {
		req, want := it.Request, it.Response
		u, err := url.Parse(req.URL)
		if err != nil {
			t.Fatal(err)
		}
		lp := strings.ToLower(u.Path)
		switch {
		case req.Method != http.MethodPut && req.Method != http.MethodGet && req.Method != http.MethodDelete,
			strings.Contains(lp, "/operations/"), strings.Contains(lp, "/operationresults/"),
			want.Code == 429, want.Code == 400, req.Method == http.MethodPut && (want.Code == 409 || want.Code == 404):
			continue
		}
		if tg, ok := armpath.Parse(u.Path); !ok || tg.Kind != armpath.Resource {
			continue
		}
		var body any
		if req.Body != "" {
			body = req.Body
		}
		resp, got := c.do(req.Method, u.RequestURI(), body)
		where := req.Method + " " + u.Path + " (interaction " + strconv.Itoa(i) + ")"
		compared++
		if resp.StatusCode != want.Code {
			t.Errorf("%s: status %d, ARM answered %d\n  emulator: %v\n  ARM: %.300s", where, resp.StatusCode, want.Code, got, want.Body)
			continue
		}
		for _, h := range []string{"Azure-AsyncOperation", "Location"} {
			if req.Method == http.MethodPut && h == "Location" {
				continue // some providers send the resource URL as Location on PUT; it carries nothing to poll
			}
			if (resp.Header.Get(h) != "") != (header(want.Headers, h) != "") {
				t.Errorf("%s: header %s present=%v, ARM present=%v", where, h, resp.Header.Get(h) != "", header(want.Headers, h) != "")
			}
		}
		if header(want.Headers, "Azure-AsyncOperation") != "" || want.Code == http.StatusAccepted {
			if resp.Header.Get("Retry-After") == "" {
				t.Errorf("%s: no Retry-After on a long-running answer", where)
			}
		}
		var armBody map[string]any
		_ = json.Unmarshal([]byte(want.Body), &armBody)
		if want.Code >= 400 {
			if errorCode(got) != errorCode(armBody) && !sameMissingAncestor(errorCode(got), errorCode(armBody)) {
				t.Errorf("%s: error code %q, ARM %q", where, errorCode(got), errorCode(armBody))
			}
		} else if armBody != nil {
			for _, f := range []string{"id", "name", "type"} {
				// ARM IDs are case-insensitive; some providers lower-case "resourcegroups".
				if armBody[f] != nil && !strings.EqualFold(str(got[f]), str(armBody[f])) {
					t.Errorf("%s: %s = %v, ARM %v", where, f, got[f], armBody[f])
				}
			}
			if header(want.Headers, "Azure-AsyncOperation") == "" {
				compareProvisioningState(t, where, req.Method, provisioningState(got), provisioningState(armBody))
			}
		}
		waitForOperation(t, c, resp)
	}
	if compared < 5 {
		t.Fatalf("only %d interactions compared; the recording does not exercise the emulator", compared)
	}
	t.Logf("compared %d interactions", compared)
}

// compareProvisioningState compares the state of answers without a running
// operation (with one, ARM's body races the operation): terminal states must be equal. ARM's in-progress
// names vary by provider ("Updating" for a new network resource), so an
// in-progress PUT answer only has to be in progress too; a GET that caught a
// real operation mid-way is timing, not behaviour, and is not compared.
func compareProvisioningState(t *testing.T, where, method, got, want string) {
	t.Helper()
	terminal := func(s string) bool { return s == "Succeeded" || s == "Failed" || s == "Canceled" }
	switch {
	case want == "":
	case terminal(want) && got != want:
		t.Errorf("%s: provisioningState %q, ARM %q", where, got, want)
	case !terminal(want) && method == http.MethodPut && terminal(got):
		t.Errorf("%s: provisioningState %q is terminal, ARM still %q", where, got, want)
	}
}

// waitForOperation polls a long-running answer until it finishes, as the operator did.
func waitForOperation(t *testing.T, c *client, resp *http.Response) {
	t.Helper()
	poll := resp.Header.Get("Azure-AsyncOperation")
	if poll == "" && resp.StatusCode == http.StatusAccepted {
		poll = resp.Header.Get("Location")
	}
	for deadline := time.Now().Add(5 * time.Second); poll != "" && time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		r, status := c.do(http.MethodGet, poll, nil)
		if r.StatusCode == http.StatusAccepted || (r.StatusCode == http.StatusOK && status["status"] == "InProgress") {
			continue
		}
		return
	}
	if poll != "" {
		t.Fatalf("operation %s did not finish", poll)
	}
}

// sameMissingAncestor accepts the codes providers use interchangeably for a
// request under a deleted resource group or parent: which one ARM answers
// depends on the provider and on how far the group's deletion has got.
func sameMissingAncestor(got, want string) bool {
	missing := map[string]bool{"ResourceGroupNotFound": true, "ResourceNotFound": true, "ParentResourceNotFound": true}
	return missing[got] && missing[want]
}

func str(v any) string { s, _ := v.(string); return s }

func header(h map[string][]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}
