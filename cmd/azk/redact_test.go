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

	"github.com/azkcli/azk/internal/emulator"
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

// namesInASecret is a stack whose Secret holds, beside a password, values
// the manifests also use as names, an ID and a URL's host (issue 20): the
// resource group's name, the subscription ID, a database's name, a host.
const namesInASecret = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: asodemo-rg
spec:
  location: westus2
  tags:
    docs: http://www.contoso.com/docs
---
apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServer
metadata:
  name: asodemo-pg
spec:
  location: westus2
  owner:
    name: asodemo-rg
  version: "16"
  administratorLogin: pgadmin
  administratorLoginPassword:
    name: app-config
    key: password
---
apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServersDatabase
metadata:
  name: appdb
spec:
  owner:
    name: asodemo-pg
---
apiVersion: v1
kind: Secret
metadata:
  name: app-config
stringData:
  password: '` + canary + `'
  resourceGroup: asodemo-rg
  subscription: ` + emulatorSubscription + `
  database: appdb
  apiHost: www.contoso.com
`

// TestSecretsThatAreAlsoNames: a secret value that is also a name, an ID or
// a URL's host in the manifests is printed as it is wherever the manifests
// use it (plan in every form, graph, render, saved plan, which then
// applies), and validate warns that it cannot be hidden; the password is
// still (sensitive) in every output and scrubbed from ARM's echo of the
// request, which keeps the names it quotes.
func TestSecretsThatAreAlsoNames(t *testing.T) {
	run, flags := emulatorAt(t)
	dir := writeStack(t, namesInASecret)
	stack := filepath.Join(dir, "stack.yaml")
	rgID := "/subscriptions/" + emulatorSubscription + "/resourceGroups/asodemo-rg"
	names := []string{rgID, rgID + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/asodemo-pg/databases/appdb", "http://www.contoso.com/docs"}
	noLeak := func(what, text string) {
		t.Helper()
		for _, bad := range []string{canary, "c4n4ry-P@ss", "(redacted)"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s shows %q:\n%s", what, bad, text)
			}
		}
	}

	out, errOut, code := azk(t, "", "validate", stack, "--subscription", emulatorSubscription)
	if code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
	}
	for key, line := range map[string]int{"resourceGroup": 38, "subscription": 39, "database": 40, "apiHost": 41} {
		mustContain(t, "validate", errOut, fmt.Sprintf("Warning: %s:%d: v1/Secret/default/app-config: stringData.%s: this secret value is also in the manifests in plain", stack, line, key))
	}
	mustContain(t, "validate", errOut, "as metadata.name of resources.azure.com/ResourceGroup/default/asodemo-rg", "as spec.tags.docs of resources.azure.com/ResourceGroup/default/asodemo-rg", "will not hide it in ARM's messages")
	if strings.Contains(errOut, "stringData.password") {
		t.Errorf("validate warns of the password, which the manifests never show:\n%s", errOut)
	}
	noLeak("validate", out+errOut)

	for _, args := range [][]string{
		append([]string{"plan", stack}, flags...),
		append([]string{"plan", stack, "-o", "markdown"}, flags...),
		append([]string{"plan", stack, "-o", "json"}, flags...),
		{"graph", stack, "--subscription", emulatorSubscription},
		{"render", stack, "--subscription", emulatorSubscription},
	} {
		out, errOut, code := azk(t, "", args...)
		what := strings.Join(args[:min(len(args), 4)], " ")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", what, code, out, errOut)
		}
		noLeak(what, out+errOut)
		if args[0] == "graph" { // IDs only
			mustContain(t, what, out, names[:2]...)
			continue
		}
		mustContain(t, what, out, append(names, "(sensitive)")...)
	}

	saved := filepath.Join(dir, "plan.azk")
	if out, errOut, code := azk(t, "", append([]string{"plan", stack, "-out", saved}, flags...)...); code != 0 {
		t.Fatalf("plan -out: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the saved plan", string(data), rgID)
	noLeak("the saved plan", string(data))
	if out, errOut, code := azk(t, "", append([]string{"apply", saved, "--auto-approve"}, flags...)...); code != 0 {
		t.Fatalf("apply of the saved plan: exit %d\n%s%s", code, out, errOut)
	}
	if getBody(t, run, names[1], "2025-08-01") == nil {
		t.Error("the saved plan's apply did not create the database")
	}
	out, errOut, code = azk(t, "", append([]string{"plan", stack, "--detailed-exitcode"}, flags...)...)
	if code != 0 {
		t.Errorf("re-plan after apply: exit %d\n%s%s", code, out, errOut)
	}

	// A resource provider that quotes the request's URL and body in its
	// error: the password goes, the names stay.
	fresh, _ := startEmulator(t, emulator.Options{})
	echoing := proxyTo(t, fresh.URL, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPut || !strings.Contains(r.URL.Path, "/flexibleServers/") {
			return false
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":"InvalidParameter","message":%q}}`, "PUT "+r.URL.Path+" with "+string(body)+" is not valid")
		return true
	})
	var printed []string
	for _, format := range []string{"text", "json"} {
		out, errOut, code := azk(t, "", "apply", stack, "--auto-approve", "-o", format, "--debug", "--endpoint", echoing, "--insecure-http", "--subscription", emulatorSubscription)
		if code != 1 {
			t.Errorf("apply -o %s through the echoing provider: exit %d, want 1", format, code)
		}
		printed = append(printed, out, errOut)
	}
	all := strings.Join(printed, "\n")
	mustContain(t, "the echoed error", all, "InvalidParameter: PUT "+rgID+"/providers/Microsoft.DBforPostgreSQL/flexibleServers/asodemo-pg", `\"administratorLoginPassword\":\"(redacted)\"`)
	for _, form := range []string{canary, "c4n4ry-P@ss", `c4n4ry-P@ss\u003cw0rd`} {
		if strings.Contains(all, form) {
			t.Errorf("the output shows the password (%q):\n%s", form, all)
		}
	}
}
