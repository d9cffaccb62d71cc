package planner

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
)

// The spurious-diff measurements (TestCorpusNoSpuriousDiffs,
// TestRecordedLifecycleNoSpuriousDiffs) diff a body ARM has just stored
// with what ARM returned for it. A difference that remains fails the test
// unless one of these categories explains it: each a specific, checkable way
// Azure behaved that no rule of the differ can know. They still count as
// spurious diffs.
const (
	unexplained     = "unexplained"
	recovered       = "recovered from soft delete (the PUT sent createMode recover): ARM restored the deleted resource's state, not the PUT's; the next PUT would change it"
	changedLater    = "changed in Azure after creation by another resource (the first GET after the PUT had no such difference): a real change a PUT would revert"
	addedByReferrer = "added by another resource that refers to this one (a PUT of it carrying this resource's ID came before this GET: an ML workspace adds its access policy to its key vault): a real change a PUT would revert"
	policyTag       = "a tag Azure added while handling the PUT (the PUT's own response carries it, its body does not: Azure Policy's modify effect in the recording subscription); a PUT without it gets it again"
)

// providerBehaviour is one recorded way a resource provider stores or
// returns a property otherwise than sent that neither the REST specification
// nor the CRDs state: the test names it, the differ cannot know it.
type providerBehaviour struct {
	armType, path string
	// sent and stored are the values it applies to; nil stored means the
	// provider does not return the property; "*" matches any value.
	sent, stored any
	reason       string
}

var providerBehaviours = []providerBehaviour{
	{"microsoft.app/managedenvironments", "properties.workloadProfiles[]", nil, "*",
		"Container Apps adds the Consumption workload profile to every environment with workload profiles, and a PUT does not remove it"},
	{"microsoft.machinelearningservices/workspaces", "sku.name", "Standard_S1", "Basic",
		"Azure ML workspaces have one SKU: the provider stores the tier (Basic) as its name"},
	{"microsoft.machinelearningservices/workspaces", "properties.allowPublicAccessWhenBehindVnet", false, true,
		"deprecated in favour of publicNetworkAccess: the provider sets it itself"},
	{"microsoft.machinelearningservices/registries", "properties.regionDetails[].acrDetails[].systemCreatedAcrAccount.acrAccountName", "*", "*",
		"the provider names the registry's system-created accounts itself"},
	{"microsoft.machinelearningservices/registries", "properties.regionDetails[].storageAccountDetails[].systemCreatedStorageAccount.storageAccountName", "*", "*",
		"the provider names the registry's system-created accounts itself"},
	{"microsoft.machinelearningservices/workspaces/connections", "properties.value", "*", nil,
		"the connection's credential is not returned (a secret the REST specification does not flag)"},
	{"microsoft.machinelearningservices/workspaces/connections", "properties.valueFormat", "*", nil,
		"the format of the connection's credential is not returned with it"},
	{"microsoft.operationalinsights/workspaces", "properties.sku.name", "Standalone", "PerGB2018",
		"the Standalone pricing tier is retired: new workspaces get PerGB2018"},
	{"microsoft.dbformysql/flexibleservers/databases", "properties.charset", "utf8", "utf8mb3",
		"MySQL 8 names the utf8 character set utf8mb3"},
	{"microsoft.dbformysql/flexibleservers/databases", "properties.collation", "utf8_unicode_ci", "utf8mb3_unicode_ci",
		"MySQL 8 names the utf8 character set utf8mb3"},
	{"microsoft.kubernetesconfiguration/extensions", "identity.type", "SystemAssigned", nil,
		"the provider does not return an extension's identity (it returns aksAssignedIdentity)"},
}

var indexInPath = regexp.MustCompile(`\[[^\]]*\]`)

// behaviour finds the provider behaviour explaining change c of a resource of armType.
func behaviour(armType string, c Change) (providerBehaviour, bool) {
	path := indexInPath.ReplaceAllString(c.Path, "[]")
	for _, b := range providerBehaviours {
		if b.armType != strings.ToLower(armType) || b.path != path {
			continue
		}
		if b.armType == "microsoft.app/managedenvironments" {
			// The added profile: in Azure, named Consumption, not in the PUT.
			item, _ := c.Before.(map[string]any)
			if c.After == nil && item["name"] == "Consumption" && item["workloadProfileType"] == "Consumption" {
				return b, true
			}
			continue
		}
		if matches(b.sent, c.After) && matches(b.stored, c.Before) {
			return b, true
		}
	}
	return providerBehaviour{}, false
}

