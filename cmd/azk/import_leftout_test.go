package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/importer"
	"github.com/azkcli/azk/internal/registry"
)

// listingWith puts a proxy in front of the emulator that adds items to
// the listing of a resource group's resources, as Azure can hold names the
// emulator does not take.
func listingWith(t *testing.T, target, group string, extra ...map[string]any) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodGet || !strings.EqualFold(resp.Request.URL.Path, group+"/resources") {
			return nil
		}
		var page map[string]any
		data, err := io.ReadAll(resp.Body)
		if err != nil || json.Unmarshal(data, &page) != nil {
			return err
		}
		items, _ := page["value"].([]any)
		for _, e := range extra {
			items = append(items, e)
		}
		page["value"] = items
		data, _ = json.Marshal(page)
		resp.Body = io.NopCloser(bytes.NewReader(data))
		resp.ContentLength = int64(len(data))
		resp.Header.Set("Content-Length", strconv.Itoa(len(data)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestImportReportsWhatItLeavesOut: resources whose ARM IDs azk refuses,
// found below what is imported, are named one by one and make import exit
// 1 (before: "Imported 8" of 13, exit 0); --skip-unsupported accepts them;
// by-design skips (built-in role definitions) stay a summary and exit 0
// (issue 22, item 6).
func TestImportReportsWhatItLeavesOut(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	if _, errOut, code := azk(t, "", with("apply", "--auto-approve", quickstart)...); code != 0 {
		t.Fatalf("apply: %s", errOut)
	}
	group := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart"
	bad := []string{group + "/providers/Microsoft.Network/virtualNetworks/with space", group + "/providers/Microsoft.Network/virtualNetworks/per%cent"}
	front := listingWith(t, run.URL, group,
		map[string]any{"id": bad[0], "name": "with space", "type": "Microsoft.Network/virtualNetworks"},
		map[string]any{"id": bad[1], "name": "per%cent", "type": "Microsoft.Network/virtualNetworks"})
	args := []string{"import", "--recursive", "--out-dir", t.TempDir(), group, "--endpoint", front, "--insecure-http", "--subscription", emulatorSubscription}

	_, errOut, code := azk(t, "", args...)
	if code != 1 {
		t.Errorf("import: exit %d, want 1", code)
	}
	mustContain(t, "import", errOut,
		"Left out "+bad[1]+": azk refuses its ARM ID: ",
		"Left out "+bad[0]+": azk refuses its ARM ID: ",
		"Left out by design: ", "built-in role definitions",
		"2 resources left out (see above): --skip-unsupported accepts leaving out those azk cannot import")

	_, errOut, code = azk(t, "", append(args, "--skip-unsupported")...)
	if code != 0 {
		t.Errorf("import --skip-unsupported: exit %d\n%s", code, errOut)
	}
	mustContain(t, "import --skip-unsupported", errOut, "Left out "+bad[0]+": azk refuses its ARM ID: ")
}

// TestImportOutDirNamesEveryFileFirst: a resource whose file name would be
// too long for the file system no longer stops import halfway through its
// files: every name is made before anything is written, a long one
// shortened and told apart by a digest (issue 22, item 6).
func TestImportOutDirNamesEveryFileFirst(t *testing.T) {
	k, ok := registry.Default().Lookup("network.azure.com", "v1api20201101", "VirtualNetwork")
	if !ok {
		t.Fatal("no VirtualNetwork v1api20201101 in the registry")
	}
	long := strings.Repeat("a", 250)
	res := &importer.Result{Resources: []*importer.Resource{
		{Kind: k, Name: "first", Manifest: "first\n"},
		{Kind: k, Name: long + "1", Manifest: "long one\n"},
		{Kind: k, Name: long + "2", Manifest: "long two\n"},
		{Kind: k, Name: "last", Manifest: "last\n"},
	}}
	dir := t.TempDir()
	if err := writeImported(&globalOptions{}, res, dir); err != nil {
		t.Fatalf("writing the files: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]bool{}
	for _, e := range entries {
		data, _ := os.ReadFile(dir + "/" + e.Name())
		written[string(data)] = true
		if len(e.Name()) > 255 {
			t.Errorf("file name of %d bytes", len(e.Name()))
		}
	}
	for _, r := range res.Resources {
		if !written[r.Manifest] {
			t.Errorf("%q not written; files: %d", r.Manifest, len(entries))
		}
	}
}
