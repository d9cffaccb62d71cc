package preflight

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/planner"
)

// Api-versions of the quota reads.
const (
	ComputeAPIVersion = "2023-07-01"
	SKUsAPIVersion    = "2021-07-01"
	NetworkAPIVersion = "2023-09-01"
)

// usage is one usage of a provider in a location.
type usage struct {
	Name struct {
		Value          string `json:"value"`
		LocalizedValue string `json:"localizedValue"`
	} `json:"name"`
	CurrentValue int64 `json:"currentValue"`
	Limit        int64 `json:"limit"`
}

// demand is what the plan adds to one usage, and which resources add it.
type demand struct {
	added int64
	by    []*planner.Resource
	each  map[*planner.Resource]int64
}

// quota compares what the plan adds to the regional usages ARM reports
// (Microsoft.Compute/locations/{l}/usages: total regional vCPUs and each VM
// family's, Microsoft.Network/locations/{l}/usages: public IPs, networks,
// ...) with their limits. A VM size's vCPUs and family come from the
// Compute resource SKUs of the location. An update adds only what it
// changes: the body before is the desired body with the plan's changes
// undone.
func quota(r *run) []planner.Finding {
	var out []planner.Finding
	// demands[sub/namespace/location][usage]
	demands := map[string]map[string]*demand{}
	add := func(res *planner.Resource, sub, ns, loc, name string, n int64) {
		if n <= 0 {
			return
		}
		k := sub + "|" + ns + "|" + loc
		if demands[k] == nil {
			demands[k] = map[string]*demand{}
		}
		d := demands[k][name]
		if d == nil {
			d = &demand{each: map[*planner.Resource]int64{}}
			demands[k][name] = d
		}
		d.added += n
		if d.each[res] == 0 {
			d.by = append(d.by, res)
		}
		d.each[res] += n
	}
	sizes := map[string]map[string]vmSize{} // by sub|location
	for _, res := range r.writes() {
		sub, _ := scopeOf(res.ARMID)
		loc := location(res)
		if loc == "" || sub == "" {
			continue
		}
		if u, ok := extensions.NetworkUsageOf(res.ARMType); ok && res.Action == planner.ActionCreate {
			add(res, sub, "Microsoft.Network", loc, u, 1)
		}
		pool, ok := extensions.VMPoolOf(res.ARMType)
		if !ok {
			continue
		}
		k := sub + "|" + loc
		if sizes[k] == nil {
			s, err := r.vmSizes(sub, loc)
			if err != nil {
				return []planner.Finding{checkFailed(res, "quota", err)}
			}
			sizes[k] = s
		}
		after := pool.Machines(bodyValue(res))
		var before map[string]int64
		if res.Action == planner.ActionUpdate {
			before = pool.Machines(previous(res))
		}
		for size, count := range after {
			s, known := sizes[k][strings.ToLower(size)]
			if !known {
				out = append(out, finding(res, "quota", "VMSizeUnknown", planner.SeverityWarning,
					"the VM size %s is not among the Compute SKUs of %s, so its vCPUs cannot be counted against the quota", size, loc))
				continue
			}
			n := count - before[size]
			add(res, sub, "Microsoft.Compute", loc, "cores", n*s.vCPUs)
			add(res, sub, "Microsoft.Compute", loc, s.family, n*s.vCPUs)
		}
	}
	for _, k := range sortedKeys(demands) {
		parts := strings.SplitN(k, "|", 3)
		sub, ns, loc := parts[0], parts[1], parts[2]
		version := ComputeAPIVersion
		if ns == "Microsoft.Network" {
			version = NetworkAPIVersion
		}
		items, err := r.client.List(r.ctx, "/subscriptions/"+sub+"/providers/"+ns+"/locations/"+loc+"/usages", version)
		if err != nil {
			return []planner.Finding{checkFailed(nil, "quota", err)}
		}
		usages := map[string]usage{}
		for _, it := range items {
			var u usage
			if json.Unmarshal(it, &u) == nil {
				usages[strings.ToLower(u.Name.Value)] = u
			}
		}
		for _, name := range sortedKeys(demands[k]) {
			d := demands[k][name]
			u, ok := usages[strings.ToLower(name)]
			if !ok || u.CurrentValue+d.added <= u.Limit {
				continue
			}
			label := u.Name.LocalizedValue
			if label == "" {
				label = name
			}
			for _, res := range d.by {
				out = append(out, finding(res, "quota", "QuotaExceeded", planner.SeverityError,
					"%s in %s: this plan adds %d (this resource %d) to the %d in use, past the limit of %d; ask for a quota increase of at least %d, or use fewer",
					label, loc, d.added, d.each[res], u.CurrentValue, u.Limit, u.CurrentValue+d.added-u.Limit))
			}
		}
	}
	return out
}

type vmSize struct {
	vCPUs  int64
	family string
}

// vmSizes are the VM sizes the Compute resource SKUs list in a location.
func (r *run) vmSizes(sub, loc string) (map[string]vmSize, error) {
	items, err := r.client.ListFiltered(r.ctx, "/subscriptions/"+sub+"/providers/Microsoft.Compute/skus", SKUsAPIVersion, fmt.Sprintf("location eq '%s'", loc))
	if err != nil {
		return nil, err
	}
	out := map[string]vmSize{}
	for _, it := range items {
		var s struct {
			ResourceType string `json:"resourceType"`
			Name         string `json:"name"`
			Family       string `json:"family"`
			Capabilities []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"capabilities"`
		}
		if json.Unmarshal(it, &s) != nil || !strings.EqualFold(s.ResourceType, "virtualMachines") {
			continue
		}
		for _, c := range s.Capabilities {
			if c.Name == "vCPUs" {
				n, _ := strconv.ParseInt(c.Value, 10, 64)
				out[strings.ToLower(s.Name)] = vmSize{vCPUs: n, family: s.Family}
			}
		}
	}
	return out, nil
}

// previous is the body Azure holds, as far as the plan tells: the desired
// body with each change undone.
func previous(res *planner.Resource) map[string]any {
	body := bodyValue(res)
	changes := append([]planner.Change(nil), res.Changes...)
	sort.SliceStable(changes, func(i, j int) bool { return len(changes[i].Path) > len(changes[j].Path) })
	for _, c := range changes {
		setPath(body, c.Path, c.Before, c.Before == nil)
	}
	return body
}

// setPath sets (or, with remove, deletes) the value at a plan path such as
// "properties.agentPoolProfiles[0].count".
func setPath(body map[string]any, path string, v any, remove bool) {
	segs := strings.Split(strings.NewReplacer("[", ".[", "]", "").Replace(path), ".")
	var cur any = body
	for i, s := range segs {
		last := i == len(segs)-1
		if strings.HasPrefix(s, "[") {
			idx, err := strconv.Atoi(s[1:])
			list, ok := cur.([]any)
			if err != nil || !ok || idx >= len(list) {
				return
			}
			if last {
				if !remove {
					list[idx] = v
				}
				return
			}
			cur = list[idx]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return
		}
		if last {
			if remove {
				delete(m, s)
			} else {
				m[s] = v
			}
			return
		}
		cur = m[s]
	}
}
