// Package armcore is the emulator's Azure Resource Manager: routing, the
// generic PUT/GET/PATCH/DELETE of any resource type on the store, long-running
// operations, ETags, api-versions, error bodies, authentication and the
// values ARM fills in from the registry's facts. What a provider does beyond
// the generic path is registered with Core.Register (hooks.go); HTTP
// middleware (faults, throttling) slots into Core.Handler. It imports the
// store, armpath, faults and identity, never a layer above.
package armcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/faults"
	"github.com/azkcli/azk/internal/emulator/identity"
	"github.com/azkcli/azk/internal/emulator/store"
)

// Config configures a Core. It is the part of the emulator's Options the
// core takes, and each field means what the Options field of its name does:
// the ID seed, the list page size (0 means 100), the largest request body
// (0 means 4 MiB), the long-running-operation rules, recorded timing, time
// compression (below 1 means 1), and the subscription known from the start
// ("" means DefaultSubscription).
type Config struct {
	Seed            int64
	PageSize        int
	MaxBodyBytes    int64
	LRO             []LRORule
	RecordedTiming  bool
	TimeCompression float64
	Subscription    string
}

// Page is the list page size in force.
func (o Config) Page() int {
	if o.PageSize > 0 {
		return o.PageSize
	}
	return 100
}

// BodyLimit is the largest request body accepted.
func (o Config) BodyLimit() int64 {
	if o.MaxBodyBytes > 0 {
		return o.MaxBodyBytes
	}
	return 4 << 20
}

// Core is the ARM core over one store. Its zero value is not usable; create
// one with New and release it with Close.
type Core struct {
	cfg    Config
	faults *faults.State

	mu sync.RWMutex // guards st, ids, timers, closed
	st *store.Store
	// ids generates resource GUIDs, ETags and operation IDs.
	ids    *rand.Rand
	timers []*time.Timer
	closed bool
	// nextDue is the UnixNano when the earliest pending operation finishes
	// (math.MaxInt64 when none), so reads take the write lock only when due.
	nextDue atomic.Int64
	// pending are the records with an operation running, by when it ends.
	pending *pendingIndex

	hooks hooks
	// issuer verifies the tokens of the emulator's token service.
	issuer *identity.Issuer
}

// New returns a core serving st, consulting fs for the faults that act on
// writes (failing operations, conflicts, replication lag, drift).
func New(st *store.Store, cfg Config, fs *faults.State) *Core {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", cfg.Seed, st.Loaded())
	idSeed := uint64(cfg.Seed)
	if cfg.Seed == 0 {
		// Unseeded: generated IDs differ between fresh emulators, as in Azure.
		idSeed = rand.Uint64()
	}
	c := &Core{
		cfg:     cfg,
		faults:  fs,
		st:      st,
		ids:     rand.New(rand.NewPCG(idSeed, h.Sum64())),
		issuer:  identity.NewIssuer(),
		pending: newPendingIndex(),
	}
	st.AddIndex(c.pending)
	c.mu.Lock()
	c.recomputeDueLocked()
	c.mu.Unlock()
	return c
}

// Close stops drift timers and flushes the state to disk.
func (c *Core) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	for _, t := range c.timers {
		t.Stop()
	}
	return c.st.Close()
}

// newUUID draws a UUID from the core's generator; callers hold c.mu.
func (c *Core) newUUID() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(c.ids.Uint32())
	}
	u, _ := uuid.FromBytes(b[:])
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	return u.String()
}

// NewUUID is a new UUID from the core's generator, so that a seeded
// emulator's IDs are repeatable whichever layer asks.
func (c *Core) NewUUID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.newUUID()
}

// PageSize is the number of items per list page.
func (c *Core) PageSize() int { return c.cfg.Page() }

// Location is the location of the live resource id, and whether it exists.
func (c *Core) Location(id string) (location string, exists bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	rec := c.live(armpath.Key(id))
	if rec == nil {
		return "", false
	}
	var m struct {
		Location string `json:"location"`
	}
	_ = json.Unmarshal(rec.Body, &m)
	return m.Location, true
}

