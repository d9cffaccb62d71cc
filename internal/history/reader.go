package history

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/armid"
)

// Client sends the history's requests. *arm.Client satisfies it, pacing
// them by the subscription's read budget as the plan's reads are.
type Client interface {
	// QueryResourceGraph posts a query of one subscription to Resource
	// Graph (POST /providers/Microsoft.ResourceGraph/resources) and returns
	// the answer.
	QueryResourceGraph(ctx context.Context, subscription string, request any) (json.RawMessage, error)
	// ActivityLog lists the subscription's Activity Log events that match
	// filter, every page.
	ActivityLog(ctx context.Context, subscription, filter string) ([]json.RawMessage, error)
}

// Limits of Azure's: Resource Graph takes at most 100 IDs in one `in`
// list and serves 1000 rows a page; the change table keeps 14 days, the
// Activity Log 90.
const (
	batchSize         = 100
	pageSize          = 1000
	activityLogWindow = 90 * 24 * time.Hour
	// concurrentQueries bounds a subscription's Resource Graph queries in
	// flight; the read budget paces them.
	concurrentQueries = 4
)

// Reader reads the trails of resources.
type Reader struct {
	Client Client
	// Own tells azk's correlation IDs (arm.IsAzkCorrelationID).
	Own func(correlationID string) bool
	// Now is the clock the Activity Log's window ends at; nil is time.Now.
	Now func() time.Time
}

// Result is the trails read, by lower-cased ARM ID, and why a resource's
// could not be read.
type Result struct {
	Trails map[string]*Trail
	Failed map[string]string
}

// Read reads the change records of ids (batched per subscription, at most
// 100 IDs a query, every page) and, for those whose records do not reach
// back to azk's last write or their creation, their Activity Log writes.
// A request that fails marks its resources Failed; Read itself never fails.
func (r *Reader) Read(ctx context.Context, ids []string) Result {
	res := Result{Trails: map[string]*Trail{}, Failed: map[string]string{}}
	bySub := map[string][]string{}
	for _, id := range ids {
		key := strings.ToLower(id)
		if _, seen := res.Trails[key]; seen || id == "" {
			continue
		}
		res.Trails[key] = &Trail{}
		sub := strings.ToLower(armid.SubscriptionOf(id))
		bySub[sub] = append(bySub[sub], key)
	}
	var mu sync.Mutex
	behind := map[string][]string{} // by subscription: the trails the Activity Log completes
	fail := func(keys []string, err error) {
		mu.Lock()
		defer mu.Unlock()
		for _, k := range keys {
			res.Failed[k] = err.Error()
		}
	}
	var wg sync.WaitGroup
	for sub, keys := range bySub {
		sort.Strings(keys)
		slots := make(chan struct{}, concurrentQueries)
		for start := 0; start < len(keys); start += batchSize {
			batch := keys[start:min(start+batchSize, len(keys))]
			wg.Go(func() {
				slots <- struct{}{}
				records, err := r.changes(ctx, sub, batch)
				<-slots
				if err != nil {
					fail(batch, err)
					return
				}
				inBatch := map[string]*Trail{}
				for _, key := range batch {
					inBatch[key] = res.Trails[key]
				}
				for _, rec := range records {
					if t := inBatch[strings.ToLower(rec.TargetID)]; t != nil {
						t.Records = append(t.Records, rec)
					}
				}
				for _, key := range batch {
					if !r.reachesBack(inBatch[key]) {
						mu.Lock()
						behind[sub] = append(behind[sub], key)
						mu.Unlock()
					}
				}
			})
		}
	}
	wg.Wait()
	r.readWrites(ctx, behind, res.Trails, fail)
	for k := range res.Failed {
		delete(res.Trails, k)
	}
	return res
}

