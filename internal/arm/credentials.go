package arm

import (
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// RouteCredentials sends the requests of every resource of g with a
// credential (serviceoperator.azure.com/credential-from) through a client
// acting as that identity, in its subscription, one client per Secret.
func (c *Client) RouteCredentials(g *graph.Graph) error {
	clients := map[*loader.Object]*Client{}
	for _, n := range g.Nodes {
		secret := n.Credential
		if secret == nil || n.ID == "" {
			continue
		}
		routed, ok := clients[secret]
		if !ok {
			data := map[string]string{}
			for _, k := range secret.Keys() {
				if v, ok := secret.Value(k); ok {
					data[k] = v
				}
			}
			var err error
			if routed, err = c.ForSecret(secret.Namespace+"/"+secret.Name, data); err != nil {
				return err
			}
			clients[secret] = routed
		}
		c.Route(n.ID, routed)
	}
	return nil
}
