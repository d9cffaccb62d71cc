package views

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// TestMultiLineChangesShowAsLineDiffs: a script or serialized document that
// changes in one line shows that line, not two long JSON strings.
func TestMultiLineChangesShowAsLineDiffs(t *testing.T) {
	p := &planner.Plan{Resources: []*planner.Resource{{
		Kind: "VirtualMachineScaleSet", Namespace: "default", Name: "vmss", Action: planner.ActionUpdate,
		Policy: planner.Policy{Value: "manage", Source: "default"},
		Changes: []planner.Change{{
			Path:   "properties.settings.script",
			Before: "#!/bin/sh\necho one\necho two\necho three\n",
			After:  "#!/bin/sh\necho one\necho 2\necho three\n",
		}},
	}}}
	var out bytes.Buffer
	if err := Text(&out, p, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"~ properties.settings.script:\n", "--- Azure", "+++ manifests", "-echo two", "+echo 2", " echo one"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), `\n`) {
		t.Errorf("the strings are printed escaped instead of as lines:\n%s", out.String())
	}
}

// TestMarkdownPutsChangesFirstAndTrimsDetailNotHeaders: a plan too long for
// a pull-request comment loses the unchanged list, then the details of the
// last blocks, but keeps a header line for every change; changes come
// before blocked and replace-required resources.
func TestMarkdownPutsChangesFirstAndTrimsDetailNotHeaders(t *testing.T) {
	long := strings.Repeat("x", 400)
	p := &planner.Plan{}
	p.Resources = append(p.Resources, &planner.Resource{Kind: "ResourceGroup", Namespace: "default", Name: "blocked", Action: planner.ActionBlocked, Reasons: []string{"a secret is missing"}})
	for i := range 1000 {
		r := &planner.Resource{Kind: "UserAssignedIdentity", Namespace: "default", Name: fmt.Sprintf("same%d", i), Action: planner.ActionNoChange, Exists: true}
		p.Resources = append(p.Resources, r)
	}
	for i := range 300 {
		p.Resources = append(p.Resources, &planner.Resource{
			Kind: "UserAssignedIdentity", Namespace: "default", Name: fmt.Sprintf("changed%d", i), Action: planner.ActionUpdate, Exists: true,
			Changes: []planner.Change{{Path: "tags.note", Before: "a", After: long}},
		})
	}
	var out bytes.Buffer
	if err := Markdown(&out, p, Options{ShowUnchanged: true}); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	if len(md) > MarkdownLimit {
		t.Errorf("%d bytes, over the limit %d", len(md), MarkdownLimit)
	}
	for i := range 300 {
		if !strings.Contains(md, fmt.Sprintf("<code>default/changed%d</code> will be updated in place", i)) {
			t.Fatalf("the header of changed%d was dropped", i)
		}
	}
	if !strings.Contains(md, "_1000 resources unchanged (not listed: the comment would be too long)._") || strings.Contains(md, "default/same1<") {
		t.Error("the unchanged list was not the first thing dropped")
	}
	if !strings.Contains(md, long) {
		t.Error("every detail was dropped, although the first ones fit")
	}
	if !strings.Contains(md, "_The details of ") {
		t.Error("the comment does not say details were left out")
	}
	if first, blocked := strings.Index(md, "default/changed0"), strings.Index(md, "default/blocked"); blocked < first {
		t.Error("a blocked resource comes before the changes")
	}
}

// TestRenderAzureOnlyAndNotReturned: an update lists what its PUT may reset
// under its own heading, and what Azure does not return as not compared; an
// unchanged resource's not-returned properties are counted, not listed; a
// drift report lists Azure-only values of unchanged resources too.
func TestRenderAzureOnlyAndNotReturned(t *testing.T) {
	update := &planner.Resource{
		Kind: "VirtualNetwork", Namespace: "default", Name: "vnet", Action: planner.ActionUpdate, Exists: true,
		Policy:      planner.Policy{Value: "manage", Source: "default"},
		Changes:     []planner.Change{{Path: "properties.addressSpace.addressPrefixes", Before: []any{"10.0.0.0/16"}, After: []any{"10.1.0.0/16"}}},
		AzureOnly:   []planner.PathValue{{Path: "properties.dhcpOptions", Value: map[string]any{"dnsServers": []any{"10.0.0.4"}}}},
		NotReturned: []planner.PathValue{{Path: "properties.flowTimeoutInMinutes", Value: 10.0}, {Path: "properties.secretish", Sensitive: true}},
	}
	same := &planner.Resource{
		Kind: "Vault", Namespace: "default", Name: "kv", Action: planner.ActionNoChange, Exists: true,
		Policy:      planner.Policy{Value: "manage", Source: "default"},
		NotReturned: []planner.PathValue{{Path: "properties.createMode", Value: "default"}},
	}
	p := &planner.Plan{Resources: []*planner.Resource{update, same}}
	var text, md bytes.Buffer
	if err := Text(&text, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, p, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"azure-only: the PUT may reset these",
		`! properties.dhcpOptions = {"dnsServers":["10.0.0.4"]}`,
		"# properties.flowTimeoutInMinutes = 10 (Azure does not return it: not compared)",
		"# properties.secretish = (sensitive) (Azure does not return it: not compared)",
		"Not compared: 1 property the manifests set on 1 unchanged resource, which Azure does not return",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "createMode") {
		t.Errorf("text lists an unchanged resource's not-returned property:\n%s", text.String())
	}
	for _, want := range []string{"The PUT may reset these", "```diff\n! properties.dhcpOptions = "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}

	same.AzureOnly = []planner.PathValue{{Path: "properties.enableSoftDelete", Value: true}}
	drift := &planner.Plan{Drift: true, Resources: []*planner.Resource{same}}
	text.Reset()
	if err := Text(&text, drift, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"= Vault default/kv matches the manifests", "Azure also holds these", "! properties.enableSoftDelete = true", "# properties.createMode"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("drift report lacks %q:\n%s", want, text.String())
		}
	}
}
