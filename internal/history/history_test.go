package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
)

const (
	sub    = "00000000-0000-0000-0000-000000000001"
	vnetID = "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet"
	azkRun = "a2c0a2c0-1111-8111-8111-111111111111"
	portal = "portal-user@contoso.example"
)

// row is a resourcechanges row as Resource Graph serves it.
func row(target, changeType, at, by, client, correlation string, changes map[string][3]string) json.RawMessage {
	cs := map[string]any{}
	for p, c := range changes {
		cs[p] = map[string]string{"previousValue": c[0], "newValue": c[1], "propertyChangeType": c[2]}
	}
	b, _ := json.Marshal(map[string]any{
		"id":   target + "/providers/Microsoft.Resources/changes/08584",
		"name": "08584", "type": "microsoft.resources/changes", "subscriptionId": sub, "resourceGroup": "rg",
		"properties": map[string]any{
			"targetResourceId":   target,
			"targetResourceType": "microsoft.network/virtualnetworks",
			"changeType":         changeType,
			"changeAttributes": map[string]any{
				"timestamp": at, "changedBy": by, "clientType": client,
				"operation": "Microsoft.Network/virtualNetworks/write", "correlationId": correlation, "changesCount": len(changes),
			},
			"changes": cs,
		},
	})
	return b
}

func event(at, caller, correlation, status string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"caller": caller, "correlationId": correlation, "eventTimestamp": at,
		"operationName": map[string]string{"value": "Microsoft.Network/virtualNetworks/write", "localizedValue": "Create or Update Virtual Network"},
		"status":        map[string]string{"value": status}, "resourceId": vnetID,
		"httpRequest": map[string]string{"method": "PUT"}, "category": map[string]string{"value": "Administrative"},
	})
	return b
}

// fakeGraph serves Resource Graph's query API and the Activity Log over
// rows, checking each request as the emulator does.
type fakeGraph struct {
	t        *testing.T
	rows     []json.RawMessage
	events   map[string][]json.RawMessage // lower-cased resource ID -> events
	pageSize int
	err      error

	mu       sync.Mutex
	batches  [][]string // the IDs of each query
	subs     []string
	logReads []string
}

var queryShape = regexp.MustCompile(`^resourcechanges \| extend targetResourceId = tolower\(tostring\(properties\.targetResourceId\)\), changeTime = todatetime\(properties\.changeAttributes\.timestamp\) \| where targetResourceId in \(('[^']+'(, '[^']+')*)\) \| order by changeTime asc$`)

func (f *fakeGraph) QueryResourceGraph(_ context.Context, subscription string, request any) (json.RawMessage, error) {
	if f.err != nil {
		return nil, f.err
	}
	b, _ := json.Marshal(request)
	var req struct {
		Subscriptions []string `json:"subscriptions"`
		Query         string   `json:"query"`
		Options       struct {
			ResultFormat string `json:"resultFormat"`
			Top          int    `json:"$top"`
			SkipToken    string `json:"$skipToken"`
		} `json:"options"`
	}
	if err := json.Unmarshal(b, &req); err != nil {
		f.t.Fatal(err)
	}
	m := queryShape.FindStringSubmatch(req.Query)
	if m == nil || req.Options.ResultFormat != "objectArray" || len(req.Subscriptions) != 1 || req.Subscriptions[0] != subscription {
		f.t.Fatalf("a query the emulator refuses: %s", b)
	}
	var ids []string
	for _, q := range strings.Split(m[1], ", ") {
		ids = append(ids, strings.Trim(q, "'"))
	}
	if req.Options.SkipToken == "" {
		f.mu.Lock()
		f.batches = append(f.batches, ids)
		f.subs = append(f.subs, req.Subscriptions[0])
		f.mu.Unlock()
	}
	var data []json.RawMessage
	for _, r := range f.rows {
		var probe changeRow
		_ = json.Unmarshal(r, &probe)
		for _, id := range ids {
			if strings.EqualFold(probe.Properties.TargetResourceID, id) {
				data = append(data, r)
			}
		}
	}
	start := 0
	if req.Options.SkipToken != "" {
		fmt.Sscan(req.Options.SkipToken, &start)
	}
	size := f.pageSize
	if size == 0 {
		size = req.Options.Top
	}
	end := min(start+size, len(data))
	answer := map[string]any{"totalRecords": len(data), "count": end - start, "resultTruncated": "false", "data": data[start:end], "facets": []any{}}
	if end < len(data) {
		answer["$skipToken"] = fmt.Sprint(end)
	}
	return json.Marshal(answer)
}

