package extensions

import "strings"

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