// ChildrenOf lists the IDs of the live resources directly under id, in no order.
func (c *Core) ChildrenOf(id string) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for k := range c.st.Children(armpath.Key(id)) {
		if rec := c.live(k); rec != nil {
			out = append(out, rec.ID)
		}
	}
	return out
}

// OperationEnds is when the stored operation id ends, if there is one.
func (c *Core) OperationEnds(id string) (time.Time, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if op := c.st.Op(strings.ToLower(id)); op != nil {
		return op.Until, true
	}
	return time.Time{}, false
}

// settle finishes the operations that are due, taking the write lock only then.
func (c *Core) settle() {
	now := time.Now()
	if now.UnixNano() < c.nextDue.Load() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	f := c.faults.Get()
	for _, k := range c.pending.dueAt(now) {
		rec := c.st.Resource(k)
		if rec == nil || rec.Pending == nil || now.Before(rec.Pending.Until) {
			continue // removed with an ancestor earlier in this loop
		}
		if rec.Pending.State == StateDeleting {
			// Ancestors first, so that their removal takes the subtree with it.
			top := k
			for p := c.st.Resource(rec.Parent); p != nil && p.Pending != nil && p.Pending.State == StateDeleting && !now.Before(p.Pending.Until); p = c.st.Resource(p.Parent) {
				top = armpath.Key(p.ID)
			}
			_ = c.removeSubtreeLocked(top, now)
			continue
		}
		done := *rec
		done.Pending = nil
		_ = c.st.PutResource(k, &done)
		c.scheduleDriftLocked(&done, f, now)
	}
	c.recomputeDueLocked()
	_ = c.st.MaybeCompact(now)
}

func (c *Core) noteDueLocked(t time.Time) {
	if t.UnixNano() < c.nextDue.Load() {
		c.nextDue.Store(t.UnixNano())
	}
}

func (c *Core) recomputeDueLocked() { c.nextDue.Store(c.pending.next()) }

// scheduleDriftLocked arms the drift rules matching a resource whose write just completed.
func (c *Core) scheduleDriftLocked(rec *store.Record, f faults.Config, now time.Time) {
	for _, d := range f.Drifts {
		if !armid.GlobMatch(d.Type, rec.Type) || c.closed {
			continue
		}
		id, patch := rec.ID, d.Patch
		c.timers = append(c.timers, time.AfterFunc(d.After, func() { _ = c.Drift(id, patch) }))
	}
}

// IDs are the ARM IDs of every resource the emulator holds now, sorted,
// for tests that compare what a run removed with what it announced
// (deletions ARM's engines make server-side, which no proxy sees).
func (c *Core) IDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []string
	for k, rec := range c.st.Resources() {
		if c.live(k) != nil {
			ids = append(ids, rec.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// Drift merges patch (a JSON merge patch) into the stored resource id, as a
// change made outside the client would; the resource gets a new ETag.
func (c *Core) Drift(id string, patch json.RawMessage) error {
	p, err := DecodeObject(patch)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("emulator closed")
	}
	k := armpath.Key(id)
	rec := c.live(k)
	if rec == nil {
		t, _ := armpath.Parse(id)
		return NotFound(t, t.RG)
	}
	var cur map[string]any
	if err := json.Unmarshal(rec.Body, &cur); err != nil {
		return err
	}
	merged := mergePatch(cur, p).(map[string]any)
	now := time.Now()
	next := *rec
	next.ETag = fmt.Sprintf(`W/"%s"`, c.newUUID())
	merged["etag"] = next.ETag
	if sd, ok := merged["systemData"].(map[string]any); ok {
		sd["lastModifiedBy"] = DriftPrincipal
		sd["lastModifiedAt"] = now.UTC().Format(time.RFC3339Nano)
	}
	// A patch naming a secret or a write-only value changes nothing the
	// store keeps: ARM keeps those only with the provider, never to return.
	factsOf(rec.Type).dropSecrets(merged)
	for _, p := range writeOnlyAtAnyVersion(rec.Type) {
		dropPath(merged, p)
	}
	if next.Body, err = json.Marshal(merged); err != nil {
		return err
	}
	if err := c.st.PutResource(k, &next); err != nil {
		return err
	}
	c.recordWrite(Write{ID: next.ID, Type: next.Type, Before: rec.Body, After: next.Body, At: now})
	return nil
}