func (f *fakeGraph) ActivityLog(_ context.Context, subscription, filter string) ([]json.RawMessage, error) {
	m := regexp.MustCompile(`^eventTimestamp ge '([^']+)' and eventTimestamp le '([^']+)' and (resourceUri|resourceGroupName) eq '([^']+)'$`).FindStringSubmatch(filter)
	if m == nil || subscription != sub {
		f.t.Fatalf("an Activity Log filter Azure refuses: %s (subscription %s)", filter, subscription)
	}
	from, _ := time.Parse(time.RFC3339, m[1])
	to, _ := time.Parse(time.RFC3339, m[2])
	if got := to.Sub(from); got != 90*24*time.Hour {
		f.t.Errorf("the Activity Log is read over %s, not the 90 days it keeps", got)
	}
	f.mu.Lock()
	f.logReads = append(f.logReads, m[4])
	f.mu.Unlock()
	if m[3] == "resourceUri" {
		return f.events[m[4]], nil
	}
	var events []json.RawMessage
	for id, e := range f.events {
		if strings.Contains(strings.ToLower(id), "/resourcegroups/"+strings.ToLower(m[4])+"/") {
			events = append(events, e...)
		}
	}
	return events, nil
}

func reader(f *fakeGraph) *Reader {
	return &Reader{Client: f, Own: arm.IsAzkCorrelationID, Now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }}
}

func TestReadBatchesPerSubscriptionAndPages(t *testing.T) {
	var ids []string
	for i := range 250 {
		ids = append(ids, fmt.Sprintf("/subscriptions/%s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/VNet%03d", sub, i))
	}
	other := "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet"
	ids = append(ids, other, ids[0]) // the same resource twice is read once
	f := &fakeGraph{t: t, pageSize: 2}
	for i := range 5 {
		f.rows = append(f.rows, row(ids[7], "Update", fmt.Sprintf("2026-12-01T0%d:00:00Z", i), "azk-sp", "Unspecified", azkRun, nil))
	}
	f.rows = append(f.rows, row(ids[7], "Create", "2026-11-30T00:00:00Z", "azk-sp", "Unspecified", azkRun, nil))
	f.rows = append(f.rows, row(other, "Create", "2026-11-30T00:00:00Z", "someone", "Azure CLI", "c0ffee00-0000-0000-0000-000000000000", nil))
	res := reader(f).Read(context.Background(), ids)
	if len(res.Failed) != 0 {
		t.Fatalf("failed: %v", res.Failed)
	}
	perSub := map[string]int{}
	for i, b := range f.batches {
		if len(b) > batchSize {
			t.Errorf("a query of %d IDs", len(b))
		}
		for _, id := range b {
			if id != strings.ToLower(id) {
				t.Errorf("%s is not lower-cased", id)
			}
			if !strings.Contains(id, f.subs[i]) {
				t.Errorf("%s queried in subscription %s", id, f.subs[i])
			}
		}
		perSub[f.subs[i]] += len(b)
	}
	if len(f.batches) != 4 || perSub[sub] != 250 || perSub["00000000-0000-0000-0000-000000000002"] != 1 {
		t.Errorf("%d queries, IDs per subscription %v; want 3 queries for 250 IDs and 1 for 1", len(f.batches), perSub)
	}
	trail := res.Trails[strings.ToLower(ids[7])]
	if len(trail.Records) != 6 || trail.Records[0].ChangeType != "Create" || !trail.Records[5].Timestamp.Equal(time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)) {
		t.Errorf("trail across pages: %+v", trail.Records)
	}
	// The Activity Log is read for the resources whose records reach back
	// to neither azk's write nor the creation (all but the two with a
	// record), once for their resource group.
	if !slices.Equal(f.logReads, []string{"rg"}) {
		t.Errorf("Activity Log reads %v, want one of the resource group rg", f.logReads)
	}
}

