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
	"net/http"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// Providers are the provider behaviours of one emulator.
type Providers struct {
	network *network
	seeds   *Seeds
	// authz and locks are set by Register.
	authz rbac
	locks locks
}

// New returns the provider behaviours, with empty indexes and an empty world (NewSeeds).
func New() *Providers { return &Providers{network: newNetwork(), seeds: NewSeeds()} }

// Seeds are the facts of the world outside the emulator the pre-flight APIs answer from.
func (p *Providers) Seeds() *Seeds { return p.seeds }

// Authorize refuses a write the caller's role assignments do not allow
// (see rbac.go); middleware.EnforceRBAC asks it. Call it after Register.
func (p *Providers) Authorize(r *http.Request, t armpath.Target) error {
	return p.authz.Authorize(r, t)
}

// CheckLocks refuses a request a management lock forbids (see locks.go);
// middleware.EnforceLocks asks it. Call it after Register.
func (p *Providers) CheckLocks(r *http.Request, t armpath.Target) error {
	return p.locks.Check(r, t)
}

// Indexes are the store indexes the providers keep: open the store with
// them, so that they see every record from the first replayed line on.
func (p *Providers) Indexes() []store.Index { return []store.Index{p.network} }

// Register registers every provider with c. Body fillers run in this order
// (network, identity, endpoints), and routers after those registered before.
func (p *Providers) Register(c *armcore.Core) {
	c.Register(p.network)
	c.Register(identity{c})
	c.Register(endpoints{})
	c.Register(publicIPs{})
	c.Register(roles{c})
	c.Register(createOnly{})
	p.authz = rbac{c}
	c.Register(p.authz)
	p.locks = locks{c}
	c.Register(p.locks)
	// Before the key vault's createMode handling, which changes the store:
	// ARM refuses a write these refuse before any provider acts on it.
	c.Register(registration{c, p.seeds})
	c.Register(nameRulesCheck{})
	c.Register(names{c, p.seeds})
	c.Register(policy{c})
	c.Register(quotas{c, p.seeds})
	c.Register(cosmosRoles{})
	c.Register(keyVault{c})
	c.Register(actions{c})
	c.Register(subscriptions{c})
	c.Register(tags{c})
	c.Register(tagNames{c})
	c.Register(exportTemplate{c})
}
