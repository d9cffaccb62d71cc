// Package providers holds what resource providers do beyond armcore's
// generic path, one file per provider, each value implementing the small
// interfaces of armcore/hooks.go it needs: Microsoft.Network (private
// addresses, a subnet's IP configurations), Microsoft.KeyVault (soft delete,
// recovery, purge), Microsoft.Authorization (built-in role definitions),
// managed identities, provider endpoints, the POST actions (listKeys and
// the like, checkNameAvailability), the subscriptions API and tags at a
// scope. It imports armcore, the store and armpath; nothing below imports it.
package providers

import (
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/store"
)

// Providers are the provider behaviours of one emulator.
type Providers struct {
	network *network
}

// New returns the provider behaviours, with empty indexes.
func New() *Providers { return &Providers{network: newNetwork()} }

// Indexes are the store indexes the providers keep: open the store with
// them, so that they see every record from the first replayed line on.
func (p *Providers) Indexes() []store.Index { return []store.Index{p.network} }

// Register registers every provider with c. Body fillers run in this order
// (network, identity, endpoints), and routers after those registered before.
func (p *Providers) Register(c *armcore.Core) {
	c.Register(p.network)
	c.Register(identity{})
	c.Register(endpoints{})
	c.Register(publicIPs{})
	c.Register(roles{c})
	c.Register(keyVault{c})
	c.Register(actions{c})
	c.Register(subscriptions{c})
	c.Register(tags{c})
}