func TestReadFailureMarksTheResources(t *testing.T) {
	f := &fakeGraph{t: t, err: errors.New("403 AuthorizationFailed")}
	res := reader(f).Read(context.Background(), []string{vnetID})
	if why := res.Failed[strings.ToLower(vnetID)]; !strings.Contains(why, "AuthorizationFailed") || len(res.Trails) != 0 {
		t.Errorf("failed %v, trails %v", res.Failed, res.Trails)
	}
}

// portalDrift is a vnet azk created and a portal user changed afterwards.
func portalDrift() []json.RawMessage {
	return []json.RawMessage{
		row(vnetID, "Create", "2026-11-01T10:00:00Z", "azk-sp", "Unspecified", azkRun, map[string][3]string{
			"properties.addressSpace.addressPrefixes[0]": {"", "10.0.0.0/16", "Insert"},
			"properties.enableDdosProtection":            {"", "False", "Insert"},
		}),
		row(vnetID, "Update", "2026-11-20T09:30:00Z", portal, "Azure Portal", "5c1e0000-0000-0000-0000-000000000001", map[string][3]string{
			"properties.dhcpOptions.dnsServers[0]": {"", "10.9.9.9", "Insert"},
			"tags.owner":                           {"", "alice", "Insert"},
		}),
	}
}

func classifyOf(t *testing.T, rows []json.RawMessage, events []json.RawMessage, azureOnly []string, diffs []Difference) Verdict {
	t.Helper()
	f := &fakeGraph{t: t, rows: rows, events: map[string][]json.RawMessage{strings.ToLower(vnetID): events}}
	res := reader(f).Read(context.Background(), []string{vnetID})
	if len(res.Failed) != 0 {
		t.Fatal(res.Failed)
	}
	return Classify(*res.Trails[strings.ToLower(vnetID)], azureOnly, diffs, arm.IsAzkCorrelationID)
}