func matches(want, got any) bool {
	return want == "*" && got != nil || reflect.DeepEqual(want, got)
}

// recordedPut is what the categories may check about one recorded PUT.
type recordedPut struct {
	rec     *corpus.Recording
	index   int    // of the PUT among the interactions
	get     int    // of the GET diffed with
	path    string // the PUT's URL path
	armType string
	// againstFirst are the changes against the earliest GET after the PUT,
	// when the GET diffed with is a later one; nil otherwise.
	againstFirst []Change
	checkFirst   bool
}

// categorise says why change c of a recorded PUT remains, or unexplained.
func categorise(c Change, p recordedPut) string {
	put := &p.rec.Interactions[p.index]
	var sent, response map[string]any
	_ = json.Unmarshal([]byte(put.Request.Body), &sent)
	_ = json.Unmarshal([]byte(put.Response.Body), &response)
	if props, _ := sent["properties"].(map[string]any); strings.EqualFold(fmt.Sprint(props["createMode"]), "recover") {
		return recovered
	}
	if p.checkFirst && !inChanges(c, p.againstFirst) {
		return changedLater
	}
	if b, ok := behaviour(p.armType, c); ok {
		return "provider behaviour: " + b.reason
	}
	if key, isTag := strings.CutPrefix(c.Path, "tags."); isTag && c.Before != nil && c.After == nil {
		if tags, _ := response["tags"].(map[string]any); tags[key] != nil {
			return policyTag
		}
	}
	if c.Before != nil && c.After == nil && referredBefore(p) {
		return addedByReferrer
	}
	return unexplained
}

func inChanges(c Change, changes []Change) bool {
	for _, f := range changes {
		if f.Path == c.Path && reflect.DeepEqual(f.Before, c.Before) {
			return true
		}
	}
	return false
}

// referredBefore reports a successful PUT of another resource, before the
// GET, whose body carries the ID of the resource p wrote.
func referredBefore(p recordedPut) bool {
	id := strings.ToLower(p.path)
	for j := 0; j < p.get; j++ {
		in := &p.rec.Interactions[j]
		if in.Request.Method != "PUT" || in.Response.Code >= 300 || strings.EqualFold(in.Path(), p.path) {
			continue
		}
		if strings.Contains(strings.ToLower(in.Request.Body), `"`+id+`"`) {
			return true
		}
	}
	return false
}

type categorised struct {
	Change
	category string
}

type spuriousDiff struct {
	recording, key string
	changes        []categorised
}

func (d spuriousDiff) String() string {
	parts := make([]string, len(d.changes))
	for i, c := range d.changes {
		parts[i] = fmt.Sprintf("%s (%s vs %s) [%s]", c.Path, formatValue(c.Before), formatValue(c.After), c.category)
	}
	sort.Strings(parts)
	return d.recording + ": " + d.key + ": " + strings.Join(parts, "; ")
}

// spuriousReport gathers the differences of one measurement.
type spuriousReport struct {
	total      int
	diffs      []spuriousDiff
	categories map[string]int
}

func (r *spuriousReport) add(t *testing.T, d spuriousDiff) {
	t.Helper()
	if r.categories == nil {
		r.categories = map[string]int{}
	}
	r.diffs = append(r.diffs, d)
	failed := false
	for _, c := range d.changes {
		r.categories[c.category]++
		if c.category == unexplained && !failed {
			t.Errorf("unexplained spurious diff: %s", d)
			failed = true
		}
	}
}

// log prints every difference, the count per category and the summary line.
func (r *spuriousReport) log(t *testing.T, summary string) {
	t.Helper()
	for _, d := range r.diffs {
		t.Log(d)
	}
	names := make([]string, 0, len(r.categories))
	for c := range r.categories {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		t.Logf("  %d changes: %s", r.categories[c], c)
	}
	t.Logf("%s: %d of %d", summary, len(r.diffs), r.total)
	if r.total == 0 {
		t.Fatal("no recorded PUT was compared")
	}
}
