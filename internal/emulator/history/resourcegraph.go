package history

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// Resource Graph's query API: POST /providers/Microsoft.ResourceGraph/resources.
// The emulator runs no KQL: it serves the query shapes azk sends, each read
// whitespace-insensitively, and refuses any other query as Resource Graph
// refuses one it cannot parse.

// maxQueryIDs is the most IDs one query may name, as azk batches them.
const maxQueryIDs = 100

// servedShapes names the queries served, for the refusal's message.
const servedShapes = "resourcechanges | extend targetResourceId = tolower(tostring(properties.targetResourceId)), changeTime = todatetime(properties.changeAttributes.timestamp) | where targetResourceId in ('<id>', ...) | order by changeTime asc; " +
	"resources | where tolower(id) in ('<id>', ...)"

// idList is a KQL list of single-quoted strings.
const idList = `\(\s*('[^']*'(?:\s*,\s*'[^']*')*)\s*\)`

var (
	changesQuery = regexp.MustCompile(`^\s*resourcechanges\s*\|\s*extend\s+targetResourceId\s*=\s*tolower\s*\(\s*tostring\s*\(\s*properties\.targetResourceId\s*\)\s*\)\s*,\s*changeTime\s*=\s*todatetime\s*\(\s*properties\.changeAttributes\.timestamp\s*\)\s*\|\s*where\s+targetResourceId\s+in\s*` +
		idList + `\s*\|\s*order\s+by\s+changeTime\s+asc\s*$`)
	resourcesQuery = regexp.MustCompile(`^\s*resources\s*\|\s*where\s+tolower\s*\(\s*id\s*\)\s+in\s*` + idList + `\s*$`)
	quoted         = regexp.MustCompile(`'([^']*)'`)
)

// queryRequest is Resource Graph's request body.
type queryRequest struct {
	Subscriptions []string `json:"subscriptions"`
	Query         string   `json:"query"`
	Options       struct {
		ResultFormat string `json:"resultFormat"`
		Top          *int   `json:"$top"`
		Skip         int    `json:"$skip"`
		SkipToken    string `json:"$skipToken"`
	} `json:"options"`
}

// invalidQuery is Resource Graph's refusal of a query, naming what the emulator serves.
func invalidQuery(w http.ResponseWriter, detail string) {
	armcore.WriteJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
		"code":    "BadRequest",
		"message": "Please provide below info when asking for support: timestamp, correlationId. The query is invalid.",
		"details": []map[string]string{{
			"code":    "InvalidQuery",
			"message": detail + " The emulator serves only these query shapes: " + servedShapes,
		}},
	}})
}

func (l *Log) serveQuery(w http.ResponseWriter, r *http.Request, body []byte) error {
	var req queryRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: %v.", err)
	}
	if f := req.Options.ResultFormat; f != "" && !strings.EqualFold(f, "objectArray") {
		return armcore.Errorf(http.StatusBadRequest, "BadRequest", "The emulator answers only resultFormat objectArray, not %q.", f)
	}
	top := 100
	if req.Options.Top != nil {
		top = *req.Options.Top
	}
	if top < 1 || top > 1000 {
		return armcore.Errorf(http.StatusBadRequest, "BadRequest", "$top must be between 1 and 1000, not %d.", top)
	}
	skip := req.Options.Skip
	if req.Options.SkipToken != "" {
		var ok bool
		if skip, ok = decodeSkipToken(req.Options.SkipToken); !ok {
			return armcore.Errorf(http.StatusBadRequest, "BadRequest", "The $skipToken is not one this service issued.")
		}
	}
	var (
		m    []string
		rows []map[string]any
	)
	subs := subscriptionSet(req.Subscriptions)
	switch {
	case changesQuery.MatchString(req.Query):
		m = changesQuery.FindStringSubmatch(req.Query)
	case resourcesQuery.MatchString(req.Query):
		m = resourcesQuery.FindStringSubmatch(req.Query)
	default:
		invalidQuery(w, "The query is not one the emulator serves.")
		return nil
	}
	var ids []string
	for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
		ids = append(ids, q[1])
	}
	if len(ids) > maxQueryIDs {
		invalidQuery(w, "The query names "+strconv.Itoa(len(ids))+" IDs, more than the "+strconv.Itoa(maxQueryIDs)+" one query may name.")
		return nil
	}
	if changesQuery.MatchString(req.Query) {
		rows = l.changeRows(ids, subs)
	} else {
		rows = l.resourceRows(ids, subs)
	}
	page := []map[string]any{}
	if skip < len(rows) {
		page = rows[skip:min(skip+top, len(rows))]
	}
	answer := map[string]any{
		"totalRecords": len(rows), "count": len(page), "resultTruncated": "false", "data": page, "facets": []any{},
	}
	if skip+len(page) < len(rows) {
		answer["$skipToken"] = encodeSkipToken(skip + len(page))
	}
	armcore.WriteJSON(w, http.StatusOK, answer)
	return nil
}

