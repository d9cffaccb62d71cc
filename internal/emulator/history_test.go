package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
)

// The query shapes azk sends (issue 36's contract).
func changesQueryOf(ids ...string) string {
	return "resourcechanges | extend targetResourceId = tolower(tostring(properties.targetResourceId)), changeTime = todatetime(properties.changeAttributes.timestamp) | where targetResourceId in ('" +
		strings.ToLower(strings.Join(ids, "', '")) + "') | order by changeTime asc"
}

func resourcesQueryOf(ids ...string) string {
	return "resources | where tolower(id) in ('" + strings.ToLower(strings.Join(ids, "','")) + "')"
}

// historyCaller sends requests as one client would: its User-Agent and
// correlation ID, with an opaque bearer token (the emulator's default user).
type historyCaller struct {
	t   *testing.T
	run *Running
}

func (h historyCaller) send(method, path string, body any, userAgent string) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.run.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer opaque")
	req.Header.Set("Content-Type", "application/json")
	if userAgent != "" {
		req.Header.Set("User-Agent", userAgent)
	}
	resp, err := h.run.HTTPClient().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// graphPage is one answer of Resource Graph's query API.
type graphPage struct {
	TotalRecords    int              `json:"totalRecords"`
	Count           int              `json:"count"`
	ResultTruncated string           `json:"resultTruncated"`
	SkipToken       string           `json:"$skipToken"`
	Data            []map[string]any `json:"data"`
}

// query runs a Resource Graph query, following $skipToken to the end; it
// fails the test unless every page answers 200.
func (h historyCaller) query(query string, top int) (rows []map[string]any, pages int) {
	h.t.Helper()
	token := ""
	for {
		options := map[string]any{"resultFormat": "objectArray", "$top": top}
		if token != "" {
			options["$skipToken"] = token
		}
		status, data := h.send(http.MethodPost, "/providers/Microsoft.ResourceGraph/resources?api-version=2022-10-01",
			map[string]any{"subscriptions": []string{strings.TrimPrefix(sub, "/subscriptions/")}, "query": query, "options": options}, "")
		if status != http.StatusOK {
			h.t.Fatalf("query %q: %d %s", query, status, data)
		}
		var p graphPage
		if err := json.Unmarshal(data, &p); err != nil {
			h.t.Fatal(err)
		}
		if p.Count != len(p.Data) || p.ResultTruncated != "false" {
			h.t.Errorf("page %d: count %d for %d rows, resultTruncated %q", pages, p.Count, len(p.Data), p.ResultTruncated)
		}
		rows, pages, token = append(rows, p.Data...), pages+1, p.SkipToken
		if token == "" {
			if p.TotalRecords != len(rows) {
				h.t.Errorf("totalRecords %d, but the pages held %d rows", p.TotalRecords, len(rows))
			}
			return rows, pages
		}
	}
}

// activity lists the Activity Log's events for filter, following nextLink.
func (h historyCaller) activity(filter string) []map[string]any {
	h.t.Helper()
	path := sub + "/providers/Microsoft.Insights/eventtypes/management/values?api-version=2015-04-01&$filter=" + url.QueryEscape(filter)
	var events []map[string]any
	for path != "" {
		status, data := h.send(http.MethodGet, path, nil, "")
		if status != http.StatusOK {
			h.t.Fatalf("activity log %q: %d %s", filter, status, data)
		}
		var page struct {
			Value    []map[string]any `json:"value"`
			NextLink string           `json:"nextLink"`
		}
		if err := json.Unmarshal(data, &page); err != nil {
			h.t.Fatal(err)
		}
		events = append(events, page.Value...)
		path = strings.TrimPrefix(page.NextLink, h.run.URL)
	}
	return events
}

