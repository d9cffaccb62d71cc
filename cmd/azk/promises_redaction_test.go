package main

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

// noneOf fails for each form found in what azk printed, and unless the
// output shows a redaction (so that a run that never quoted the secret
// cannot pass).
func noneOf(t *testing.T, what, printed string, forms ...string) {
	t.Helper()
	for _, form := range forms {
		if strings.Contains(printed, form) {
			t.Errorf("%s shows %q:\n%s", what, form, printed)
		}
	}
	if !strings.Contains(printed, "(redacted)") {
		t.Errorf("%s redacted nothing: the error quoting the secret was not printed\n%s", what, printed)
	}
}

// TestBaseSecretsAreRedactedOnApply: the password before a rotation is known
// only from --base, and is a secret all the same. A resource provider that
// quotes the old and the new password in its 400 to the server's PUT has
// both redacted in every output of apply --base (text and -o json, with the
// debug log).
func TestBaseSecretsAreRedactedOnApply(t *testing.T) {
	run, direct := startEmulator(t, emulator.Options{})
	repo, commit := gitRepo(t, prStack("dev", prPassword, false))
	t.Chdir(repo)
	if out, errOut, code := azk(t, "", append([]string{"apply", "--auto-approve", "manifests"}, direct...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	commit(prStack("dev", prRotated, false))
	refusing := proxyTo(t, run.URL, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPut || !strings.Contains(r.URL.Path, "/flexibleServers/") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":"PasswordReuse","message":%q}}`,
			"The new password "+prRotated+" may not follow the previous password "+prPassword+" so closely.")
		return true
	})
	for _, format := range []string{"text", "json"} {
		out, errOut, code := azk(t, "", "apply", "--auto-approve", "--base", "HEAD~1", "-o", format, "--debug", "manifests",
			"--endpoint", refusing, "--insecure-http", "--subscription", emulatorSubscription)
		if code != 1 {
			t.Errorf("apply --base -o %s: exit %d, want 1\n%s\n%s", format, code, out, errOut)
		}
		mustContain(t, "apply --base -o "+format, out+errOut, "PasswordReuse")
		noneOf(t, "apply --base -o "+format, out+errOut, prPassword, prRotated)
	}
}

// TestDeploymentOperationMessagesAreRedacted: with --engine deployment, a
// resource's write fails inside ARM's deployment and the operation's status
// message quotes the password; the report (text) and the events (-o json)
// show it redacted.
func TestDeploymentOperationMessagesAreRedacted(t *testing.T) {
	_, flags := startEmulator(t, emulator.Options{Faults: emulator.Faults{Failures: []emulator.FailureRule{{
		Type: "Microsoft.DBforPostgreSQL/flexibleServers", After: 10 * time.Millisecond, Code: "InvalidParameter",
		Message: "The password " + canary + " does not meet the complexity requirements."}}}})
	stack := filepath.Join(writeStack(t, `apiVersion: v1
kind: Secret
metadata:
  name: pg-admin
stringData:
  password: '`+canary+`'
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: opmsg-rg
spec:
  location: westus2
---
apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServer
metadata:
  name: opmsg-pg
spec:
  location: westus2
  owner:
    name: opmsg-rg
  version: "16"
  administratorLogin: admin
  administratorLoginPassword:
    name: pg-admin
    key: password
`), "stack.yaml")
	var printed []string
	for _, format := range []string{"text", "json"} {
		out, errOut, code := runAzk("", append([]string{"apply", "--auto-approve", "--engine", "deployment", "-o", format, stack}, flags...)...)
		if code != 1 {
			t.Errorf("apply --engine deployment -o %s: exit %d, want 1\n%s\n%s", format, code, out, errOut)
		}
		mustContain(t, "-o "+format, out, "InvalidParameter", "does not meet the complexity requirements")
		noneOf(t, "apply --engine deployment -o "+format, out+errOut, "c4n4ry-P@ss", "c4n4ry-P%40ss")
		printed = append(printed, out)
	}
	mustContain(t, "-o json", printed[1], `{"type":"end"`, `"outcome":"failed"`)
}

// TestURLEscapedSecretsAreRedactedEndToEnd: a storage key (+ / =) from
// AZK_SECRET_ quoted by ARM query-escaped (a SAS signature) and path-escaped
// is redacted in apply's output and --debug log, text and -o json.
func TestURLEscapedSecretsAreRedactedEndToEnd(t *testing.T) {
	const key = "q9X+Lm/Zt0Rw+8Ab/Cd=="
	t.Setenv("AZK_SECRET_STORAGE_KEY", key)
	run, _ := startEmulator(t, emulator.Options{})
	query, path := url.QueryEscape(key), url.PathEscape(key)
	quoting := proxyTo(t, run.URL, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPut {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":"InvalidSource","message":%q}}`,
			"Could not read https://acct.blob.core.windows.net/c/x.json?sig="+query+"&sv=2021-08-06 nor https://acct.vault.azure.net/keys/"+path+"/1.")
		return true
	})
	stack := filepath.Join(writeStack(t, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: esc-rg\nspec:\n  location: westus2\n"), "stack.yaml")
	for _, format := range []string{"text", "json"} {
		out, errOut, code := azk(t, "", "apply", "--auto-approve", "--debug", "-o", format, stack, "--endpoint", quoting, "--insecure-http", "--subscription", emulatorSubscription)
		if code != 1 {
			t.Errorf("apply -o %s: exit %d, want 1\n%s\n%s", format, code, out, errOut)
		}
		mustContain(t, "apply -o "+format, out+errOut, "InvalidSource", "?sig=(redacted)", "/keys/(redacted)/1")
		noneOf(t, "apply -o "+format, out+errOut, key, query, path, "q9X", "Zt0Rw")
	}
}
