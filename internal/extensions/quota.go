package extensions

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
)

// What a resource takes from the regional quotas ARM reports as usages
// (Microsoft.Compute/locations/{l}/usages, Microsoft.Network/locations/{l}/usages):
// the virtual machines a type runs, sized by a VM size whose vCPUs the
// Compute resource SKUs tell, and the network resources that count one each.

// VMPool is where a body holds a group of virtual machines: the VM size and
// the instance count, as body paths; Items, when set, is a list of such
// groups (a managed cluster's agent pools). An empty Count means one machine.
type VMPool struct {
	Items []string
	Size  []string
	Count []string
}

var vmPools = map[string]VMPool{
	"microsoft.compute/virtualmachines":                     {Size: []string{"properties", "hardwareProfile", "vmSize"}},
	"microsoft.compute/virtualmachinescalesets":             {Size: []string{"sku", "name"}, Count: []string{"sku", "capacity"}},
	"microsoft.containerservice/managedclusters":            {Items: []string{"properties", "agentPoolProfiles"}, Size: []string{"vmSize"}, Count: []string{"count"}},
	"microsoft.containerservice/managedclusters/agentpools": {Size: []string{"properties", "vmSize"}, Count: []string{"properties", "count"}},
}

// Machines counts the virtual machines a body holds in p, by VM size. A
// group whose count the body does not set (it is known only after apply)
// is left out.
func (p VMPool) Machines(body map[string]any) map[string]int64 {
	items := []any{body}
	if len(p.Items) > 0 {
		v, _ := armjson.Lookup(body, p.Items)
		items, _ = v.([]any)
	}
	out := map[string]int64{}
	for _, it := range items {
		m, _ := it.(map[string]any)
		size, _ := armjson.Lookup(m, p.Size)
		s, _ := size.(string)
		count := int64(1)
		if len(p.Count) > 0 {
			c, ok := armjson.Lookup(m, p.Count)
			if !ok {
				continue
			}
			count = wholeNumber(c)
		}
		if s != "" {
			out[s] += count
		}
	}
	return out
}

// wholeNumber reads a count as a body holds it: a JSON number, decoded or
// not, or a string of digits; anything else is 0.
func wholeNumber(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int:
		return int64(n)
	case int64:
		return n
	case json.Number:
		i, _ := n.Int64()
		return i
	case string:
		i, _ := strconv.ParseInt(n, 10, 64)
		return i
	}
	return 0
}

// VMPoolOf is where a body of typ holds its virtual machines, if it runs any.
func VMPoolOf(typ string) (VMPool, bool) {
	p, ok := vmPools[strings.ToLower(typ)]
	return p, ok
}

// networkUsages are the Microsoft.Network usages each resource of a type counts one of.
var networkUsages = map[string]string{
	"microsoft.network/publicipaddresses":     "PublicIPAddresses",
	"microsoft.network/virtualnetworks":       "VirtualNetworks",
	"microsoft.network/networksecuritygroups": "NetworkSecurityGroups",
	"microsoft.network/loadbalancers":         "LoadBalancers",
	"microsoft.network/networkinterfaces":     "NetworkInterfaces",
	"microsoft.network/routetables":           "RouteTables",
}

// NetworkUsageOf is the Microsoft.Network usage name a resource of typ counts against.
func NetworkUsageOf(typ string) (string, bool) {
	u, ok := networkUsages[strings.ToLower(typ)]
	return u, ok
}