// readWrites completes from the Activity Log the trails of keys (by
// subscription) whose change records do not reach back. Its filter names
// one resource or one resource group: where a group holds several such
// resources, one listing of the group's writes serves them all, so a quiet
// estate's plan costs a read per group rather than one per resource.
func (r *Reader) readWrites(ctx context.Context, behind map[string][]string, trails map[string]*Trail, fail func([]string, error)) {
	var wg sync.WaitGroup
	for sub, keys := range behind {
		byGroup := map[string][]string{}
		for _, key := range keys {
			group := ""
			if rg := armid.ResourceGroupOf(key); rg != "" {
				group = rg[strings.LastIndexByte(rg, '/')+1:]
			}
			byGroup[group] = append(byGroup[group], key)
		}
		for group, keys := range byGroup {
			scopes := [][]string{keys}
			if group == "" || len(keys) == 1 {
				scopes = scopes[:0]
				for _, key := range keys {
					scopes = append(scopes, []string{key})
				}
			}
			for _, scope := range scopes {
				wg.Go(func() {
					filter := "resourceUri eq '" + scope[0] + "'"
					if len(scope) > 1 {
						filter = "resourceGroupName eq '" + group + "'"
					}
					writes, err := r.writes(ctx, sub, filter)
					if err != nil {
						fail(scope, err)
						return
					}
					inScope := map[string]*Trail{}
					for _, key := range scope {
						inScope[key] = trails[key]
					}
					for _, w := range writes {
						if t := inScope[strings.ToLower(w.ResourceID)]; t != nil {
							t.Writes = append(t.Writes, w)
						}
					}
				})
			}
		}
	}
	wg.Wait()
}

// reachesBack reports whether a trail's change records hold azk's last
// write or the resource's creation, so the Activity Log adds nothing.
func (r *Reader) reachesBack(t *Trail) bool {
	for _, rec := range t.Records {
		if r.Own(rec.CorrelationID) && !strings.EqualFold(rec.ChangeType, "Delete") {
			return true
		}
	}
	return len(t.Records) > 0 && strings.EqualFold(t.Records[0].ChangeType, "Create")
}

// ChangesQuery is the resourcechanges query of ids (lower-cased ARM IDs).
func ChangesQuery(ids []string) string {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(id) + "'"
	}
	return "resourcechanges | extend targetResourceId = tolower(tostring(properties.targetResourceId)), changeTime = todatetime(properties.changeAttributes.timestamp) | where targetResourceId in (" + strings.Join(quoted, ", ") + ") | order by changeTime asc"
}

// graphRequest is Resource Graph's query request.
type graphRequest struct {
	Subscriptions []string     `json:"subscriptions"`
	Query         string       `json:"query"`
	Options       graphOptions `json:"options"`
}

type graphOptions struct {
	ResultFormat string `json:"resultFormat"`
	Top          int    `json:"$top"`
	SkipToken    string `json:"$skipToken,omitempty"`
}

type graphAnswer struct {
	Data      []json.RawMessage `json:"data"`
	SkipToken string            `json:"$skipToken"`
}

// changes reads the change records of one batch, every page, oldest first.
func (r *Reader) changes(ctx context.Context, sub string, batch []string) ([]Record, error) {
	req := graphRequest{Subscriptions: []string{sub}, Query: ChangesQuery(batch), Options: graphOptions{ResultFormat: "objectArray", Top: pageSize}}
	var records []Record
	for {
		raw, err := r.Client.QueryResourceGraph(ctx, sub, req)
		if err != nil {
			return nil, fmt.Errorf("reading the change records: %w", err)
		}
		var page graphAnswer
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("reading the change records: %w", err)
		}
		for _, row := range page.Data {
			rec, err := parseRecord(row)
			if err != nil {
				return nil, err
			}
			records = append(records, rec)
		}
		if page.SkipToken == "" {
			break
		}
		req.Options.SkipToken = page.SkipToken
	}
	sort.SliceStable(records, func(i, j int) bool { return records[i].Timestamp.Before(records[j].Timestamp) })
	return records, nil
}

// writes reads the Activity Log's succeeded writes that match filter (a
// resource or a resource group) over the 90 days it keeps, oldest first.
func (r *Reader) writes(ctx context.Context, sub, filter string) ([]Write, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	end := now().UTC()
	events, err := r.Client.ActivityLog(ctx, sub, fmt.Sprintf("eventTimestamp ge '%s' and eventTimestamp le '%s' and %s",
		end.Add(-activityLogWindow).Format(time.RFC3339), end.Format(time.RFC3339), filter))
	if err != nil {
		return nil, fmt.Errorf("reading the Activity Log: %w", err)
	}
	var out []Write
	for _, e := range events {
		w, ok, err := parseWrite(e)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, w)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Timestamp.Before(out[j].Timestamp) })
	return out, nil
}
