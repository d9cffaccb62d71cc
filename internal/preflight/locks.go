package preflight

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/planner"
)

// LocksAPIVersion is the Microsoft.Authorization/locks api-version the lock check lists with.
const LocksAPIVersion = "2020-05-01"

const locksPath = "/providers/Microsoft.Authorization/locks"

// mgmtLock is a management lock as ARM lists it.
type mgmtLock struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Properties struct {
		Level string `json:"level"`
	} `json:"properties"`
}

// scope is what the lock is on: its ID less the locks segment.
func (l mgmtLock) scope() string {
	i := strings.LastIndex(strings.ToLower(l.ID), strings.ToLower(locksPath)+"/")
	return l.ID[:max(i, 0)]
}

// locks finds the planned requests a management lock refuses, as ARM
// would with 409 ScopeLocked: a ReadOnly lock at or above a resource
// refuses its create, update or replace; any lock at or above refuses its
// delete (a removal, a replacement's delete, or the delete of the owner a
// cascade goes through); a resource group's delete is refused while any
// lock is inside it. One list per subscription: ARM's subscription list
// holds every lock in it, each with its scope in its ID.
func locks(r *run) []planner.Finding {
	bySub := map[string][]mgmtLock{}
	failed := map[string]error{}
	var out []planner.Finding
	for _, res := range r.plan.Resources {
		writes, deletes := res.Writes(), res.Action == planner.ActionDelete || res.Action == planner.ActionRecreate
		if res.ARMID == "" || (!writes && !deletes) {
			continue
		}
		sub, _ := scopeOf(res.ARMID)
		if sub == "" {
			continue
		}
		if _, done := bySub[sub]; !done && failed[sub] == nil {
			bySub[sub], failed[sub] = r.subscriptionLocks(sub)
		}
		if err := failed[sub]; err != nil {
			// Locks not read are not absent: the check could not run, and says only that.
			return []planner.Finding{checkFailed(nil, "locks", err)}
		}
		isGroup := strings.EqualFold(res.ARMType, "Microsoft.Resources/resourceGroups")
		var refusing []mgmtLock
		for _, l := range bySub[sub] {
			if l.scope() == "" {
				continue // not a lock ID: it covers nothing
			}
			above := covers(l.scope(), res.ARMID)
			inside := deletes && isGroup && covers(res.ARMID, l.scope())
			readOnly := strings.EqualFold(l.Properties.Level, "ReadOnly")
			if (above && (deletes || readOnly)) || inside {
				refusing = append(refusing, l)
			}
		}
		if len(refusing) == 0 {
			continue
		}
		out = append(out, lockFinding(res, refusing))
	}
	return out
}

func (r *run) subscriptionLocks(sub string) ([]mgmtLock, error) {
	items, err := r.client.List(r.ctx, "/subscriptions/"+sub+locksPath, LocksAPIVersion)
	if err != nil {
		return nil, err
	}
	out := make([]mgmtLock, 0, len(items))
	for _, it := range items {
		var l mgmtLock
		if err := json.Unmarshal(it, &l); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// lockFinding tells what the locks refuse and how to go on: remove each
// lock (or ask whoever placed it) and apply again.
func lockFinding(res *planner.Resource, refusing []mgmtLock) planner.Finding {
	sort.Slice(refusing, func(i, j int) bool { return refusing[i].ID < refusing[j].ID })
	var named, ids []string
	for _, l := range refusing {
		named = append(named, l.Properties.Level+" lock '"+l.Name+"' on "+l.scope())
		ids = append(ids, l.ID)
	}
	what := map[planner.Action]string{
		planner.ActionCreate: "create", planner.ActionUpdate: "update", planner.ActionRecreate: "replace", planner.ActionDelete: "delete",
	}[res.Action]
	if res.CascadedBy != "" {
		what = "delete (with " + res.CascadedBy + ")"
	}
	return finding(res, "locks", "ScopeLocked", planner.SeverityError,
		"the %s is refused by the %s; remove it with `az lock delete --ids %s` (or ask whoever placed it), then apply again",
		what, strings.Join(named, " and the "), strings.Join(ids, " "))
}
