package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/azkcli/azk/internal/emulator"
)

// These tests guard promises that a deliberate bug once broke without any
// test noticing (issue 27); each was seen to fail with its bug put in.

const identityStack = "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: guarded\nspec:\n  location: westus2\n---\n" +
	"apiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: id\nspec:\n  location: westus2\n  owner: {name: guarded}\n"

const guardedIdentity = "/subscriptions/" + emulatorSubscription + "/resourceGroups/guarded/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id"

// TestCancelledResourceIsSentAgain: a resource whose last operation was
// cancelled (provisioningState Canceled, or Cancelled as some providers
// spell it) did not take, though Azure holds a body matching the manifests:
// the plan sends it again, as the operator does, apply writes it and the
// next plan is quiet.
func TestCancelledResourceIsSentAgain(t *testing.T) {
	for _, state := range []string{"Canceled", "Cancelled"} {
		t.Run(state, func(t *testing.T) {
			run, flags := emulatorAt(t)
			with := func(args ...string) []string { return append(args, flags...) }
			dir := writeStack(t, identityStack)
			if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
				t.Fatalf("first apply: exit %d\n%s\n%s", code, out, errOut)
			}
			patch, _ := json.Marshal(map[string]any{"properties": map[string]any{"provisioningState": state}})
			if err := run.Server.Drift(guardedIdentity, patch); err != nil {
				t.Fatal(err)
			}
			if got := getBody(t, run, guardedIdentity, "2023-01-31"); got == nil || !strings.Contains(mustJSON(t, got), `"provisioningState":"`+state+`"`) {
				t.Fatalf("the emulator does not hold provisioningState %s: %v", state, got)
			}
			out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...)
			if code != 2 {
				t.Fatalf("plan over provisioningState %s: exit %d, want 2 (changes)\n%s\n%s", state, code, out, errOut)
			}
			mustContain(t, "plan", out, "~ UserAssignedIdentity default/id will be sent again", "provisioningState "+state)
			if out, _, code := azk(t, "", with("plan", "-o", "json", dir)...); code != 0 || !strings.Contains(out, `"reason": "update_because_provisioning_failed"`) {
				t.Errorf("json plan over provisioningState %s: exit %d, not the failed-provisioning reason\n%s", state, code, out)
			}
			if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 || !strings.Contains(out, "0 created, 1 updated, 0 failed") {
				t.Fatalf("apply over provisioningState %s: exit %d, want the identity sent again\n%s\n%s", state, code, out, errOut)
			}
			if out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
				t.Errorf("plan after the re-send: exit %d, want 0\n%s", code, out)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// echoingReads is a reverse proxy in front of the emulator that answers
// every read of a flexible server with 400 and a message quoting the
// server's administrator password, as a provider's error may quote what it
// was given: text from Azure that carries a secret into what azk keeps.
func echoingReads(t *testing.T, target, secret string) string {
	return proxyTo(t, target, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/flexibleServers/") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		msg, _ := json.Marshal("The server's administratorLoginPassword " + secret + " does not meet the policy.")
		fmt.Fprintf(w, `{"error":{"code":"InvalidParameter","message":%s}}`, msg)
		return true
	})
}

// secretForms are the ways a secret's bytes can be written in a file: as
// is, escaped for JSON (once and twice, with and without HTML escaping),
// URL-escaped, base64 and hex, and its longest run of letters and digits
// alone.
func secretForms(secret string) map[string]string {
	forms := map[string]string{
		"as is":         secret,
		"query-escaped": url.QueryEscape(secret),
		"path-escaped":  url.PathEscape(secret),
		"base64":        base64.StdEncoding.EncodeToString([]byte(secret)),
		"base64url":     base64.URLEncoding.EncodeToString([]byte(secret)),
		"raw base64":    base64.RawStdEncoding.EncodeToString([]byte(secret)),
		"hex":           hex.EncodeToString([]byte(secret)),
		"HEX":           strings.ToUpper(hex.EncodeToString([]byte(secret))),
	}
	quoted, _ := json.Marshal(secret)
	forms["JSON"] = strings.Trim(string(quoted), `"`)
	twice, _ := json.Marshal(string(quoted))
	forms["JSON twice"] = strings.Trim(string(twice), `"`)
	var plain strings.Builder
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(secret)
	forms["JSON, HTML unescaped"] = strings.Trim(strings.TrimSpace(plain.String()), `"`)
	longest := ""
	for _, run := range strings.FieldsFunc(secret, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(run) > len(longest) {
			longest = run
		}
	}
	forms["its longest word"] = longest
	return forms
}

// TestSavedPlanNeverHoldsASecretAzureEchoes: plan -out keeps Azure's text (a
// read that failed is the reason a resource is blocked, saved with the
// plan); when that text quotes a secret of the run, the saved file holds
// none of the secret's bytes, in any encoding, whether the secret came from
// a v1 Secret in the input or an AZK_SECRET_ environment variable.
func TestSavedPlanNeverHoldsASecretAzureEchoes(t *testing.T) {
	const secret = `Pl4nF1le-S3cr3t<&>"x`
	manifest := "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: saved-rg\nspec:\n  location: westus2\n---\n" +
		"apiVersion: dbforpostgresql.azure.com/v1api20221201\nkind: FlexibleServer\nmetadata:\n  name: saved-pg\nspec:\n  location: westus2\n  owner: {name: saved-rg}\n  version: \"14\"\n" +
		"  administratorLogin: admin\n  administratorLoginPassword: {name: pg-admin, key: password}\n"
	inInput := "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: pg-admin\nstringData:\n  password: '" + secret + "'\n"
	for _, tc := range []struct {
		name, manifest string
		env            bool
	}{
		{"secret in the input", manifest + inInput, false},
		{"secret from the environment", manifest, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env {
				t.Setenv("AZK_SECRET_PG_ADMIN_PASSWORD", secret)
			}
			run, _ := startEmulator(t, emulator.Options{})
			// The group exists, so the plan reads the server in it.
			putAndWait(t, emulatorClient(t, run), "/subscriptions/"+emulatorSubscription+"/resourceGroups/saved-rg", "2020-06-01", map[string]any{"location": "westus2"})
			flags := endpointFlags(echoingReads(t, run.URL, secret))
			dir := writeStack(t, tc.manifest)
			saved := filepath.Join(t.TempDir(), "plan.azk")
			out, errOut, _ := azk(t, "", append([]string{"plan", dir, "-out", saved}, flags...)...)
			data, err := os.ReadFile(saved)
			if err != nil {
				t.Fatalf("plan -out saved nothing (%v)\n%s\n%s", err, out, errOut)
			}
			// The scenario must carry the echo into the file, or the test proves nothing.
			if !bytes.Contains(data, []byte("does not meet the policy")) {
				t.Fatalf("the saved plan does not hold Azure's error, so no secret could reach it:\n%s", data)
			}
			for form, text := range secretForms(secret) {
				if bytes.Contains(data, []byte(text)) {
					t.Errorf("the saved plan holds the secret %s (%q):\n%s", form, text, data)
				}
				if strings.Contains(out+errOut, text) {
					t.Errorf("plan printed the secret %s (%q):\n%s\n%s", form, text, out, errOut)
				}
			}
		})
	}
}

