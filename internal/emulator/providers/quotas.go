package providers

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/extensions"
)

// Quotas and SKUs: GET /subscriptions/{s}/providers/Microsoft.Compute/locations/{l}/usages
// and Microsoft.Network/locations/{l}/usages answer each usage's limit and
// current value: the value the admin API seeds (/_emulator/quotas, usage
// outside the emulator) plus what the subscription's resources in the
// emulator take in that location (the vCPUs of virtual machines, scale sets
// and AKS agent pools by their VM size's family, one per network resource;
// extensions.VMPoolOf and NetworkUsageOf). GET .../Microsoft.Compute/skus and
// .../locations/{l}/vmSizes list the VM sizes (Seeds.VMSizes). Writes past a
// quota are not refused (ARM's providers refuse them when they provision).

type quotas struct {
	c     *armcore.Core
	seeds *Seeds
}

// defaultLimits are the limits a usage has unless seeded.
var defaultLimits = map[string]int64{
	"cores": 350, "virtualMachines": 25000, "virtualMachineScaleSets": 2500,
	"VirtualNetworks": 1000, "PublicIPAddresses": 1000, "NetworkSecurityGroups": 5000,
	"LoadBalancers": 1000, "NetworkInterfaces": 65536, "RouteTables": 200,
}

const defaultFamilyLimit = 350

var localized = map[string]string{
	"cores": "Total Regional vCPUs", "virtualMachines": "Virtual Machines", "virtualMachineScaleSets": "Virtual Machine Scale Sets",
	"VirtualNetworks": "Virtual Networks", "PublicIPAddresses": "Public IP Addresses", "NetworkSecurityGroups": "Network Security Groups",
	"LoadBalancers": "Load Balancers", "NetworkInterfaces": "Network Interfaces", "RouteTables": "Route Tables",
}

var locationFilter = regexp.MustCompile(`(?i)^\s*location\s+eq\s+'([^']+)'\s*$`)

// Route answers usages, resource SKUs and VM sizes.
func (q quotas) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	if t.Kind != armpath.Collection || r.Method != http.MethodGet {
		return false, nil
	}
	lt := strings.ToLower(t.Type)
	switch lt {
	case "microsoft.compute/locations/usages", "microsoft.network/locations/usages":
		q.usages(w, t, armpath.NamespaceOf(t.Type), lastSegment(t.Parent))
		return true, nil
	case "microsoft.compute/skus":
		loc := ""
		if m := locationFilter.FindStringSubmatch(r.URL.Query().Get("$filter")); m != nil {
			loc = m[1]
		}
		q.skus(w, loc)
		return true, nil
	case "microsoft.compute/locations/vmsizes":
		items := []map[string]any{}
		for _, s := range q.seeds.VMSizes() {
			if !slices.ContainsFunc(s.NotIn, func(l string) bool { return normLocation(l) == normLocation(lastSegment(t.Parent)) }) {
				items = append(items, map[string]any{"name": s.Name, "numberOfCores": s.VCPUs, "memoryInMB": int(s.MemoryGB * 1024), "maxDataDiskCount": 4, "osDiskSizeInMB": 1047552, "resourceDiskSizeInMB": 16384})
			}
		}
		armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items})
		return true, nil
	}
	return false, nil
}

func (q quotas) skus(w http.ResponseWriter, loc string) {
	locations := Locations
	if loc != "" {
		locations = []string{loc}
	}
	items := []map[string]any{}
	for _, s := range q.seeds.VMSizes() {
		for _, l := range locations {
			name := normLocation(l)
			restrictions := []map[string]any{}
			if slices.ContainsFunc(s.NotIn, func(n string) bool { return normLocation(n) == name }) {
				restrictions = append(restrictions, map[string]any{"type": "Location", "values": []string{name}, "reasonCode": "NotAvailableForSubscription",
					"restrictionInfo": map[string]any{"locations": []string{name}}})
			}
			items = append(items, map[string]any{
				"resourceType": "virtualMachines", "name": s.Name, "tier": "Standard", "size": strings.TrimPrefix(s.Name, "Standard_"), "family": s.Family,
				"locations": []string{name}, "locationInfo": []map[string]any{{"location": name, "zones": []string{}}},
				"capabilities": []map[string]any{{"name": "vCPUs", "value": strconv.Itoa(s.VCPUs)}, {"name": "MemoryGB", "value": strconv.FormatFloat(s.MemoryGB, 'f', -1, 64)}},
				"restrictions": restrictions,
			})
		}
	}
	armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items})
}

