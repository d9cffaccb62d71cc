package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// canary is a secret no output may show.
const canary = `c4n4ry-P@ss<w0rd>"&`

// echoingRP is a reverse proxy in front of the emulator that answers every
// PUT of a flexible server with 400 and an error message quoting the request
// body, as some resource providers do.
func echoingRP(t *testing.T, target string) string {
	return proxyTo(t, target, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPut || !strings.Contains(r.URL.Path, "/flexibleServers/") {
			return false
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":"InvalidParameter","message":%q}}`, "The request body "+string(body)+" is not valid.")
		return true
	})
}

// TestSecretsAreRedactedFromEveryOutput: a secret echoed back by ARM in an
// error is never printed, in text, JSON events or the debug log, nor saved in
// a plan (issue 12, item 4). The canary comes from a v1 Secret in the input
// and, separately, from an AZK_SECRET_ environment variable.
func TestSecretsAreRedactedFromEveryOutput(t *testing.T) {
	run, _ := emulatorAt(t)
	endpoint := echoingRP(t, run.URL)
	manifest := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: canary-rg
spec:
  location: westus2
---
apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServer
metadata:
  name: canary-pg
spec:
  location: westus2
  owner:
    name: canary-rg
  version: "16"
  administratorLogin: admin
  administratorLoginPassword:
    name: pg-admin
    key: password
`
	secret := "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: pg-admin\nstringData:\n  password: '" + canary + "'\n"
	for _, tc := range []struct {
		name, manifest string
		env            bool
	}{
		{"secret in the input", manifest + secret, false},
		{"secret from the environment", manifest, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env {
				t.Setenv("AZK_SECRET_PG_ADMIN_PASSWORD", canary)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "in.yaml")
			if err := os.WriteFile(file, []byte(tc.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			flags := []string{"--endpoint", endpoint, "--insecure-http", "--subscription", emulatorSubscription, "--debug"}
			saved := filepath.Join(dir, "plan.azk")
			var all []string
			for _, args := range [][]string{
				append([]string{"plan", file, "-out", saved}, flags...),
				append([]string{"apply", file, "--auto-approve"}, flags...),
				append([]string{"apply", file, "--auto-approve", "-o", "json"}, flags...),
			} {
				out, errOut, code := azk(t, "", args...)
				if args[0] == "apply" && code != 1 {
					t.Errorf("%v exited %d", args, code)
				}
				all = append(all, out, errOut)
			}
			printed := strings.Join(all, "\n")
			if !strings.Contains(printed, "InvalidParameter") || !strings.Contains(printed, "The request body") {
				t.Fatalf("the echoing error was not reported:\n%s", printed)
			}
			data, _ := os.ReadFile(saved)
			for what, text := range map[string]string{"output": printed, "saved plan": string(data)} {
				for _, form := range []string{canary, "c4n4ry-P@ss", `c4n4ry-P@ss\u003cw0rd`} {
					if strings.Contains(text, form) {
						t.Errorf("the %s shows the secret (%q):\n%s", what, form, text)
					}
				}
			}
			if !bytes.Contains([]byte(printed), []byte("(redacted)")) {
				t.Errorf("nothing was redacted:\n%s", printed)
			}
		})
	}
}
