package providers

import (
	"encoding/json"
	"hash/fnv"
	"net/netip"
	"strings"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

const typePublicIP = "Microsoft.Network/publicIPAddresses"

// publicIPs gives public IP addresses their ipAddress as Azure assigns it:
// a Static address when it is created, a Dynamic one when something
// attaches it (a network interface, load balancer, gateway or bastion
// naming it in a publicIPAddress reference). The allocation method defaults
// as ARM's does: Static for the Standard SKU, Dynamic for Basic. An address,
// once given, is kept across updates. Addresses are drawn from 20.0.0.0/8,
// stable for a resource ID, and unique among the emulator's addresses.
type publicIPs struct{}

// FillBody assigns a public IP's own address, or the addresses of the
// dynamic public IPs the written resource attaches.
func (publicIPs) FillBody(tx armcore.Tx, b *armcore.Body) {
	if strings.EqualFold(b.Record.Type, typePublicIP) {
		method, _ := b.Props["publicIPAllocationMethod"].(string)
		if method == "" {
			method = "Dynamic"
			if sku, _ := b.Out["sku"].(map[string]any); strings.EqualFold(stringOf(sku["name"]), "Standard") {
				method = "Static"
			}
			b.Props["publicIPAllocationMethod"] = method
		}
		if ip, _ := b.Props["ipAddress"].(string); ip != "" {
			return
		}
		if ip, _ := b.PrevProps["ipAddress"].(string); ip != "" {
			b.Props["ipAddress"] = ip
			return
		}
		if strings.EqualFold(method, "Static") {
			b.Props["ipAddress"] = freePublicAddress(tx, b.Record.ID)
		}
		return
	}
	for _, id := range publicIPReferences(b.Props) {
		attach(tx, id)
	}
}

func stringOf(v any) string { s, _ := v.(string); return s }

// publicIPReferences lists the IDs in "publicIPAddress": {"id": ...} objects anywhere under v.
func publicIPReferences(v any) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if strings.EqualFold(k, "publicIPAddress") {
				if ref, ok := e.(map[string]any); ok {
					if id := stringOf(ref["id"]); id != "" && strings.Contains(strings.ToLower(id), "/microsoft.network/publicipaddresses/") {
						out = append(out, id)
					}
				}
				continue
			}
			out = append(out, publicIPReferences(e)...)
		}
	case []any:
		for _, e := range t {
			out = append(out, publicIPReferences(e)...)
		}
	}
	return out
}

// attach gives the stored public IP id an address if it has none.
func attach(tx armcore.Tx, id string) {
	k := armpath.Key(id)
	rec := tx.Live(k)
	if rec == nil {
		return
	}
	var body map[string]any
	if json.Unmarshal(rec.Body, &body) != nil {
		return
	}
	props, _ := body["properties"].(map[string]any)
	if props == nil || stringOf(props["ipAddress"]) != "" {
		return
	}
	props["ipAddress"] = freePublicAddress(tx, rec.ID)
	next := *rec
	var err error
	if next.Body, err = json.Marshal(body); err == nil {
		_ = tx.Store().PutResource(k, &next)
	}
}

// freePublicAddress is the address for the public IP id: drawn from its ID,
// moved on past addresses other public IPs hold.
func freePublicAddress(tx armcore.Tx, id string) string {
	used := map[string]bool{}
	for k, rec := range tx.Store().OfType(typePublicIP) {
		if k == armpath.Key(id) {
			continue
		}
		var m struct {
			Properties struct {
				IPAddress string `json:"ipAddress"`
			} `json:"properties"`
		}
		if json.Unmarshal(rec.Body, &m) == nil && m.Properties.IPAddress != "" {
			used[m.Properties.IPAddress] = true
		}
	}
	h := fnv.New32a()
	h.Write([]byte(armpath.Key(id)))
	n := h.Sum32() & 0x00ffffff
	for {
		a := netip.AddrFrom4([4]byte{20, byte(n >> 16), byte(n >> 8), byte(n)})
		if last := byte(n); last != 0 && last != 255 && !used[a.String()] {
			return a.String()
		}
		n = (n + 1) & 0x00ffffff
	}
}
