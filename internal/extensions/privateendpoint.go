package extensions

import (
	"fmt"
	"strings"
)

// Microsoft.Network/privateEndpoints: the operator's
// network/private_endpoints_extensions.go holds a private endpoint not done
// while one of its manual private link service connections is not approved
// (the owner of the service approves it, outside the manifests); azk fails
// it, naming them. (Its config-map export of the private IP address, which
// reads the endpoint's network interface, azk does not make.)
type privateEndpoint struct{}

func init() { register("Microsoft.Network/privateEndpoints", privateEndpoint{}) }

func (privateEndpoint) CheckAfterWrite(current map[string]any) Verdict {
	props, _ := current["properties"].(map[string]any)
	connections, _ := props["manualPrivateLinkServiceConnections"].([]any)
	var pending []string
	for _, c := range connections {
		m, _ := c.(map[string]any)
		cp, _ := m["properties"].(map[string]any)
		state, _ := cp["privateLinkServiceConnectionState"].(map[string]any)
		if status, _ := state["status"].(string); status != "Approved" {
			id, _ := m["id"].(string)
			if id == "" {
				id, _ = m["name"].(string)
			}
			pending = append(pending, id)
		}
	}
	if len(pending) == 0 {
		return Verdict{}
	}
	return Verdict{Fail: fmt.Sprintf("private link service connection(s) %s await approval by the service's owner", strings.Join(pending, ", "))}
}
