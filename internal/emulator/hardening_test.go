package emulator

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// TestSecondEmulatorOnOneFolderFails: two emulators on one state folder
// would each overwrite the other's journal; the second is refused at once,
// naming the process that holds the folder.
func TestSecondEmulatorOnOneFolderFails(t *testing.T) {
	dir := t.TempDir()
	first, err := New(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{StateDir: dir})
	if err == nil {
		t.Fatal("a second emulator opened a state folder in use")
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("error does not name the folder and the holder's PID: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := New(Options{StateDir: dir})
	if err != nil {
		t.Fatalf("the folder stays locked after Close: %v", err)
	}
	again.Close()
}

// TestCorruptJournalLineIsSkipped: a damaged line in the middle of the
// journal loses that line only; the records after it survive, the file is
// not cut, and the damage is reported.
func TestCorruptJournalLineIsSkipped(t *testing.T) {
	dir := t.TempDir()
	run, err := Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, run, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	c.mustPut(vnetID, map[string]any{"location": "westus2"})
	c.mustPut(vnetID+"/subnets/s1", map[string]any{})
	run.Close()

	path := filepath.Join(dir, store.JournalFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	// Flip one byte of the virtual network's line: its checksum no longer matches.
	hit := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(`virtualnetworks/vnet1","r":`)) {
			hit = i
		}
	}
	if hit < 0 {
		t.Fatalf("no journal line for the virtual network:\n%s", data)
	}
	lines[hit][20] ^= 0x01
	damaged := bytes.Join(lines, nil)
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}

	s, err := New(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	warnings := strings.Join(s.Warnings(), "\n")
	if !strings.Contains(warnings, fmt.Sprintf("line %d", hit+1)) {
		t.Errorf("the corrupt line is not reported: %q", warnings)
	}
	if s.st.Resource(armpath.Key(vnetID+"/subnets/s1")) == nil || s.st.Resource(armpath.Key(rgID)) == nil {
		t.Errorf("records after the corrupt line were dropped")
	}
	s.Close()
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, damaged) {
		t.Errorf("the journal was cut: %d bytes before, %d after", len(damaged), len(after))
	}
}

// TestDeepBodyRefused: a body nested deeper than any ARM schema is refused
// with 400 rather than stored in a journal line that cannot be read back.
func TestDeepBodyRefused(t *testing.T) {
	dir := t.TempDir()
	run, err := Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, run, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	deep := `{"location":"westus2","properties":` + strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000) + "}"
	resp, body := c.do(http.MethodPut, vnetID+api, deep)
	mustStatus(t, resp, body, http.StatusBadRequest)
	if errorCode(body) != "InvalidRequestContent" {
		t.Fatalf("deep body: %v", body)
	}
	c.mustPut(vnetID+"2", map[string]any{"location": "westus2"})
	run.Close()
	s, err := New(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Warnings()) != 0 || s.st.Resource(armpath.Key(vnetID+"2")) == nil {
		t.Fatalf("state after restart: warnings %v", s.Warnings())
	}
}

// TestAdminAPINeedsTokenAndJSON: a web page can POST text/plain to any
// local port without a preflight; the admin API refuses that, and anything
// without the token printed at start, sent as "Authorization: Bearer TOKEN".
func TestAdminAPINeedsTokenAndJSON(t *testing.T) {
	run, err := Start(context.Background(), Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	c := newClient(t, run, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	patch := `{"id":"` + rgID + `","patch":{"tags":{"by":"page"}}}`
	postAuthorized := func(contentType, authorization string) int {
		req, _ := http.NewRequest(http.MethodPost, run.URL+"/_emulator/drift", strings.NewReader(patch))
		req.Header.Set("Content-Type", contentType)
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	post := func(contentType, token string) int {
		if token == "" {
			return postAuthorized(contentType, "")
		}
		return postAuthorized(contentType, "Bearer "+token)
	}
	if got := post("text/plain", ""); got != http.StatusUnauthorized {
		t.Errorf("text/plain without a token: %d", got)
	}
	if got := post("text/plain", run.Server.AdminToken()); got != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain with the token: %d", got)
	}
	if got := post("application/json", "wrong"); got != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d", got)
	}
	for _, form := range []string{run.Server.AdminToken(), "Basic " + run.Server.AdminToken(), "Bearer" + run.Server.AdminToken()} {
		if got := postAuthorized("application/json", form); got != http.StatusUnauthorized {
			t.Errorf("the token not in the Bearer form (%d characters): %d", len(form), got)
		}
	}
	resp, rg := c.do(http.MethodGet, rgID+"?api-version=2020-06-01", nil)
	mustStatus(t, resp, rg, http.StatusOK)
	if tags, _ := rg["tags"].(map[string]any); tags["by"] != nil {
		t.Fatalf("a refused request changed the resource group: %v", rg)
	}
	if got := post("application/json", run.Server.AdminToken()); got != http.StatusNoContent {
		t.Errorf("JSON with the token: %d", got)
	}
	if _, err := run.AdminClient().Faults(context.Background()); err != nil {
		t.Errorf("AdminClient: %v", err)
	}
	other, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.AdminToken() == run.Server.AdminToken() || len(other.AdminToken()) < 32 {
		t.Errorf("admin tokens are not fresh secrets: %q %q", other.AdminToken(), run.Server.AdminToken())
	}
}
