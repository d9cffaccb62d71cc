package emulator

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/deploy"
	"github.com/azkcli/azk/internal/emulator/faults"
	"github.com/azkcli/azk/internal/emulator/history"
	"github.com/azkcli/azk/internal/emulator/identity"
	"github.com/azkcli/azk/internal/emulator/middleware"
	"github.com/azkcli/azk/internal/emulator/providers"
	"github.com/azkcli/azk/internal/emulator/store"
)

// Server is the emulator. Its zero value is not usable; create one with New
// and release it with Close.
type Server struct {
	opts   Options
	faults *faults.State
	// adminToken guards the admin API.
	adminToken string

	st      *store.Store
	core    *armcore.Core
	deploys *deploy.Engine
	// history is Azure's record of the writes: Resource Graph's change
	// history and the Activity Log.
	history *history.Log
	// seeds are the world outside the emulator the admin API sets.
	seeds *providers.Seeds
	// arm serves the ARM surface: the core with its middleware.
	arm http.Handler
	// tokens is the token service (OIDC discovery, token endpoints).
	tokens *identity.Service
}

// New opens (or creates) the state in opts.StateDir and returns a Server.
func New(opts Options) (*Server, error) {
	prov := providers.New()
	st, err := store.Open(opts.StateDir, prov.Indexes()...)
	if err != nil {
		return nil, err
	}
	fs := faults.NewState(opts.Seed, opts.Faults)
	cfg := opts.coreConfig()
	s := &Server{opts: opts, faults: fs, adminToken: newAdminToken(opts.AdminToken), st: st, core: armcore.New(st, cfg, fs), seeds: prov.Seeds()}
	inner := []armcore.Middleware{middleware.RequestFaults(fs, cfg.Compression())}
	if opts.EnforceRBAC {
		inner = append(inner, middleware.EnforceRBAC(prov))
	}
	inner = append(inner, middleware.EnforceLocks(prov))
	// ARM authorizes before a resource provider counts the request.
	inner = append(inner, middleware.ProviderThrottle(fs, cfg.Compression()))
	s.arm = s.core.Handler([]armcore.Middleware{middleware.Latency(fs)}, inner)
	// The engine's requests go through the same handler as clients', faults
	// included, as ARM's engine meets the same throttling.
	s.deploys = deploy.New(s.core, s.arm, opts.StateDir)
	s.core.Register(s.deploys)
	if s.history, err = history.Open(s.core, opts.StateDir, opts.historyRetention()); err != nil {
		s.core.Close()
		return nil, err
	}
	s.core.Register(s.history)
	prov.Register(s.core)
	s.tokens = &identity.Service{Issuer: s.core.Issuer(), UserAssigned: s.userAssignedIdentity}
	return s, nil
}

// Close stops drift timers and flushes the state to disk.
func (s *Server) Close() error {
	s.deploys.Stop()
	err := s.core.Close()
	if herr := s.history.Close(); err == nil {
		err = herr
	}
	return err
}

// Faults returns the faults in force.
func (s *Server) Faults() Faults { return s.faults.Get() }

// SetFaults replaces the faults in force and refills the rate-limit buckets.
func (s *Server) SetFaults(f Faults) { s.faults.Set(f) }

// Handler serves the ARM surface, the cloud metadata, the token service and,
// under /_emulator/, the admin API.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.bodyDeadline(w, r)
	// Anonymous endpoints outside ARM's paths first, as ARM and Entra
	// serve them without a token: the admin API (its own token), the cloud
	// metadata, the token service.
	switch {
	case strings.HasPrefix(r.URL.Path, adminPrefix):
		s.serveAdmin(w, r)
	case isMetadataPath(r.URL.Path):
		serveMetadata(w, r)
	case s.tokens.Serve(w, r):
	default:
		s.arm.ServeHTTP(w, r)
	}
}

// HistoryRetention is how long the change history and the Activity Log keep a write.
func (s *Server) HistoryRetention() HistoryRetention { return s.history.Retention() }

// SetHistoryRetention replaces how long the change history and the
// Activity Log keep a write (0 keeps nothing), dropping what they no longer keep.
func (s *Server) SetHistoryRetention(r HistoryRetention) error { return s.history.SetRetention(r) }

// Drift merges patch (a JSON merge patch) into the stored resource id, as a
// change made outside the client would; the resource gets a new ETag.
func (s *Server) Drift(id string, patch json.RawMessage) error { return s.core.Drift(id, patch) }

// Warnings reports the damaged lines of the state files found at start;
// each was skipped and the rest of the state loaded.
func (s *Server) Warnings() []string { return append(s.st.Warnings(), s.history.Warnings()...) }

// ResourceIDs are the ARM IDs of every resource the emulator holds now,
// sorted: what a test compares before and after a run whose deletions
// happen inside the emulator (a deployment stack's).
func (s *Server) ResourceIDs() []string { return s.core.IDs() }

// userAssignedIdentity finds the stored user-assigned identity a managed
// identity token request names by client ID, principal (object) ID or
// resource ID.
func (s *Server) userAssignedIdentity(clientID, objectID, resourceID string) (identity.Principal, bool) {
	var found identity.Principal
	ok := false
	_ = s.core.Read(func(tx armcore.Tx) error {
		for k, rec := range tx.Store().OfType("Microsoft.ManagedIdentity/userAssignedIdentities") {
			if tx.Live(k) == nil {
				continue
			}
			var body struct {
				Properties struct {
					PrincipalID string `json:"principalId"`
					ClientID    string `json:"clientId"`
				} `json:"properties"`
			}
			if json.Unmarshal(rec.Body, &body) != nil {
				continue
			}
			p := body.Properties
			if (clientID != "" && strings.EqualFold(p.ClientID, clientID)) || (objectID != "" && strings.EqualFold(p.PrincipalID, objectID)) ||
				(resourceID != "" && strings.EqualFold(rec.ID, resourceID)) {
				found, ok = identity.Principal{ObjectID: p.PrincipalID, TenantID: identity.Tenant, AppID: p.ClientID, Type: "ServicePrincipal"}, true
				return nil
			}
		}
		return nil
	})
	return found, ok
}

// bodyDeadline gives a request's body the read deadline its headers have
// (Options.ReadTimeout from now), lifted once the body has been read to its
// end: a client trickling its body is cut off (the deadline stays, so the
// connection is closed rather than drained), while a handler that runs long
// after reading it is not (net/http's ReadTimeout would cancel it).
func (s *Server) bodyDeadline(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(s.opts.readTimeout())) != nil {
		return // a connection without deadlines (a test's recorder)
	}
	r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

// deadlineBody lifts its connection's read deadline when it has been read to the end.
type deadlineBody struct {
	io.ReadCloser
	lift func()
	once sync.Once
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.lift)
	}
	return n, err
}
