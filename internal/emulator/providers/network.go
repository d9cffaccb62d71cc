package providers

import (
	"encoding/json"
	"net/netip"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// Network behaviours that no recording can teach by example, since they
// depend on other resources: a network interface's IP configurations get a
// private IP from their subnet (Azure hands out the first free address after
// the four it reserves at the start of every subnet), and a subnet lists the
// IP configurations in it (properties.ipConfigurations, read-only in ARM).

const (
	typeNetworkInterface = "Microsoft.Network/networkInterfaces"
	typeSubnet           = "Microsoft.Network/virtualNetworks/subnets"
	// reservedAddresses are the addresses at the start of a subnet Azure keeps for itself.
	reservedAddresses = 4
)

// nicSubnets lists, for a network interface body, each IP configuration's ID
// and the key of its subnet.
func nicSubnets(body []byte) (ipConfigs, subnets []string) {
	var nic struct {
		Properties struct {
			IPConfigurations []struct {
				ID         string `json:"id"`
				Properties struct {
					Subnet struct {
						ID string `json:"id"`
					} `json:"subnet"`
				} `json:"properties"`
			} `json:"ipConfigurations"`
		} `json:"properties"`
	}
	if json.Unmarshal(body, &nic) != nil {
		return nil, nil
	}
	for _, c := range nic.Properties.IPConfigurations {
		if c.ID != "" && c.Properties.Subnet.ID != "" {
			ipConfigs = append(ipConfigs, c.ID)
			subnets = append(subnets, armpath.Key(c.Properties.Subnet.ID))
		}
	}
	return ipConfigs, subnets
}

// network is the Microsoft.Network behaviour: a store index of the IP
// configurations in each subnet, the private addresses it hands out, and
// the subnets' back-references.
type network struct {
	// subnetUsers indexes, per subnet key, the IP configurations of network
	// interfaces in it. The store calls Update under the core's lock.
	subnetUsers map[string]map[string]struct{}
}

func newNetwork() *network { return &network{subnetUsers: map[string]map[string]struct{}{}} }

// Update keeps subnetUsers in step with a network interface being set
// (rec) or removed (nil); it is the network's store.Index.
func (n *network) Update(old, rec *store.Record) {
	if old != nil && strings.EqualFold(old.Type, typeNetworkInterface) {
		ids, subnets := nicSubnets(old.Body)
		for i := range ids {
			delete(n.subnetUsers[subnets[i]], ids[i])
			if len(n.subnetUsers[subnets[i]]) == 0 {
				delete(n.subnetUsers, subnets[i])
			}
		}
	}
	if rec != nil && strings.EqualFold(rec.Type, typeNetworkInterface) {
		ids, subnets := nicSubnets(rec.Body)
		for i := range ids {
			if n.subnetUsers[subnets[i]] == nil {
				n.subnetUsers[subnets[i]] = map[string]struct{}{}
			}
			n.subnetUsers[subnets[i]][ids[i]] = struct{}{}
		}
	}
}

// BackReferences gives a subnet the JSON list of {id} of the IP
// configurations in it (properties.ipConfigurations), or nil when there are none.
func (n *network) BackReferences(_ armcore.Tx, rec *store.Record) ([]string, []byte) {
	if !strings.EqualFold(rec.Type, typeSubnet) {
		return nil, nil
	}
	users := n.subnetUsers[armpath.Key(rec.ID)]
	if len(users) == 0 {
		return nil, nil
	}
	ids := make([]string, 0, len(users))
	for id := range users {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	items := make([]map[string]string, len(ids))
	for i, id := range ids {
		items[i] = map[string]string{"id": id}
	}
	b, _ := json.Marshal(items)
	return []string{"properties", "ipConfigurations"}, b
}

// FillBody gives each IP configuration of a network interface body that
// names a subnet and no address (or a dynamic one) the first free address of
// the subnet, keeping the address it had before.
func (n *network) FillBody(tx armcore.Tx, b *armcore.Body) {
	rec, out, prev := b.Record, b.Out, b.Prev
	if !strings.EqualFold(rec.Type, typeNetworkInterface) {
		return
	}
	props, _ := out["properties"].(map[string]any)
	configs, _ := props["ipConfigurations"].([]any)
	prevProps, _ := prev["properties"].(map[string]any)
	prevConfigs, _ := prevProps["ipConfigurations"].([]any)
	for i, item := range configs {
		c, _ := item.(map[string]any)
		cp, _ := c["properties"].(map[string]any)
		if cp == nil {
			continue
		}
		if _, ok := cp["primary"]; !ok {
			cp["primary"] = i == 0
		}
		if _, ok := cp["privateIPAddressVersion"]; !ok {
			cp["privateIPAddressVersion"] = "IPv4"
		}
		method, _ := cp["privateIPAllocationMethod"].(string)
		if method == "" {
			method = "Dynamic"
			cp["privateIPAllocationMethod"] = method
		}
		if ip, _ := cp["privateIPAddress"].(string); ip != "" && strings.EqualFold(method, "Static") {
			continue
		}
		subnet, _ := cp["subnet"].(map[string]any)
		subnetID, _ := subnet["id"].(string)
		if subnetID == "" {
			continue
		}
		name, _ := c["name"].(string)
		if j := armjson.IndexByName(prevConfigs, name); j >= 0 && name != "" {
			pp, _ := prevConfigs[j].(map[string]any)["properties"].(map[string]any)
			if ip, _ := pp["privateIPAddress"].(string); ip != "" {
				cp["privateIPAddress"] = ip
				continue
			}
		}
		if ip := n.freeAddress(tx, subnetID, rec.ID); ip != "" {
			cp["privateIPAddress"] = ip
		}
	}
}

// freeAddress is the first address of the subnet after the reserved ones
// that no other network interface holds.
func (n *network) freeAddress(tx armcore.Tx, subnetID, nicID string) string {
	sub := tx.Live(armpath.Key(subnetID))
	if sub == nil {
		return ""
	}
	var body struct {
		Properties struct {
			AddressPrefix   string   `json:"addressPrefix"`
			AddressPrefixes []string `json:"addressPrefixes"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(sub.Body, &body)
	prefix := body.Properties.AddressPrefix
	if prefix == "" && len(body.Properties.AddressPrefixes) > 0 {
		prefix = body.Properties.AddressPrefixes[0]
	}
	p, err := netip.ParsePrefix(prefix)
	if err != nil || !p.Addr().Is4() {
		return ""
	}
	used := map[netip.Addr]bool{}
	for id := range n.subnetUsers[armpath.Key(subnetID)] {
		nic := tx.Store().Resource(armpath.Key(id[:strings.Index(strings.ToLower(id), "/ipconfigurations/")]))
		if nic == nil || strings.EqualFold(nic.ID, nicID) {
			continue
		}
		for _, ip := range nicAddresses(nic.Body) {
			if a, err := netip.ParseAddr(ip); err == nil {
				used[a] = true
			}
		}
	}
	a := p.Masked().Addr()
	for range reservedAddresses {
		a = a.Next()
	}
	for ; p.Contains(a); a = a.Next() {
		if !used[a] {
			return a.String()
		}
	}
	return ""
}

func nicAddresses(body []byte) []string {
	var nic struct {
		Properties struct {
			IPConfigurations []struct {
				Properties struct {
					PrivateIPAddress string `json:"privateIPAddress"`
				} `json:"properties"`
			} `json:"ipConfigurations"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(body, &nic)
	var out []string
	for _, c := range nic.Properties.IPConfigurations {
		out = append(out, c.Properties.PrivateIPAddress)
	}
	return out
}
