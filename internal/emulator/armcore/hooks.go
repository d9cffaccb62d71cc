package armcore

import (
	"fmt"
	"net/http"
	"time"

	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// What a resource provider does beyond the generic path, one small interface
// per way it departs from it, as internal/extensions holds the operator's
// per-kind behaviour. A provider is one value implementing those it needs,
// registered with Core.Register; each decides by the resource type (or the
// path) whether it applies. Hooks called during a write or a read get a Tx:
// the core holds its lock while they run.

// Router answers requests the provider serves itself rather than the
// generic resource paths: its own APIs (actions, name checks, collections
// ARM computes), or a whole family of paths (deployments). Routers are asked
// in registration order; handled false passes the request on.
type Router interface {
	Route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) (handled bool, err error)
}

// PutPreparer checks or changes a PUT before anything is stored (a create
// mode, a refusal); it returns the previous body to build the new one on.
type PutPreparer interface {
	PreparePut(tx Tx, t armpath.Target, req, prev map[string]any) (map[string]any, error)
}

// Validator refuses a write ARM refuses before any provider acts on it
// (an unregistered provider, a location the type is not offered in, a name
// taken across Azure, a policy's deny): on every PUT and PATCH (body is the
// merged body), and in a deployment's validate, which writes nothing. It only
// reads: exists says whether the resource exists.
type Validator interface {
	ValidateWrite(tx Tx, r *http.Request, t armpath.Target, body map[string]any, exists bool) error
}

// BodyFiller sets the values a provider computes in a body being written,
// after the generic ones and before systemData.
type BodyFiller interface {
	FillBody(tx Tx, b *Body)
}

// Body is a resource body being written.
type Body struct {
	Record *store.Record // ID, Type and Parent of the resource
	// Out is the body to store; Props is its properties object.
	Out, Props map[string]any
	// Prev is the previous version's body and PrevProps its properties;
	// nil on create.
	Prev, PrevProps map[string]any
}

// Remover acts as a resource is removed (a soft delete keeps a copy).
type Remover interface {
	Removing(tx Tx, rec *store.Record, now time.Time) error
}

// BackReferencer adds to a resource as read the read-only values ARM
// derives from other resources (a subnet's IP configurations): the JSON
// value at path, or nil for none.
type BackReferencer interface {
	BackReferences(tx Tx, rec *store.Record) (path []string, value []byte)
}

// WriteRecorder learns of every change the core makes to a stored resource
// (PUT, PATCH, DELETE, drift), after it is stored: Azure's change history
// (package history) keeps a record of each.
type WriteRecorder interface {
	RecordWrite(tx Tx, w Write)
}

// Write is one change of a stored resource.
type Write struct {
	// Request is the client's request (its caller, User-Agent and
	// correlation ID); nil for a change made outside any client (drift).
	Request  *http.Request
	ID, Type string
	// Before and After are the stored bodies, with no secret and no
	// write-only value (the store keeps none); Before is nil on create,
	// After on delete.
	Before, After []byte
	At            time.Time
}

// recordWrite tells the WriteRecorders of w.
func (c *Core) recordWrite(w Write) {
	for _, rc := range c.hooks.recorders {
		rc.RecordWrite(Tx{c}, w)
	}
}

// DriftPrincipal is who a drift (Core.Drift, the admin API's drift) acts as:
// a person in the portal, not the client under test.
const DriftPrincipal = "portal-user@contoso.example"

// hooks are the registered provider behaviours, in registration order.
type hooks struct {
	recorders    []WriteRecorder
	routers      []Router
	validators   []Validator
	putPreparers []PutPreparer
	fillers      []BodyFiller
	removers     []Remover
	backRefs     []BackReferencer
}

// Register adds a provider's behaviour: every interface of this file that
// ext implements. Register before serving.
func (c *Core) Register(ext any) {
	n := 0
	if v, ok := ext.(Router); ok {
		c.hooks.routers, n = append(c.hooks.routers, v), n+1
	}
	if v, ok := ext.(Validator); ok {
		c.hooks.validators, n = append(c.hooks.validators, v), n+1
	}
	if v, ok := ext.(PutPreparer); ok {
		c.hooks.putPreparers, n = append(c.hooks.putPreparers, v), n+1
	}
	if v, ok := ext.(BodyFiller); ok {
		c.hooks.fillers, n = append(c.hooks.fillers, v), n+1
	}
	if v, ok := ext.(Remover); ok {
		c.hooks.removers, n = append(c.hooks.removers, v), n+1
	}
	if v, ok := ext.(BackReferencer); ok {
		c.hooks.backRefs, n = append(c.hooks.backRefs, v), n+1
	}
	if v, ok := ext.(WriteRecorder); ok {
		c.hooks.recorders, n = append(c.hooks.recorders, v), n+1
	}
	if n == 0 {
		panic(fmt.Sprintf("armcore: %T implements no provider interface", ext))
	}
}

// ValidateWrite runs the registered Validators on a write of body to id,
// as a PUT would, without writing: a deployment's validate asks it for each
// resource of a template. r is the request that asks (its caller).
func (c *Core) ValidateWrite(r *http.Request, id string, body map[string]any) error {
	t, ok := armpath.Parse(id)
	if !ok || t.Kind != armpath.Resource {
		return Errorf(http.StatusBadRequest, "InvalidResourceId", "'%s' is not a resource ID.", id)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	exists := c.live(armpath.Key(t.ID)) != nil
	for _, v := range c.hooks.validators {
		if err := v.ValidateWrite(Tx{c}, r, t, body, exists); err != nil {
			return err
		}
	}
	return nil
}

// Tx is the state while the core's lock is held: inside Read or Write, or
// in a hook. It must not be kept after.
type Tx struct{ c *Core }

// Read runs fn with the state locked for reading.
func (c *Core) Read(fn func(Tx) error) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return fn(Tx{c})
}

// Write runs fn with the state locked for writing.
func (c *Core) Write(fn func(Tx) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fn(Tx{c})
}

// Store is the store, for a provider's own records (soft-deleted ones) and indexes.
func (tx Tx) Store() *store.Store { return tx.c.st }

// Live is the record under key k unless it is absent or its deletion has finished.
func (tx Tx) Live(k string) *store.Record { return tx.c.live(k) }

// NewUUID is a new UUID from the core's generator (only inside Write or a write's hook).
func (tx Tx) NewUUID() string { return tx.c.newUUID() }

// Ancestors checks that everything containing t exists, as a read (write
// false) or a write reports what is missing.
func (tx Tx) Ancestors(t armpath.Target, write bool) error { return tx.c.ancestors(t, write) }
