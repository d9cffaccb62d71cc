package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// quickstartInItsGroup starts an emulator holding the quick start's
// resource group as the manifests declare it: the plan leaves the group
// alone, so what it creates all sits in that one group and the templates
// deploy at resource-group scope, every resource top-level (the golden
// export files are subscription-scope, everything in nested deployments).
func quickstartInItsGroup(t *testing.T) (*emulator.Running, []string) {
	t.Helper()
	run, flags := startEmulator(t, emulator.Options{})
	putAndWait(t, emulatorClient(t, run), "/subscriptions/"+emulatorSubscription+"/resourceGroups/azk-quickstart", "2020-06-01",
		map[string]any{"location": "westus2", "tags": map[string]any{"project": "azk-quickstart"}})
	return run, flags
}

// checkTopLevelDependsOn checks that every top-level resource of a
// resource-group-scope template waits, through dependsOn, for each of its
// dependencies in the plan that the same template deploys. ARM starts
// top-level resources in parallel unless dependsOn orders them: without it a
// subnet is sent before its network. It returns how many dependencies it
// checked.
func checkTopLevelDependsOn(t *testing.T, what string, template map[string]any, p *planner.Plan) int {
	t.Helper()
	if schema, _ := template["$schema"].(string); !strings.HasSuffix(schema, "/deploymentTemplate.json#") {
		t.Fatalf("%s: schema %q is not a resource-group deployment's: the scenario does not test top-level resources", what, schema)
	}
	key := func(typ, name string) string { return strings.ToLower(typ + " " + name) }
	byAddress := map[string]*planner.Resource{}
	for _, r := range p.Resources {
		byAddress[r.Address] = r
	}
	typeAndName := func(r *planner.Resource) (string, []string) {
		id, err := armid.Parse(r.ARMID)
		if err != nil || len(id.Providers) != 1 {
			return "", nil
		}
		var names []string
		for _, tn := range id.Providers[0].Resources {
			names = append(names, tn.Name)
		}
		return id.Type(), names
	}
	inTemplate := map[string][]string{} // type and name -> dependsOn
	resources, _ := template["resources"].([]any)
	for _, raw := range resources {
		res, _ := raw.(map[string]any)
		typ, _ := res["type"].(string)
		name, _ := res["name"].(string)
		if typ == "" || name == "" || strings.EqualFold(typ, "Microsoft.Resources/deployments") {
			continue
		}
		var deps []string
		list, _ := res["dependsOn"].([]any)
		for _, d := range list {
			s, _ := d.(string)
			deps = append(deps, s)
		}
		inTemplate[key(typ, name)] = deps
	}
	checked := 0
	for _, r := range p.Resources {
		typ, names := typeAndName(r)
		deps, ok := inTemplate[key(typ, strings.Join(names, "/"))]
		if !ok {
			continue
		}
		for _, a := range r.DependsOn {
			d := byAddress[a]
			if d == nil {
				continue
			}
			dtyp, dnames := typeAndName(d)
			if _, deployed := inTemplate[key(dtyp, strings.Join(dnames, "/"))]; !deployed {
				continue
			}
			checked++
			found := false
			for _, expr := range deps {
				ok := strings.Contains(expr, "'"+dtyp+"'")
				for _, n := range dnames {
					ok = ok && strings.Contains(expr, "'"+n+"'")
				}
				found = found || ok
			}
			if !found {
				t.Errorf("%s: %s %s does not wait for %s, which it depends on: dependsOn %q", what, typ, strings.Join(names, "/"), a, deps)
			}
		}
	}
	if len(inTemplate) == 0 {
		t.Fatalf("%s: the template has no top-level resources", what)
	}
	return checked
}

// TestResourceGroupTemplatesKeepDependsOn: azk export and apply --engine
// deployment write each resource's dependencies as dependsOn also when the
// template deploys at resource-group scope, every resource top-level.
func TestResourceGroupTemplatesKeepDependsOn(t *testing.T) {
	const ex = "../../examples/quickstart"
	t.Run("export", func(t *testing.T) {
		_, flags := quickstartInItsGroup(t)
		_, p := planOf(t, flags, ex)
		dir := t.TempDir()
		if out, errOut, code := runAzk("", append([]string{"export", "--format", "arm-template", "--out-dir", dir, ex}, flags...)...); code != 0 {
			t.Fatalf("export: exit %d\n%s\n%s", code, out, errOut)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		checked := 0
		for _, f := range files {
			if filepath.Base(f) == "index.json" {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var template map[string]any
			if err := json.Unmarshal(data, &template); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			checked += checkTopLevelDependsOn(t, filepath.Base(f), template, p)
		}
		if checked == 0 {
			t.Fatalf("no dependency between top-level resources was checked in %v", files)
		}
	})
	t.Run("engine deployment", func(t *testing.T) {
		run, _ := quickstartInItsGroup(t)
		var mu sync.Mutex
		var submitted []map[string]any
		endpoint := proxyTo(t, run.URL, func(_ http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodPut || !strings.Contains(strings.ToLower(r.URL.Path), "/providers/microsoft.resources/deployments/") {
				return false
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var d struct {
				Properties struct {
					Template map[string]any `json:"template"`
				} `json:"properties"`
			}
			if json.Unmarshal(body, &d) == nil && d.Properties.Template != nil {
				mu.Lock()
				submitted = append(submitted, d.Properties.Template)
				mu.Unlock()
			}
			return false
		})
		flags := endpointFlags(endpoint)
		_, p := planOf(t, flags, ex)
		out, errOut, code := runAzk("", append([]string{"apply", "--auto-approve", "--engine", "deployment", ex}, flags...)...)
		mu.Lock()
		defer mu.Unlock()
		if len(submitted) == 0 {
			t.Fatalf("no deployment was submitted (exit %d)\n%s\n%s", code, out, errOut)
		}
		checked := 0
		for i, template := range submitted {
			checked += checkTopLevelDependsOn(t, fmt.Sprintf("deployment %d", i+1), template, p)
		}
		if checked == 0 {
			t.Error("no dependency between top-level resources was checked")
		}
		if code != 0 {
			t.Fatalf("apply --engine deployment: exit %d\n%s\n%s", code, out, errOut)
		}
	})
}
