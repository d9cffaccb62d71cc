package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/redact"
)

// TestCanarySecretsPlantedInAzure: values Azure returns are free text, so a
// secret of the run planted there (an AZK_SECRET_* value in a tag, an input
// Secret's value in a tag and in the server's administratorLogin, a plain
// property, as the server was created with it) is never shown or written by plan
// (every format), a saved plan, show, refresh and the file it writes, or
// import; the marker stands where it was, and the plan still shows the
// difference (issue 34, item 6).
func TestCanarySecretsPlantedInAzure(t *testing.T) {
	const tagCanary, loginCanary = "t4g-c4n4ry-Zq81", "l0gin-c4n4ry-Wx27"
	t.Setenv("AZK_SECRET_TAG_CANARY", tagCanary)
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := t.TempDir()
	file := filepath.Join(dir, "in.yaml")
	manifest := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: canary-rg
  annotations:
    azk.azkcli.io/drift: reflect
spec:
  location: westus2
  tags:
    env: dev
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
  administratorLogin: pgadmin
  administratorLoginPassword:
    name: pg-admin
    key: password
---
apiVersion: v1
kind: Secret
metadata:
  name: pg-admin
stringData:
  password: ` + loginCanary + "\n"
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", file)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}

	// Plant the secrets on Azure's side, as someone in the portal might.
	client := emulatorClient(t, run)
	rg := "/subscriptions/" + emulatorSubscription + "/resourceGroups/canary-rg"
	pg := rg + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/canary-pg"
	rgBody := getBody(t, run, rg, "2021-04-01")
	rgBody["tags"] = map[string]any{"env": tagCanary}
	putAndWait(t, client, rg, "2021-04-01", rgBody)
	pgBody := getBody(t, run, pg, "2025-08-01")
	pgBody["tags"] = map[string]any{"owner": loginCanary}
	putAndWait(t, client, pg, "2025-08-01", pgBody)
	// Azure takes administratorLogin only at creation (a PUT changing it is
	// refused): the emulator's drift sets it as a server made with it holds it.
	if err := run.AdminClient().Drift(t.Context(), pg, map[string]any{"properties": map[string]any{"administratorLogin": loginCanary}}); err != nil {
		t.Fatal(err)
	}

	leaks := func(what, text string) {
		t.Helper()
		for _, c := range []string{tagCanary, loginCanary} {
			if strings.Contains(text, c) {
				t.Errorf("%s shows the secret %q:\n%s", what, c, text)
			}
		}
	}
	marked := func(what, text string) {
		t.Helper()
		leaks(what, text)
		if !strings.Contains(text, redact.Text) {
			t.Errorf("%s lacks the marker %s where the secret stood:\n%s", what, redact.Text, text)
		}
	}

	for _, format := range []string{"text", "markdown", "json", "yaml"} {
		out, errOut, code := azk(t, "", with("plan", "-o", format, "--detailed-exitcode", file)...)
		if code != 2 {
			t.Errorf("plan -o %s: exit %d, want 2 (changes)\n%s\n%s", format, code, out, errOut)
		}
		marked("plan -o "+format, out)
		leaks("plan -o "+format+" (stderr)", errOut)
		if !strings.Contains(out, "tags.owner") || !strings.Contains(out, "administratorLogin") || !strings.Contains(out, "pgadmin") {
			t.Errorf("plan -o %s does not show the server's tag to remove and its login to change:\n%s", format, out)
		}
	}

	saved := filepath.Join(dir, "plan.azk")
	out, errOut, code := azk(t, "", with("plan", "-out", saved, file)...)
	if code != 0 {
		t.Fatalf("plan -out: exit %d\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	marked("the saved plan", string(data))
	for _, format := range []string{"text", "json"} {
		shown, errOut, code := azk(t, "", "show", "-o", format, saved)
		if code != 0 {
			t.Errorf("show -o %s: exit %d\n%s", format, code, errOut)
		}
		marked("show -o "+format, shown)
	}

	out, errOut, code = azk(t, "", with("refresh", file)...)
	if code != 0 {
		t.Fatalf("refresh: exit %d\n%s\n%s", code, out, errOut)
	}
	marked("refresh", out+errOut)
	if out, errOut, code := azk(t, "", with("refresh", "--write", file)...); code != 0 {
		t.Fatalf("refresh --write: exit %d\n%s\n%s", code, out, errOut)
	} else {
		leaks("refresh --write", out+errOut)
	}
	written, _ := os.ReadFile(file)
	leaks("the file refresh --write wrote", strings.Replace(string(written), "password: "+loginCanary, "", 1))
	if strings.Contains(string(written), redact.Text) {
		t.Errorf("refresh wrote the marker into the manifest (apply would send it):\n%s", written)
	}

	// import reads no manifests: its secrets are those of its environment.
	t.Setenv("AZK_SECRET_PG_LOGIN", loginCanary)
	imported, errOut, code := azk(t, "", with("import", "--recursive", rg)...)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", code, imported, errOut)
	}
	marked("import", imported)
	leaks("import (stderr)", errOut)
}
