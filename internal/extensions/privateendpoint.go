package extensions

import (
	"fmt"
	"strings"
)

// Microsoft.Network/privateEndpoints: the operator's
// network/private_endpoints_extensions.go holds a private endpoint not done
// while one of its manual private link service connections is not approved
// (the owner of the service approves it, outside the manifests); azk fails
// it, naming them. It exports the private IP address of the endpoint's
// network interface (primaryNicPrivateIpAddress): the first IP
// configuration's, when one of them is primary, as the operator reads it.
type privateEndpoint struct{}

func init() { register("Microsoft.Network/privateEndpoints", privateEndpoint{}) }

func (privateEndpoint) ExportConfig(status map[string]any, apiVersion string, get func(id, apiVersion string) (map[string]any, error)) (map[string]string, error) {
	nics, _ := status["networkInterfaces"].([]any)
	if len(nics) == 0 {
		return nil, nil
	}
	first, _ := nics[0].(map[string]any)
	id, _ := first["id"].(string)
	if id == "" {
		return nil, nil
	}
	nic, err := get(id, apiVersion)
	if err != nil || nic == nil {
		return nil, err
	}
	nicProps, _ := nic["properties"].(map[string]any)
	configs, _ := nicProps["ipConfigurations"].([]any)
	for _, c := range configs {
		cp, _ := c.(map[string]any)["properties"].(map[string]any)
		if primary, _ := cp["primary"].(bool); primary && cp["privateIPAddress"] != nil {
			// The operator takes the first configuration's address once any is primary.
			firstProps, _ := configs[0].(map[string]any)["properties"].(map[string]any)
			if ip, _ := firstProps["privateIPAddress"].(string); ip != "" {
				return map[string]string{"primaryNicPrivateIpAddress": ip}, nil
			}
		}
	}
	return nil, nil
}

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