// The skip token is opaque to clients: the offset of the next page.
func encodeSkipToken(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset)))
}

func decodeSkipToken(token string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
	return n, err == nil && n >= 0 && strings.HasPrefix(string(b), "offset:")
}

// subscriptionSet is the request's subscriptions, lower-cased; nil means all.
func subscriptionSet(subs []string) map[string]bool {
	if len(subs) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, s := range subs {
		out[strings.ToLower(s)] = true
	}
	return out
}

func inScope(subs map[string]bool, sub string) bool { return subs == nil || subs[strings.ToLower(sub)] }

// changeRows are the resourcechanges rows of the targets (compared as KQL
// compares, exactly, with the lower-cased target ID), by change time.
func (l *Log) changeRows(ids []string, subs map[string]bool) []map[string]any {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	entries := l.keptOf(l.Retention().Changes, want)
	slices.SortStableFunc(entries, func(a, b *Entry) int { return a.At.Compare(b.At) })
	rows := []map[string]any{}
	for _, e := range entries {
		t, _ := armpath.Parse(e.TargetID)
		if !inScope(subs, t.Sub) {
			continue
		}
		rows = append(rows, changeRow(e, t))
	}
	return rows
}

// changeRow is an entry as Resource Graph's resourcechanges table serves
// it, with the query's two extended columns.
func changeRow(e *Entry, t armpath.Target) map[string]any {
	attrs := map[string]any{
		"timestamp":     e.At.Format(time.RFC3339Nano),
		"changedBy":     e.ChangedBy,
		"clientType":    e.ClientType,
		"operation":     e.Operation,
		"correlationId": e.CorrelationID,
		"changesCount":  len(e.Changes),
	}
	if e.PreviousSnapshot != "" {
		attrs["previousResourceSnapshotId"] = e.PreviousSnapshot
	}
	if e.NewSnapshot != "" {
		attrs["newResourceSnapshotId"] = e.NewSnapshot
	}
	lowerID := strings.ToLower(e.TargetID)
	return map[string]any{
		"id":             e.TargetID + "/providers/Microsoft.Resources/changes/" + e.ChangeID,
		"name":           e.ChangeID,
		"type":           "microsoft.resources/changes",
		"tenantId":       armcore.Tenant,
		"subscriptionId": t.Sub,
		"resourceGroup":  strings.ToLower(t.RG),
		"location":       "",
		"properties": map[string]any{
			"targetResourceId":   e.TargetID,
			"targetResourceType": strings.ToLower(e.TargetType),
			"changeType":         e.ChangeType,
			"changeAttributes":   attrs,
			"changes":            e.Changes,
		},
		"targetResourceId": lowerID,
		"changeTime":       e.At.Format(time.RFC3339Nano),
	}
}

// resourceRows are the resources table's rows of the live resources whose
// lower-cased ID is one of ids, by ID. Resource groups are not in it
// (Resource Graph keeps them in resourcecontainers).
func (l *Log) resourceRows(ids []string, subs map[string]bool) []map[string]any {
	rows := []map[string]any{}
	now := time.Now()
	_ = l.core.Read(func(tx armcore.Tx) error {
		for _, id := range ids {
			rec := tx.Live(id)
			if rec == nil || strings.ToLower(rec.ID) != id || strings.EqualFold(rec.Type, armpath.TypeResourceGroup) {
				continue
			}
			t, _ := armpath.Parse(rec.ID)
			if !inScope(subs, t.Sub) {
				continue
			}
			var body map[string]any
			if json.Unmarshal(armcore.View(rec, now), &body) != nil {
				continue
			}
			rows = append(rows, resourceRow(rec.ID, rec.Type, t, body))
		}
		return nil
	})
	slices.SortFunc(rows, func(a, b map[string]any) int { return strings.Compare(a["id"].(string), b["id"].(string)) })
	return slices.CompactFunc(rows, func(a, b map[string]any) bool { return a["id"] == b["id"] })
}

// resourceRow is a resource as Resource Graph's resources table serves it.
func resourceRow(id, typ string, t armpath.Target, body map[string]any) map[string]any {
	row := map[string]any{
		"id": id, "name": t.Name, "type": strings.ToLower(typ), "tenantId": armcore.Tenant,
		"subscriptionId": t.Sub, "resourceGroup": strings.ToLower(t.RG),
		"kind": "", "location": "", "managedBy": "",
		"sku": nil, "plan": nil, "identity": nil, "zones": nil, "extendedLocation": nil,
		"properties": map[string]any{}, "tags": map[string]any{},
	}
	for _, k := range []string{"kind", "location", "managedBy", "sku", "plan", "identity", "zones", "extendedLocation", "properties", "tags"} {
		if v, ok := body[k]; ok && v != nil {
			row[k] = v
		}
	}
	return row
}