func field(v any, path ...string) string {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

// change is a row's change of one property: "<type> <previous> -> <new>",
// with "-" for a value not given.
func change(row map[string]any, property string) string {
	changes, _ := row["properties"].(map[string]any)["changes"].(map[string]any)
	c, ok := changes[property].(map[string]any)
	if !ok {
		return "none"
	}
	value := func(k string) string {
		if v, ok := c[k].(string); ok {
			return v
		}
		return "-"
	}
	return fmt.Sprintf("%s %s -> %s", c["propertyChangeType"], value("previousValue"), value("newValue"))
}

const azCLIUserAgent = "AZURECLI/2.67.0 (DEB) azsdk-python-core/1.31.0 Python/3.12.3 (Linux-6.8.0-x86_64-with-glibc2.39)"

// TestChangeHistoryTellsWhoChangedWhat: a PUT by azk (its run ID and
// User-Agent), a drift in the portal and a PUT by the Azure CLI each leave a
// change record Resource Graph serves, with the property changes, caller,
// client type, operation and correlation ID, and two Activity Log events
// (issue 36, items 1 and 5).
func TestChangeHistoryTellsWhoChangedWhat(t *testing.T) {
	dir := t.TempDir()
	run, err := Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	h := historyCaller{t, run}
	vnet := rgID + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	vnetAPI := strings.TrimPrefix(apiFor(vnet), "?api-version=")

	runID := arm.NewRunID()
	azk, err := arm.New(arm.Options{Credential: arm.EmulatorCredential, Endpoint: run.URL, Transport: run.HTTPClient(), Subscription: strings.TrimPrefix(sub, "/subscriptions/"),
		Version: "v1.0.0", RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	put := func(id, version string, body map[string]any) {
		t.Helper()
		op, err := azk.Put(ctx, id, version, body)
		if err == nil {
			_, err = op.Wait(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now().UTC()
	put(rgID, strings.TrimPrefix(rgAPI, "?api-version="), map[string]any{"location": "westus2"})
	put(vnet, vnetAPI, map[string]any{"location": "westus2", "tags": map[string]any{"owner": "team-a"}, "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}, "dhcpOptions": map[string]any{"dnsServers": []string{"10.0.0.4"}}, "enableDdosProtection": false}})
	afterAzk := time.Now().UTC()
	if err := run.AdminClient().Drift(ctx, vnet, map[string]any{"tags": map[string]any{"owner": "team-b"}, "properties": map[string]any{"dhcpOptions": map[string]any{"dnsServers": []string{"10.0.0.5"}}}}); err != nil {
		t.Fatal(err)
	}
	status, data := h.send(http.MethodPut, vnet+apiFor(vnet), map[string]any{"location": "westus2", "tags": map[string]any{"owner": "team-b"}, "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}, "dhcpOptions": map[string]any{"dnsServers": []string{"10.0.0.5"}}, "enableDdosProtection": true}}, azCLIUserAgent)
	if status >= 300 {
		t.Fatalf("the Azure CLI's PUT: %d %s", status, data)
	}

	rows, _ := h.query(changesQueryOf(vnet), 1000)
	if len(rows) != 3 {
		t.Fatalf("want 3 change records of the network, got %d: %v", len(rows), rows)
	}
	type record struct{ changeType, changedBy, clientType, operation string }
	want := []record{
		{"Create", "emulator@example.com", "Unspecified", "Microsoft.Network/virtualNetworks/write"},
		{"Update", "portal-user@contoso.example", "Azure Portal", "Microsoft.Network/virtualNetworks/write"},
		{"Update", "emulator@example.com", "Azure CLI", "Microsoft.Network/virtualNetworks/write"},
	}
	for i, row := range rows {
		attrs := func(k string) string { return field(row, "properties", "changeAttributes", k) }
		got := record{field(row, "properties", "changeType"), attrs("changedBy"), attrs("clientType"), attrs("operation")}
		if got != want[i] {
			t.Errorf("record %d is %+v, want %+v", i, got, want[i])
		}
		if field(row, "type") != "microsoft.resources/changes" || field(row, "properties", "targetResourceId") != vnet ||
			field(row, "properties", "targetResourceType") != "microsoft.network/virtualnetworks" || field(row, "targetResourceId") != strings.ToLower(vnet) ||
			field(row, "id") != vnet+"/providers/Microsoft.Resources/changes/"+field(row, "name") || field(row, "resourceGroup") != "rg1" {
			t.Errorf("record %d does not name its change and target as Resource Graph does: %v", i, row)
		}
		if _, err := time.Parse(time.RFC3339Nano, attrs("timestamp")); err != nil {
			t.Errorf("record %d: timestamp %q: %v", i, attrs("timestamp"), err)
		}
		if i > 0 && attrs("previousResourceSnapshotId") != field(rows[i-1], "properties", "changeAttributes", "newResourceSnapshotId") {
			t.Errorf("record %d does not follow the snapshot of record %d", i, i-1)
		}
	}
	corr := func(i int) string { return field(rows[i], "properties", "changeAttributes", "correlationId") }
	if corr(0) != runID || !arm.IsAzkCorrelationID(corr(0)) {
		t.Errorf("azk's create carries correlation ID %q, want its run ID %s", corr(0), runID)
	}
	for _, i := range []int{1, 2} {
		if corr(i) == "" || arm.IsAzkCorrelationID(corr(i)) {
			t.Errorf("record %d (not azk's) carries correlation ID %q", i, corr(i))
		}
	}
	for _, c := range []struct {
		row            int
		property, want string
	}{
		{0, "properties.dhcpOptions.dnsServers[0]", "Insert - -> 10.0.0.4"},
		{0, "tags.owner", "Insert - -> team-a"},
		{0, "properties.enableDdosProtection", "Insert - -> False"},
		{0, "properties.addressSpace.addressPrefixes[0]", "Insert - -> 10.0.0.0/16"},
		{0, "etag", "none"},
		{1, "properties.dhcpOptions.dnsServers[0]", "Update 10.0.0.4 -> 10.0.0.5"},
		{1, "tags.owner", "Update team-a -> team-b"},
		{1, "properties.enableDdosProtection", "none"},
		{1, "systemData.lastModifiedBy", "none"},
		{2, "properties.enableDdosProtection", "Update False -> True"},
		{2, "tags.owner", "none"},
	} {
		if got := change(rows[c.row], c.property); got != c.want {
			t.Errorf("record %d, %s: %s, want %s", c.row, c.property, got, c.want)
		}
	}
	for i, row := range rows {
		changes := row["properties"].(map[string]any)["changes"].(map[string]any)
		if n := row["properties"].(map[string]any)["changeAttributes"].(map[string]any)["changesCount"]; n != float64(len(changes)) {
			t.Errorf("record %d: changesCount %v for %d changes", i, n, len(changes))
		}
	}

	// Pages of one row each, chained by $skipToken, hold the same rows.
	paged, pages := h.query(changesQueryOf(vnet), 1)
	if pages != 3 || fmt.Sprint(paged) != fmt.Sprint(rows) {
		t.Errorf("in pages of 1: %d pages, rows %v; want 3 pages of %v", pages, paged, rows)
	}
	// Several targets: the group's record too, in time order.
	both, _ := h.query(changesQueryOf(rgID, vnet), 100)
	if len(both) != 4 || field(both[0], "properties", "targetResourceId") != rgID {
		t.Errorf("the group and the network: %v", both)
	}
	// An ID not lower-cased matches nothing, as KQL's in compares exactly.
	if upper, _ := h.query(strings.Replace(changesQueryOf(vnet), "vnet1", "VNET1", 1), 100); len(upper) != 0 {
		t.Errorf("an upper-case ID matched %d records", len(upper))
	}

	res, _ := h.query(resourcesQueryOf(vnet, rgID, rgID+"/providers/Microsoft.Network/virtualNetworks/absent"), 100)
	if len(res) != 1 || field(res[0], "id") != vnet || field(res[0], "type") != "microsoft.network/virtualnetworks" || field(res[0], "tags", "owner") != "team-b" || field(res[0], "location") != "westus2" {
		t.Errorf("the resources table: %v", res)
	}

	for _, q := range []string{"resourcechanges | take 5", "resources | where id in ('" + strings.ToLower(vnet) + "')", changesQueryOf(vnet) + " | limit 1",
		changesQueryOf(manyIDs(101)...)} {
		status, data := h.send(http.MethodPost, "/providers/Microsoft.ResourceGraph/resources?api-version=2022-10-01", map[string]any{"query": q}, "")
		var e struct {
			Error struct {
				Code    string `json:"code"`
				Details []struct{ Code, Message string }
			}
		}
		_ = json.Unmarshal(data, &e)
		if status != http.StatusBadRequest || e.Error.Code != "BadRequest" || len(e.Error.Details) != 1 || e.Error.Details[0].Code != "InvalidQuery" ||
			!strings.Contains(e.Error.Details[0].Message, "resourcechanges | extend targetResourceId") {
			t.Errorf("query %.60q: %d %s; want 400 InvalidQuery naming the shapes served", q, status, data)
		}
	}

	// The Activity Log: two events per write, newest first, by time and resource.
	ts := func(t time.Time) string { return t.Format(time.RFC3339Nano) }
	events := h.activity("eventTimestamp ge '" + ts(began) + "' and resourceUri eq '" + vnet + "'")
	if len(events) != 6 {
		t.Fatalf("want 6 events of the network, got %d: %v", len(events), events)
	}
	for i, wantStatus := range []string{"Succeeded", "Started", "Succeeded", "Started", "Succeeded", "Started"} {
		e := events[i]
		if field(e, "status", "value") != wantStatus || field(e, "operationName", "value") != "Microsoft.Network/virtualNetworks/write" ||
			field(e, "category", "value") != "Administrative" || field(e, "resourceId") != vnet {
			t.Errorf("event %d: %v", i, e)
		}
	}
	if field(events[0], "httpRequest", "method") != "PUT" || field(events[5], "correlationId") != runID || field(events[5], "caller") != "emulator@example.com" ||
		field(events[2], "caller") != "portal-user@contoso.example" || field(events[5], "httpRequest", "clientRequestId") == "" {
		t.Errorf("the events do not name the requests: %v", events)
	}
	if early := h.activity("eventTimestamp ge '" + ts(began) + "' and eventTimestamp le '" + ts(afterAzk) + "' and resourceUri eq '" + vnet + "'"); len(early) != 2 || field(early[0], "correlationId") != runID {
		t.Errorf("up to azk's write: %v", early)
	}
	if group := h.activity("eventTimestamp ge '" + ts(began) + "'"); len(group) != 8 {
		t.Errorf("the subscription's events: %d, want 8", len(group))
	}
	status, data = h.send(http.MethodGet, sub+"/providers/Microsoft.Insights/eventtypes/management/values?api-version=2015-04-01&$filter="+url.QueryEscape("resourceUri eq '"+vnet+"'"), nil, "")
	if status != http.StatusBadRequest || !strings.Contains(string(data), "eventTimestamp ge") {
		t.Errorf("a filter without a start time: %d %s", status, data)
	}

	// A delete records a Delete of the resource.
	if status, data := h.send(http.MethodDelete, vnet+apiFor(vnet), nil, ""); status >= 300 {
		t.Fatalf("DELETE: %d %s", status, data)
	}
	rows, _ = h.query(changesQueryOf(vnet), 100)
	if last := rows[len(rows)-1]; len(rows) != 4 || field(last, "properties", "changeType") != "Delete" ||
		field(last, "properties", "changeAttributes", "operation") != "Microsoft.Network/virtualNetworks/delete" || change(last, "tags.owner") != "Remove team-b -> -" {
		t.Errorf("after the delete: %v", rows)
	}

	// The history outlives a restart.
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	if kept, _ := (historyCaller{t, again}).query(changesQueryOf(vnet), 100); fmt.Sprint(kept) != fmt.Sprint(rows) {
		t.Errorf("after a restart the history is %v, want %v", kept, rows)
	}
}

func manyIDs(n int) []string {
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("%s/providers/Microsoft.Network/virtualNetworks/v%d", rgID, i))
	}
	return ids
}

// TestHistoryRetention: records older than the retention are dropped, each
// API by its own; retention 0 keeps nothing, set by option or admin API.
func TestHistoryRetention(t *testing.T) {
	c := start(t, Options{}, false)
	h := historyCaller{t, c.run}
	admin := c.run.AdminClient()
	ctx := context.Background()
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	began := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano)
	if rows, _ := h.query(changesQueryOf(rgID), 100); len(rows) != 1 {
		t.Fatalf("the group's create: %v", rows)
	}
	if ret := c.run.Server.HistoryRetention(); ret.Changes != 14*24*time.Hour || ret.Activity != 90*24*time.Hour {
		t.Errorf("default retention %+v, want Azure's 14 and 90 days", ret)
	}

	if err := admin.SetHistoryRetention(ctx, HistoryRetention{Changes: 0, Activity: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if rows, _ := h.query(changesQueryOf(rgID), 100); len(rows) != 0 {
		t.Errorf("changes retention 0 still answers %v", rows)
	}
	if events := h.activity("eventTimestamp ge '" + began + "'"); len(events) != 2 {
		t.Errorf("the Activity Log (1h) lost the write: %v", events)
	}

	// By time: a write older than the retention goes, a newer one stays.
	if err := admin.SetHistoryRetention(ctx, HistoryRetention{Changes: time.Hour, Activity: time.Hour}); err != nil {
		t.Fatal(err)
	}
	older := rgID + "/providers/Microsoft.Network/networkSecurityGroups/older"
	newer := rgID + "/providers/Microsoft.Network/networkSecurityGroups/newer"
	c.mustPut(older, map[string]any{"location": "westus2"})
	time.Sleep(1500 * time.Millisecond)
	c.mustPut(newer, map[string]any{"location": "westus2"})
	status, data := h.send(http.MethodPost, "/_emulator/history", map[string]string{"changesRetention": "1s"}, "")
	if status != http.StatusUnauthorized {
		t.Errorf("the admin API without its token: %d %s", status, data)
	}
	if err := admin.SetHistoryRetention(ctx, HistoryRetention{Changes: time.Second, Activity: time.Hour}); err != nil {
		t.Fatal(err)
	}
	rows, _ := h.query(changesQueryOf(older, newer), 100)
	if len(rows) != 1 || field(rows[0], "properties", "targetResourceId") != newer {
		t.Errorf("with 1s retention, 1.5s after the first write: %v", rows)
	}
	if events := h.activity("eventTimestamp ge '" + began + "' and resourceUri eq '" + older + "'"); len(events) != 2 {
		t.Errorf("the Activity Log (1h) lost the older write: %v", events)
	}

	if err := admin.SetHistoryRetention(ctx, HistoryRetention{}); err != nil {
		t.Fatal(err)
	}
	if events := h.activity("eventTimestamp ge '" + began + "'"); len(events) != 0 {
		t.Errorf("activity retention 0 still answers %v", events)
	}
	c.mustPut(rgID+"/providers/Microsoft.Network/networkSecurityGroups/later", map[string]any{"location": "westus2"})
	if rows, _ := h.query(changesQueryOf(rgID+"/providers/Microsoft.Network/networkSecurityGroups/later"), 100); len(rows) != 0 {
		t.Errorf("retention 0 recorded a new write: %v", rows)
	}

	// The options: a negative retention keeps nothing from the start.
	none := start(t, Options{ChangesRetention: -1}, false)
	none.mustPut(rgID, map[string]any{"location": "westus2"})
	if rows, _ := (historyCaller{t, none.run}).query(changesQueryOf(rgID), 100); len(rows) != 0 {
		t.Errorf("Options.ChangesRetention -1 answers %v", rows)
	}
	if events := (historyCaller{t, none.run}).activity("eventTimestamp ge '" + began + "'"); len(events) != 2 {
		t.Errorf("the Activity Log's default retention lost the write: %v", events)
	}
}

// TestHistoryHoldsNoSecret: a secret sent in a PUT or a drift is in no change
// record, no answer and no file of the state.
func TestHistoryHoldsNoSecret(t *testing.T) {
	dir := t.TempDir()
	run, err := Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, run, false)
	h := historyCaller{t, run}
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	const canary, drifted = "Canary-Pa55word-h1st", "Canary-Dr1ft-h1st"
	id := rgID + "/providers/Microsoft.DBforMySQL/flexibleServers/mysql1"
	c.mustPut(id, map[string]any{"location": "westus2", "properties": map[string]any{"administratorLogin": "admin", "administratorLoginPassword": canary}})
	if err := run.AdminClient().Drift(context.Background(), id, map[string]any{"properties": map[string]any{"administratorLoginPassword": drifted, "version": "8.0.21"}}); err != nil {
		t.Fatal(err)
	}
	rows, _ := h.query(changesQueryOf(id), 100)
	if len(rows) != 2 || change(rows[0], "properties.administratorLogin") != "Insert - -> admin" || change(rows[1], "properties.version") == "none" {
		t.Fatalf("the server's records: %v", rows)
	}
	answers, _ := json.Marshal(rows)
	events := h.activity("eventTimestamp ge '" + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339) + "'")
	ev, _ := json.Marshal(events)
	for _, secret := range []string{canary, drifted} {
		if strings.Contains(string(answers)+string(ev), secret) {
			t.Errorf("an answer holds the secret %s", secret)
		}
	}
	run.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, secret := range []string{canary, drifted} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s holds the secret %s", filepath.Base(f), secret)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "history.journal")); err != nil {
		t.Errorf("no history in the state folder: %v", err)
	}
}