// TestOutputReadsNoSecretUnlessShown: azk output without --show-sensitive
// prints Secrets' keys, never their values, so it sends none of the POSTs
// that read them (listKeys and its kin): in Azure each is a permission
// check and an audit event for a value nobody will see. With
// --show-sensitive it does send them, which shows the requests are seen.
func TestOutputReadsNoSecretUnlessShown(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var log requestLog
	flags := endpointFlags(log.front(t, run.URL))
	with := func(args ...string) []string { return append(args, flags...) }
	dir := copyExample(t, "storage-key-to-app")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	// sent runs azk and returns the requests it sent.
	sent := func(args ...string) (out string, requests []string) {
		t.Helper()
		before := len(log.all())
		out, errOut, code := azk(t, "", with(args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		return out, log.all()[before:]
	}
	posts := func(requests []string) []string {
		var out []string
		for _, r := range requests {
			if strings.HasPrefix(r, http.MethodPost+" ") {
				out = append(out, r)
			}
		}
		return out
	}
	for _, args := range [][]string{
		{"output", dir},
		{"output", dir, "-o", "json"},
		{"output", dir, "-o", "yaml"},
		{"output", dir, "StorageAccount/azkkeysdata"},
		{"output", dir, "Secret/azkkeysdata-secrets"},
	} {
		out, requests := sent(args...)
		if len(requests) == 0 {
			t.Fatalf("%v sent no request: the proxy sees nothing", args)
		}
		if p := posts(requests); len(p) > 0 {
			t.Errorf("%v, without --show-sensitive, read secrets: %q", args, p)
		}
		if args[len(args)-1] == dir || strings.HasPrefix(args[len(args)-1], "Secret/") {
			mustContain(t, fmt.Sprint(args), out, "key1 = (sensitive)")
		}
	}
	if _, requests := sent("output", dir, "--show-sensitive"); len(posts(requests)) == 0 {
		t.Errorf("output --show-sensitive read no secret: %q", requests)
	}
}

// forbiddenLists is a reverse proxy in front of the emulator that refuses,
// as ARM does for a principal without the permission, every listing whose
// path ends in one of collections.
func forbiddenLists(t *testing.T, target string, collections ...string) string {
	return proxyTo(t, target, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet {
			return false
		}
		for _, c := range collections {
			if strings.HasSuffix(strings.ToLower(r.URL.Path), strings.ToLower(c)) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, `{"error":{"code":"AuthorizationFailed","message":"The client does not have authorization to perform action 'list' over scope '`+r.URL.Path+`'."}}`)
				return true
			}
		}
		return false
	})
}

// TestDestroyReportsChildrenItCouldNotList: destroy lists what each deletion
// would take with it (a resource group's contents, a resource's children);
// a listing that fails hides what is below it, so destroy says which one
// failed and why, in text and in JSON output, and refuses (it fails
// closed) rather than vouching for what it could not see.
func TestDestroyReportsChildrenItCouldNotList(t *testing.T) {
	rg := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart"
	for _, tc := range []struct {
		name, collection, output string
	}{
		{"resource group contents", rg + "/resources", "text"},
		{"a child collection", rg + "/providers/Microsoft.Network/virtualNetworks/quickstart-vnet/subnets", "text"},
		{"resource group contents, JSON", rg + "/resources", "json"},
		{"a child collection, JSON", rg + "/providers/Microsoft.Network/virtualNetworks/quickstart-vnet/subnets", "json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, flags := startEmulator(t, emulator.Options{})
			dir := copyExample(t, "quickstart")
			if out, errOut, code := azk(t, "", append([]string{"apply", "--auto-approve", dir}, flags...)...); code != 0 {
				t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
			}
			refused := endpointFlags(forbiddenLists(t, run.URL, tc.collection))
			out, errOut, code := azk(t, "", append([]string{"destroy", "--auto-approve", "-o", tc.output, dir}, refused...)...)
			mustContain(t, "destroy -o "+tc.output, out+errOut, tc.collection+" (could not list what it holds", "AuthorizationFailed", "nothing was deleted")
			if code != 1 || getBody(t, run, rg, "2021-04-01") == nil {
				t.Errorf("destroy with a listing that failed: exit %d, want 1 and the group still there", code)
			}
		})
	}
}