// usages answers a provider's usages in a location.
func (q quotas) usages(w http.ResponseWriter, t armpath.Target, ns, location string) {
	used := map[string]int64{}
	_ = q.c.Read(func(tx armcore.Tx) error {
		used = q.used(tx, t.Sub, ns, location)
		return nil
	})
	limits := map[string]int64{}
	var order []string
	add := func(name string, limit int64) {
		if _, ok := limits[name]; !ok {
			order = append(order, name)
		}
		limits[name] = limit
	}
	if strings.EqualFold(ns, "Microsoft.Compute") {
		add("cores", defaultLimits["cores"])
		add("virtualMachines", defaultLimits["virtualMachines"])
		add("virtualMachineScaleSets", defaultLimits["virtualMachineScaleSets"])
		var families []string
		for _, s := range q.seeds.VMSizes() {
			if !slices.Contains(families, s.Family) {
				families = append(families, s.Family)
			}
		}
		sort.Strings(families)
		for _, f := range families {
			add(f, defaultFamilyLimit)
		}
	} else {
		for _, n := range []string{"VirtualNetworks", "PublicIPAddresses", "NetworkSecurityGroups", "LoadBalancers", "NetworkInterfaces", "RouteTables"} {
			add(n, defaultLimits[n])
		}
	}
	for _, s := range q.seeds.Quotas() {
		if strings.EqualFold(s.Namespace, ns) && normLocation(s.Location) == normLocation(location) {
			add(s.Name, s.Limit)
			used[s.Name] += s.CurrentValue
		}
	}
	items := []map[string]any{}
	for _, name := range order {
		label := localized[name]
		if label == "" {
			label = name
		}
		item := map[string]any{"unit": "Count", "currentValue": used[name], "limit": limits[name], "name": map[string]any{"value": name, "localizedValue": label}}
		if !strings.EqualFold(ns, "Microsoft.Compute") {
			item["id"] = "/subscriptions/" + t.Sub + "/providers/Microsoft.Network/locations/" + location + "/usages/" + name
		}
		items = append(items, item)
	}
	armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items})
}

// used is what the subscription's resources in the emulator take of ns's
// usages in location.
func (q quotas) used(tx armcore.Tx, sub, ns, location string) map[string]int64 {
	used := map[string]int64{}
	prefix := "/subscriptions/" + strings.ToLower(sub) + "/"
	network := strings.EqualFold(ns, "Microsoft.Network")
	for k, rec := range tx.Store().Resources() {
		// The type decides whether a record counts, before its body is read.
		networkUsage, counted := extensions.NetworkUsageOf(rec.Type)
		pool, isPool := extensions.VMPoolOf(rec.Type)
		if !network {
			counted = isPool
		}
		if !counted || !strings.HasPrefix(k, prefix) || tx.Live(k) == nil {
			continue
		}
		var body map[string]any
		if json.Unmarshal(rec.Body, &body) != nil {
			continue
		}
		loc, _ := body["location"].(string)
		if normLocation(loc) != normLocation(location) {
			continue
		}
		if network {
			used[networkUsage]++
			continue
		}
		for name, count := range pool.Machines(body) {
			used["virtualMachines"] += count
			if size, ok := q.seeds.vmSize(name); ok {
				used["cores"] += count * int64(size.VCPUs)
				used[size.Family] += count * int64(size.VCPUs)
			}
		}
		if strings.EqualFold(rec.Type, "Microsoft.Compute/virtualMachineScaleSets") {
			used["virtualMachineScaleSets"]++
		}
	}
	return used
}
