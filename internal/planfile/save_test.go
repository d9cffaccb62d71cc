package planfile

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/testkit"
)

// editPlan rewrites a saved plan with edit applied to its JSON; with
// resign it also recomputes the file's digest, as someone who read azk's
// source could.
func editPlan(t *testing.T, file string, resign bool, edit func(tree map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := decodeTree(data)
	if err != nil {
		t.Fatal(err)
	}
	edit(tree)
	if resign {
		tree[planDigestKey] = digestOf(tree)
	}
	out, _ := json.MarshalIndent(tree, "", "  ")
	edited := filepath.Join(t.TempDir(), "edited.azk")
	if err := os.WriteFile(edited, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return edited
}

func resourceNamed(tree map[string]any, name string) map[string]any {
	for _, r := range asList(tree["resources"]) {
		if r["name"] == name {
			return r
		}
	}
	return nil
}

// TestSavedPlanEditsAreRefused: an edit to what apply acts on (issue 12,
// item 8) is refused: by the file's digest, and, when someone recomputes the
// digest, by comparing every field of the saved plan with a fresh one. A
// resource or ARM ID listed twice is refused on load.
func TestSavedPlanEditsAreRefused(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Seed(t)
	g := loadScenario(t, "testdata/scenario.yaml")
	file := filepath.Join(t.TempDir(), "plan.azk")
	if err := Save(file, makePlan(t, az, g, false)); err != nil {
		t.Fatal(err)
	}
	const target = "vnet-update"
	edits := map[string]func(map[string]any){
		"armId": func(tree map[string]any) {
			resourceNamed(tree, target)["armId"] = rgAdopt + "/providers/Microsoft.Network/virtualNetworks/victim"
		},
		"apiVersion": func(tree map[string]any) {
			resourceNamed(tree, target)["apiVersion"] = "2018-01-01"
		},
		"policy": func(tree map[string]any) {
			resourceNamed(tree, target)["policy"] = map[string]any{"value": "skip", "source": "default"}
		},
		"changes": func(tree map[string]any) {
			resourceNamed(tree, target)["changes"] = []any{}
		},
	}
	fresh := makePlan(t, az, g, false)
	for field, edit := range edits {
		t.Run(field, func(t *testing.T) {
			if _, err := Load(editPlan(t, file, false, edit)); err == nil || !strings.Contains(err.Error(), "the file was changed after azk wrote it") {
				t.Errorf("an edited %s was loaded: %v", field, err)
			}
			saved, err := Load(editPlan(t, file, true, edit))
			if err != nil {
				t.Fatal(err)
			}
			moved := strings.Join(Stale(context.Background(), saved, fresh), "\n")
			if want := "network.azure.com/VirtualNetwork/default/" + target + ": " + field + " in the plan differs from what applying would do"; !strings.Contains(moved, want) {
				t.Errorf("a re-signed edit of %s: stale report lacks %q:\n%s", field, want, moved)
			}
		})
	}
	duplicated := editPlan(t, file, true, func(tree map[string]any) {
		list := testkit.At[[]any](t, tree, "resources")
		tree["resources"] = append(list, list[len(list)-1])
	})
	if _, err := Load(duplicated); err == nil || !strings.Contains(err.Error(), "is in the plan twice") {
		t.Errorf("a duplicated entry was loaded: %v", err)
	}
	sameID := editPlan(t, file, true, func(tree map[string]any) {
		resourceNamed(tree, target)["armId"] = resourceNamed(tree, "vnet-detach")["armId"]
	})
	if _, err := Load(sameID); err == nil || !strings.Contains(err.Error(), "is in the plan twice") {
		t.Errorf("two entries for one ARM ID were loaded: %v", err)
	}
}

// TestSavedSecretsAreSlowToGuess: a secret is saved as an argon2id key under
// the plan's random salt, never as a fast hash anyone can try passwords against.
func TestSavedSecretsAreSlowToGuess(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Seed(t)
	p := makePlan(t, az, loadScenario(t, "testdata/scenario.yaml"), false)
	file := filepath.Join(t.TempDir(), "plan.azk")
	if err := Save(file, p); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(file)
	if !bytes.Contains(raw, []byte(`"$sensitive": "argon2id:v=19,m=47104,t=1,p=1:`)) || bytes.Contains(raw, []byte(`"$sensitive": "sha256:`)) {
		t.Errorf("secrets are not saved as argon2id keys:\n%s", raw)
	}
}

// TestSavedPlanIsNotRewritten: Save writes names, IDs and text as the plan
// holds them, whatever secrets the run knows (ARM's messages are scrubbed as
// the client reads them, arm.Options.Redact), and the file matches a fresh
// plan of the same inputs; the secret itself is a digest.
func TestSavedPlanIsNotRewritten(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Seed(t)
	g := loadScenario(t, "testdata/scenario.yaml")
	p := makePlan(t, az, g, false)
	note := "ARM said: " + p.Resources[0].ARMID + " is fine"
	p.Resources[0].Notes = append(p.Resources[0].Notes, note)
	file := filepath.Join(t.TempDir(), "plan.azk")
	if err := Save(file, p); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(file)
	if bytes.Contains(raw, []byte(mysqlPassword)) {
		t.Errorf("the saved plan holds the secret")
	}
	saved, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range saved.Resources {
		if r.Address != p.Resources[i].Address || r.ARMID != p.Resources[i].ARMID {
			t.Errorf("saved as %s (%s), planned as %s (%s)", r.Address, r.ARMID, p.Resources[i].Address, p.Resources[i].ARMID)
		}
	}
	if got := saved.Resources[0].Notes; got[len(got)-1] != note {
		t.Errorf("the note was saved as %q, want %q", got[len(got)-1], note)
	}
	if moved := Stale(context.Background(), saved, p); len(moved) != 0 {
		t.Errorf("the saved plan is stale: %v", moved)
	}
}
