package history

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// The Activity Log: GET /subscriptions/{s}/providers/Microsoft.Insights/eventtypes/management/values
// with a $filter that must bound eventTimestamp from below and may bound it
// from above and choose a resource (resourceUri), group, provider or
// correlation ID. Each write is two events, as ARM logs them: Started, then
// Succeeded; newest first.

var (
	filterClause = regexp.MustCompile(`(?i)^\s*(\w+)\s+(eq|ge|le)\s+'([^']*)'\s*$`)
	andSplit     = regexp.MustCompile(`(?i)\s+and\s+`)
)

// activityFilter is what a $filter asks of the events.
type activityFilter struct {
	from, to time.Time
	// field is one of resourceUri, resourceGroupName, resourceProvider and
	// correlationId ("" for none), value what it equals.
	field, value string
}

const servedFilter = "eventTimestamp ge '<time>' [and eventTimestamp le '<time>'] [and resourceUri eq '<id>' | resourceGroupName eq '<group>' | resourceProvider eq '<namespace>' | correlationId eq '<id>']"

func parseActivityFilter(s string) (activityFilter, error) {
	var f activityFilter
	bad := func(why string) error {
		return armcore.Errorf(http.StatusBadRequest, "BadRequest", "The $filter %q is not valid: %s. The emulator serves %s.", s, why, servedFilter)
	}
	if strings.TrimSpace(s) == "" {
		return f, bad("it is required")
	}
	for _, clause := range andSplit.Split(s, -1) {
		m := filterClause.FindStringSubmatch(clause)
		if m == nil {
			return f, bad("cannot read " + strconv.Quote(clause))
		}
		field, op, value := m[1], strings.ToLower(m[2]), m[3]
		switch {
		case strings.EqualFold(field, "eventTimestamp") && (op == "ge" || op == "le"):
			t, err := time.Parse(time.RFC3339Nano, value)
			if err != nil {
				return f, bad("eventTimestamp " + strconv.Quote(value) + " is not an RFC 3339 time")
			}
			if op == "ge" {
				f.from = t
			} else {
				f.to = t
			}
		case op == "eq" && f.field == "" && slices.ContainsFunc([]string{"resourceUri", "resourceGroupName", "resourceProvider", "correlationId"}, func(n string) bool { return strings.EqualFold(n, field) }):
			f.field, f.value = strings.ToLower(field), value
		default:
			return f, bad("cannot filter by " + strconv.Quote(field+" "+op))
		}
	}
	if f.from.IsZero() {
		return f, bad("it must give eventTimestamp ge")
	}
	return f, nil
}

func (f activityFilter) matches(e *Entry, t armpath.Target) bool {
	if e.At.Before(f.from) || (!f.to.IsZero() && e.At.After(f.to)) {
		return false
	}
	switch f.field {
	case "resourceuri":
		return strings.EqualFold(e.TargetID, f.value)
	case "resourcegroupname":
		return strings.EqualFold(t.RG, f.value)
	case "resourceprovider":
		return strings.EqualFold(armpath.NamespaceOf(e.TargetType), f.value)
	case "correlationid":
		return strings.EqualFold(e.CorrelationID, f.value)
	}
	return true
}

func (l *Log) serveActivity(w http.ResponseWriter, r *http.Request, sub string) error {
	q := r.URL.Query()
	f, err := parseActivityFilter(q.Get("$filter"))
	if err != nil {
		return err
	}
	var events []map[string]any
	for _, e := range l.kept(l.Retention().Activity) {
		t, _ := armpath.Parse(e.TargetID)
		if !strings.EqualFold(t.Sub, sub) || !f.matches(e, t) {
			continue
		}
		events = append(events, event(e, t, "Succeeded"), event(e, t, "Started"))
	}
	slices.SortStableFunc(events, func(a, b map[string]any) int {
		return -a["eventTimestamp"].(time.Time).Compare(b["eventTimestamp"].(time.Time))
	})
	skip := 0
	if tok := q.Get("$skipToken"); tok != "" {
		var ok bool
		if skip, ok = decodeSkipToken(tok); !ok {
			return armcore.Errorf(http.StatusBadRequest, "BadRequest", "The $skipToken is not one this service issued.")
		}
	}
	page := []map[string]any{}
	size := l.core.PageSize()
	if skip < len(events) {
		page = events[skip:min(skip+size, len(events))]
	}
	answer := map[string]any{"value": page}
	if skip+len(page) < len(events) {
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Set("$skipToken", encodeSkipToken(skip+len(page)))
		answer["nextLink"] = armcore.BaseURL(r) + r.URL.Path + "?" + strings.ReplaceAll(next.Encode(), "+", "%20")
	}
	armcore.WriteJSON(w, http.StatusOK, answer)
	return nil
}

// eventNamespace makes an event's ID from its change, so that it is the
// same on every page and read.
var eventNamespace = uuid.MustParse("2f6d5b9c-6a0e-4c1f-9a3e-7d8b1c2e4f50")

// event is one Activity Log event of a write: its Started or Succeeded half.
func event(e *Entry, t armpath.Target, status string) map[string]any {
	named := func(v string) map[string]string { return map[string]string{"value": v, "localizedValue": v} }
	eventName, subStatus := "EndRequest", "OK"
	switch {
	case status == "Started":
		eventName, subStatus = "BeginRequest", ""
	case e.ChangeType == "Create":
		subStatus = "Created"
	}
	at := e.At
	if status == "Succeeded" {
		at = at.Add(time.Millisecond) // it ends after it starts
	}
	id := uuid.NewSHA1(eventNamespace, []byte(e.ChangeID+"/"+status)).String()
	return map[string]any{
		"authorization":        map[string]string{"action": e.Operation, "scope": e.TargetID},
		"caller":               e.ChangedBy,
		"channels":             "Operation",
		"correlationId":        e.CorrelationID,
		"description":          "",
		"eventDataId":          id,
		"eventName":            named(eventName),
		"category":             named("Administrative"),
		"eventTimestamp":       at,
		"id":                   e.TargetID + "/events/" + id + "/ticks/" + strconv.FormatInt(at.UnixNano()/100+621355968000000000, 10),
		"level":                "Informational",
		"operationId":          e.ChangeID,
		"operationName":        named(e.Operation),
		"resourceGroupName":    t.RG,
		"resourceProviderName": named(armpath.NamespaceOf(e.TargetType)),
		"resourceType":         named(e.TargetType),
		"resourceId":           e.TargetID,
		"status":               named(status),
		"subStatus":            named(subStatus),
		"submissionTimestamp":  at,
		"subscriptionId":       t.Sub,
		"tenantId":             armcore.Tenant,
		"httpRequest":          map[string]string{"clientRequestId": e.ClientRequestID, "method": e.Method},
	}
}

// Route serves Resource Graph's query API and the Activity Log (armcore.Router).
func (l *Log) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) (bool, error) {
	switch {
	case t.Kind == armpath.Collection && t.Sub == "" && t.Parent == "" && strings.EqualFold(t.Type, "Microsoft.ResourceGraph/resources"):
		if r.Method != http.MethodPost {
			return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "Resource Graph's query API answers POST.")
		}
		return true, l.serveQuery(w, r, body)
	case t.Kind == armpath.Collection && strings.EqualFold(t.Type, "Microsoft.Insights/eventtypes/values") &&
		strings.EqualFold(t.Parent, "/subscriptions/"+t.Sub+"/providers/Microsoft.Insights/eventtypes/management"):
		if r.Method != http.MethodGet {
			return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The Activity Log answers GET.")
		}
		return true, l.serveActivity(w, r, t.Sub)
	}
	return false, nil
}
