package emulator

import (
	"encoding/json"
	"net/netip"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
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
			subnets = append(subnets, key(c.Properties.Subnet.ID))
		}
	}
	return ipConfigs, subnets
}

// indexSubnetUsers keeps st.subnetUsers in step with a network interface
// being set (body) or removed (nil).
func (st *store) indexSubnetUsers(old, rec *record) {
	if old != nil && strings.EqualFold(old.Type, typeNetworkInterface) {
		ids, subnets := nicSubnets(old.Body)
		for i := range ids {
			delete(st.subnetUsers[subnets[i]], ids[i])
			if len(st.subnetUsers[subnets[i]]) == 0 {
				delete(st.subnetUsers, subnets[i])
			}
		}
	}
	if rec != nil && strings.EqualFold(rec.Type, typeNetworkInterface) {
		ids, subnets := nicSubnets(rec.Body)
		for i := range ids {
			if st.subnetUsers[subnets[i]] == nil {
				st.subnetUsers[subnets[i]] = map[string]struct{}{}
			}
			st.subnetUsers[subnets[i]][ids[i]] = struct{}{}
		}
	}
}

// subnetIPConfigurations is the JSON list of {id} of the IP configurations
// in a subnet, or nil when there are none. Callers hold s.mu.
func (s *Server) subnetIPConfigurations(rec *record) []byte {
	if !strings.EqualFold(rec.Type, typeSubnet) {
		return nil
	}
	users := s.st.subnetUsers[key(rec.ID)]
	if len(users) == 0 {
		return nil
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
	return b
}

// assignPrivateIPs gives each IP configuration of a network interface body
// that names a subnet and no address (or a dynamic one) the first free
// address of the subnet, keeping the address it had before.
func (s *Server) assignPrivateIPs(rec *record, out, prev map[string]any) {
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
		if ip := s.freeAddress(subnetID, rec.ID); ip != "" {
			cp["privateIPAddress"] = ip
		}
	}
}

// freeAddress is the first address of the subnet after the reserved ones
// that no other network interface holds.
func (s *Server) freeAddress(subnetID, nicID string) string {
	sub := s.live(key(subnetID))
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
	for id := range s.st.subnetUsers[key(subnetID)] {
		nic := s.st.resources[key(id[:strings.Index(strings.ToLower(id), "/ipconfigurations/")])]
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