func classes(v Verdict) string {
	var out []string
	for _, f := range v.Findings {
		s := f.Path + "=" + string(f.Class)
		if f.By != nil {
			s += fmt.Sprintf("(%s, %s, %s, %s)", f.By.ChangedBy, f.By.ClientType, f.By.Timestamp.Format(time.RFC3339), f.By.Operation)
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

func TestClassify(t *testing.T) {
	azureOnly := []string{"properties.dhcpOptions.dnsServers", "tags.owner", "properties.enableDdosProtection", "properties.flowTimeoutInMinutes"}
	soft := []Difference{{Path: "properties.enableSoftDelete", Azure: true, HasBase: true}}
	edited := []Difference{{Path: "properties.enableSoftDelete", Azure: true, HasBase: true, SinceBase: true}}
	noBase := []Difference{{Path: "properties.enableSoftDelete", Azure: true}}
	portalRow := portalDrift()[1]
	azkUpdate := row(vnetID, "Update", "2026-11-21T08:00:00Z", "azk-sp", "Unspecified", "a2c0a2c0-2222-8222-8222-222222222222", nil)
	cases := []struct {
		name      string
		rows      []json.RawMessage
		events    []json.RawMessage
		azureOnly []string
		diffs     []Difference
		want      string
		unknown   string
	}{
		{name: "portal changes after azk's create", rows: portalDrift(), azureOnly: azureOnly,
			want: "properties.dhcpOptions.dnsServers=changedOutside(" + portal + ", Azure Portal, 2026-11-20T09:30:00Z, Microsoft.Network/virtualNetworks/write); " +
				"tags.owner=changedOutside(" + portal + ", Azure Portal, 2026-11-20T09:30:00Z, Microsoft.Network/virtualNetworks/write); " +
				"properties.enableDdosProtection=default; properties.flowTimeoutInMinutes=default"},
		{name: "azk wrote after the portal: nothing is outside", rows: append(portalDrift(), azkUpdate), azureOnly: azureOnly[:2],
			want: "properties.dhcpOptions.dnsServers=default; tags.owner=default"},
		{name: "a value Azure forces, manifests unchanged since the base", rows: portalDrift(), diffs: soft,
			want: "properties.enableSoftDelete=azureKeeps"},
		{name: "the manifests changed it since the base", rows: portalDrift(), diffs: edited, want: ""},
		{name: "no base cannot tell a forced value from an edit", rows: portalDrift(), diffs: noBase, want: ""},
		{name: "a difference another principal made", rows: portalDrift(), diffs: []Difference{{Path: "tags.owner", Azure: "alice", HasBase: true}},
			want: "tags.owner=changedOutside(" + portal + ", Azure Portal, 2026-11-20T09:30:00Z, Microsoft.Network/virtualNetworks/write)"},
		{name: "created by another, changed by nobody since", rows: []json.RawMessage{row(vnetID, "Create", "2026-11-01T10:00:00Z", "bob", "Azure CLI", "c0ffee00-0000-0000-0000-000000000000", nil)},
			azureOnly: azureOnly[:1], diffs: soft, want: "properties.dhcpOptions.dnsServers=default"},
		{name: "no record reaches back", rows: []json.RawMessage{portalRow}, azureOnly: azureOnly[:1], diffs: soft,
			want: "properties.dhcpOptions.dnsServers=unknown; properties.enableSoftDelete=unknown", unknown: "no change record or Activity Log event reaches back"},
		{name: "nothing at all (retention zero)", azureOnly: azureOnly[:1],
			want: "properties.dhcpOptions.dnsServers=unknown", unknown: "no change record"},
		{name: "the Activity Log holds azk's older write", rows: []json.RawMessage{portalRow},
			events:    []json.RawMessage{event("2026-10-01T00:00:00Z", "azk-sp", azkRun, "Started"), event("2026-10-01T00:00:05Z", "azk-sp", azkRun, "Succeeded"), event("2026-11-20T09:30:00Z", portal, "5c1e0000-0000-0000-0000-000000000001", "Succeeded")},
			azureOnly: azureOnly[:3], diffs: soft,
			want: "properties.dhcpOptions.dnsServers=changedOutside(" + portal + ", Azure Portal, 2026-11-20T09:30:00Z, Microsoft.Network/virtualNetworks/write); " +
				"tags.owner=changedOutside(" + portal + ", Azure Portal, 2026-11-20T09:30:00Z, Microsoft.Network/virtualNetworks/write); " +
				"properties.enableDdosProtection=default; properties.enableSoftDelete=azureKeeps"},
		{name: "the Activity Log holds a later write no record explains", rows: nil,
			events:    []json.RawMessage{event("2026-10-01T00:00:05Z", "azk-sp", azkRun, "Succeeded"), event("2026-10-02T00:00:00Z", "carol@contoso.example", "b0b00000-0000-0000-0000-000000000000", "Succeeded")},
			azureOnly: azureOnly[:1], want: "properties.dhcpOptions.dnsServers=unknown", unknown: "carol@contoso.example wrote it at 2026-10-02T00:00:00Z, after azk's last write"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := classifyOf(t, c.rows, c.events, c.azureOnly, c.diffs)
			if got := classes(v); got != c.want {
				t.Errorf("classes:\n got %s\nwant %s", got, c.want)
			}
			if c.unknown == "" && v.Unknown != "" || !strings.Contains(v.Unknown, c.unknown) {
				t.Errorf("unknown %q, want %q", v.Unknown, c.unknown)
			}
		})
	}
}

// Changes by others at paths the plan lists nowhere (a provider's own
// defaults the differ leaves out) are changedOutside all the same.
func TestClassifyOutsideUnlistedPaths(t *testing.T) {
	v := classifyOf(t, portalDrift(), nil, []string{"tags.owner"}, nil)
	if len(v.Outside) != 1 || v.Outside[0].Path != "properties.dhcpOptions.dnsServers[0]" || v.Outside[0].New != "10.9.9.9" ||
		v.Outside[0].Class != ChangedOutside || v.Outside[0].By.ChangedBy != portal {
		t.Errorf("outside: %+v", v.Outside)
	}
	if v := classifyOf(t, nil, nil, nil, nil); len(v.Outside) != 0 || v.Unknown == "" {
		t.Errorf("nothing retained: %+v", v)
	}
}

func TestTouches(t *testing.T) {
	for _, c := range []struct {
		record, path string
		want         bool
	}{
		{"properties.dhcpOptions.dnsServers[0]", "properties.dhcpOptions.dnsServers", true},
		{"properties.dhcpOptions.dnsServers[0]", "properties.dhcpOptions", true},
		{"properties.networkAcls", "properties.networkAcls.ipRules[0].value", true},
		{"Tags.Owner", "tags.owner", true},
		{"tags.owner", "tags.ownerTeam", false},
		{"properties.dhcpOptions.dnsServers[0]", "properties.dhcpOptions.dnsServersExtra", false},
	} {
		if got := Touches(c.record, c.path); got != c.want {
			t.Errorf("Touches(%q, %q) = %v", c.record, c.path, got)
		}
	}
}

// withResource is an Activity Log event of another resource than vnetID.
func withResource(e json.RawMessage, id string) json.RawMessage {
	var m map[string]any
	_ = json.Unmarshal(e, &m)
	m["resourceId"] = id
	b, _ := json.Marshal(m)
	return b
}

// A resource group holding several resources whose records do not reach
// back is read from the Activity Log once, each resource taking its own
// writes; a resource alone in its group is read by itself.
func TestActivityLogReadOncePerResourceGroup(t *testing.T) {
	in := func(group, name string) string {
		return "/subscriptions/" + sub + "/resourceGroups/" + group + "/providers/Microsoft.Network/virtualNetworks/" + name
	}
	a, b, lone := in("rg", "a"), in("rg", "b"), in("other", "c")
	f := &fakeGraph{t: t, events: map[string][]json.RawMessage{
		strings.ToLower(a):    {withResource(event("2026-10-01T00:00:00Z", "azk-sp", azkRun, "Succeeded"), a)},
		strings.ToLower(b):    {withResource(event("2026-10-02T00:00:00Z", "someone", "c0ffee00-0000-0000-0000-000000000000", "Succeeded"), b)},
		strings.ToLower(lone): {withResource(event("2026-10-03T00:00:00Z", "azk-sp", azkRun, "Succeeded"), lone)},
	}}
	res := reader(f).Read(context.Background(), []string{a, b, lone})
	slices.Sort(f.logReads)
	if want := []string{strings.ToLower(lone), "rg"}; !slices.Equal(f.logReads, want) {
		t.Errorf("Activity Log reads %v, want %v", f.logReads, want)
	}
	for id, caller := range map[string]string{a: "azk-sp", b: "someone", lone: "azk-sp"} {
		if w := res.Trails[strings.ToLower(id)].Writes; len(w) != 1 || w[0].Caller != caller {
			t.Errorf("%s: writes %+v, want one by %s", id, w, caller)
		}
	}
}
