package emulator

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/registry"
)

// Server is the emulator. Its zero value is not usable; create one with New
// and release it with Close.
type Server struct {
	opts   Options
	faults *faultState
	// adminToken guards the admin API.
	adminToken string

	mu sync.RWMutex // guards st, ids, timers, closed
	st *store
	// ids generates resource GUIDs, ETags and operation IDs.
	ids    *rand.Rand
	timers []*time.Timer
	closed bool
	// nextDue is the UnixNano when the earliest pending operation finishes
	// (math.MaxInt64 when none), so reads take the write lock only when due.
	nextDue atomic.Int64

	// deploys runs deployments and stacks (deployments.go), made on first use.
	deploys    *deployments
	deployOnce sync.Once
}

// armError is ARM's error body content.
type armError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	status  int
}

func (e *armError) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, format string, args ...any) *armError {
	return &armError{Code: code, Message: fmt.Sprintf(format, args...), status: status}
}

// New opens (or creates) the state in opts.StateDir and returns a Server.
func New(opts Options) (*Server, error) {
	st, err := newStore(opts.StateDir)
	if err != nil {
		return nil, err
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", opts.Seed, st.loaded)
	idSeed := uint64(opts.Seed)
	if opts.Seed == 0 {
		// Unseeded: generated IDs differ between fresh emulators, as in Azure.
		idSeed = rand.Uint64()
	}
	s := &Server{
		opts:       opts,
		faults:     newFaultState(opts.Seed, opts.Faults),
		adminToken: newAdminToken(opts.AdminToken),
		st:         st,
		ids:        rand.New(rand.NewPCG(idSeed, h.Sum64())),
	}
	s.mu.Lock()
	s.recomputeDueLocked()
	s.mu.Unlock()
	return s, nil
}

// Close stops drift timers and flushes the state to disk.
func (s *Server) Close() error {
	s.stopDeployments()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for _, t := range s.timers {
		t.Stop()
	}
	return s.st.close()
}

// Faults returns the faults in force.
func (s *Server) Faults() Faults { return s.faults.get() }

// SetFaults replaces the faults in force and refills the rate-limit buckets.
func (s *Server) SetFaults(f Faults) { s.faults.set(f) }

// Handler serves the ARM surface and, under /_emulator/, the admin API.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Server) newUUID() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(s.ids.Uint32())
	}
	u, _ := uuid.FromBytes(b[:])
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	return u.String()
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, adminPrefix) {
		s.serveAdmin(w, r)
		return
	}
	// ARM gives every request its own ID and echoes the caller's correlation ID
	// (making one when the caller sent none).
	h := w.Header()
	h.Set("x-ms-request-id", uuid.NewString())
	correlation := r.Header.Get("x-ms-correlation-request-id")
	if correlation == "" {
		correlation = uuid.NewString()
	}
	h.Set("x-ms-correlation-request-id", correlation)
	if id := r.Header.Get("x-ms-client-request-id"); id != "" {
		h.Set("x-ms-client-request-id", id)
	}
	h.Set("Cache-Control", "no-cache")
	if d := s.faults.get().Latency; d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		h.Set("WWW-Authenticate", `Bearer authorization_uri="https://login.microsoftonline.com/common", error="invalid_token", error_description="The authentication failed because of missing 'Authorization' header."`)
		writeError(w, http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
		return
	}
	if r.URL.Query().Get("api-version") == "" {
		writeError(w, http.StatusBadRequest, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
		return
	}
	t, ok := parseTarget(r.URL.Path)
	if !ok {
		writeError(w, http.StatusNotFound, "InvalidResourceType", "The request path '%s' is not an ARM resource or collection.", r.URL.Path)
		return
	}
	if err := checkAPIVersion(versionedType(t, r.Method), r.URL.Query().Get("api-version")); err != nil {
		writeARMError(w, err)
		return
	}
	if s.injectRequestFaults(w, r, t.sub) {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.maxBodyBytes()))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "RequestContentTooLarge", "The request content size exceeds the limit of %d bytes.", tooBig.Limit)
			return
		}
		writeError(w, http.StatusBadRequest, "InvalidRequestContent", "The request content could not be read: %v", err)
		return
	}
	s.settle()
	if err := s.route(w, r, t, body); err != nil {
		writeARMError(w, err)
	}
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, t target, body []byte) error {
	if handled, err := s.serveDeployments(w, r, t, body); handled {
		return err
	}
	lt := strings.ToLower(t.typ)
	switch {
	case t.kind == targetResource && (strings.HasSuffix(lt, "/locations/operations") || strings.HasSuffix(lt, "/locations/operationresults")):
		if r.Method != http.MethodGet {
			return errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "Operation status only answers GET.")
		}
		return s.getOperation(w, r, t.name, strings.HasSuffix(lt, "/operationresults"))
	case lt == "microsoft.authorization/roledefinitions" && r.Method == http.MethodGet:
		return s.getRoleDefinitions(w, r, t)
	case strings.HasPrefix(lt, "microsoft.keyvault/locations/deletedvaults") || lt == "microsoft.keyvault/deletedvaults":
		return s.deletedVaults(w, r, t)
	}
	switch t.kind {
	case targetSubscription:
		if r.Method != http.MethodGet {
			return errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "Subscriptions are read-only.")
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": t.id, "subscriptionId": t.sub, "displayName": "Emulated subscription", "state": "Enabled",
			"tenantId": Tenant,
		})
		return nil
	case targetCollection, targetGroupResources:
		if r.Method == http.MethodPost && t.kind == targetCollection {
			return s.post(w, r, t, body)
		}
		if r.Method != http.MethodGet {
			return errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The collection '%s' only answers GET.", r.URL.Path)
		}
		return s.list(w, r, t)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return s.get(w, r, t)
	case http.MethodPut:
		return s.put(w, r, t, body, false)
	case http.MethodPatch:
		return s.put(w, r, t, body, true)
	case http.MethodDelete:
		return s.delete(w, r, t)
	}
	return errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on '%s'.", r.Method, r.URL.Path)
}

// ancestors checks that everything containing t exists, from the top down.
// Writes report a missing parent resource as ParentResourceNotFound, reads as
// ResourceNotFound naming the missing ancestor, as ARM does.
func (s *Server) ancestors(t target, write bool) error {
	if t.rg != "" && !(t.kind == targetResource && strings.EqualFold(t.typ, typeResourceGroup)) {
		if s.live(key("/subscriptions/"+t.sub+"/resourceGroups/"+t.rg)) == nil {
			return errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", t.rg)
		}
	}
	for _, a := range ancestorsOf(t) {
		if s.live(key(a.id)) != nil {
			continue
		}
		if write {
			return errorf(http.StatusNotFound, "ParentResourceNotFound",
				"Can not perform requested operation on nested resource. Parent resource '%s' not found.", a.id)
		}
		return notFound(a, t.rg)
	}
	return nil
}

func notFound(t target, rg string) *armError {
	if rg == "" {
		return errorf(http.StatusNotFound, "ResourceNotFound", "The Resource '%s/%s' was not found.", t.typ, t.name)
	}
	return errorf(http.StatusNotFound, "ResourceNotFound",
		"The Resource '%s/%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
		t.typ, t.name, rg)
}

// ancestorsOf lists the resources containing t, outermost first (resource
// groups and subscriptions excluded).
func ancestorsOf(t target) []target {
	var out []target
	for p := t; p.parentIsResource; {
		pt, ok := parseTarget(p.parent)
		if !ok || pt.kind != targetResource {
			break
		}
		out = append(out, pt)
		p = pt
	}
	slices.Reverse(out)
	return out
}

// live returns the record under k unless it is absent or its deletion has finished.
func (s *Server) live(k string) *record {
	rec := s.st.resources[k]
	if rec == nil || (rec.Pending != nil && rec.Pending.State == stateDeleting && !time.Now().Before(rec.Pending.Until)) {
		return nil
	}
	return rec
}

const (
	stateSucceeded = "Succeeded"
	stateFailed    = "Failed"
	stateAccepted  = "Accepted"
	stateCreating  = "Creating"
	stateUpdating  = "Updating"
	stateDeleting  = "Deleting"
)

// view renders a record's body as of now: while an operation runs the
// provisioningState is Accepted (first half of a create), then Creating,
// Updating or Deleting.
func view(rec *record, now time.Time) []byte {
	p := rec.Pending
	if p == nil || !now.Before(p.Until) {
		return rec.Body
	}
	state := p.State
	if state == stateCreating && now.Before(p.Start.Add(p.Until.Sub(p.Start)/2)) {
		state = stateAccepted
	}
	return withProvisioningState(rec.Body, state)
}

func withProvisioningState(body []byte, state string) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		m["properties"] = props
	}
	props["provisioningState"] = state
	out, _ := json.Marshal(m)
	return out
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, t target) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.ancestors(t, false); err != nil {
		return err
	}
	rec := s.live(key(t.id))
	if rec == nil {
		if strings.EqualFold(t.typ, typeResourceGroup) {
			return errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", t.name)
		}
		return notFound(t, t.rg)
	}
	if rec.ETag != "" {
		w.Header().Set("ETag", rec.ETag)
		if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, rec.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusNoContent) // ARM's existence check: 204, or 404
		return nil
	}
	writeRaw(w, http.StatusOK, s.render(rec, time.Now()))
	return nil
}

func etagMatches(header, etag string) bool {
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || part == etag || strings.TrimPrefix(part, "W/") == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}

// readOnly are top-level fields the emulator owns; client values are ignored.
var readOnly = []string{"id", "name", "type", "etag", "systemData"}

func (s *Server) put(w http.ResponseWriter, r *http.Request, t target, body []byte, patch bool) error {
	req, err := decodeObject(body)
	if err != nil {
		return err
	}
	now := time.Now()
	f := s.faults.get()
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(t.id)
	if err := s.ancestors(t, true); err != nil {
		return err
	}
	existing := s.live(k)
	if existing != nil && existing.Pending != nil && existing.Pending.State == stateDeleting {
		return errorf(http.StatusConflict, "Conflict", "The resource '%s' is being deleted.", t.id)
	}
	if err := checkPreconditions(r, existing); err != nil {
		return err
	}
	if err := s.replicationLag(t, f, now); err != nil {
		return err
	}
	if err := s.siblingConflict(t, k, f, now); err != nil {
		return err
	}
	if patch {
		if existing == nil {
			return notFound(t, t.rg)
		}
		var cur map[string]any
		if err := json.Unmarshal(existing.Body, &cur); err != nil {
			return err
		}
		if _, ok := req["tags"]; ok {
			delete(cur, "tags") // ARM replaces tags whole on PATCH
		}
		req = mergePatch(cur, req).(map[string]any)
	}
	if strings.EqualFold(t.typ, typeResourceGroup) {
		if loc, _ := req["location"].(string); loc == "" {
			return errorf(http.StatusBadRequest, "LocationRequired", "The location property is required for this definition.")
		}
	}
	var prev map[string]any
	if existing != nil {
		_ = json.Unmarshal(existing.Body, &prev)
	}
	parentID, parentType := t.id, t.typ
	if existing != nil {
		parentID, parentType = existing.ID, existing.Type
	}
	children, err := s.planChildren(parentID, parentType, req, patch)
	if err != nil {
		return err
	}
	if isVault(t.typ) {
		if prev, err = s.vaultCreateMode(t, req, prev); err != nil {
			return err
		}
	}

	kind := opCreate
	if existing != nil {
		kind = opUpdate
	}
	timing := s.opts.timingFor(t.typ, kind)
	failure, fails := f.failureFor(t.typ)
	duration := timing.duration
	if fails {
		duration, timing.hints = failure.After, nil
	}
	finalState := stateSucceeded
	var opErr *armError
	if fails {
		finalState = stateFailed
		code, msg := failure.Code, failure.Message
		if code == "" {
			code = "InternalServerError"
		}
		if msg == "" {
			msg = fmt.Sprintf("The operation on '%s' failed.", t.id)
		}
		opErr = &armError{Code: code, Message: msg}
	}

	rec := &record{ID: t.id, Type: t.typ, Parent: key(t.parent), Created: now}
	if existing != nil {
		rec.ID, rec.Type, rec.Created = existing.ID, existing.Type, existing.Created
	}
	rec.ETag = fmt.Sprintf(`W/"%s"`, s.newUUID())
	out := s.buildBody(rec, req, prev, now, finalState)
	for _, p := range writeOnly(rec.Type, r.URL.Query().Get("api-version")) {
		dropPath(out, p)
	}
	if rec.Body, err = json.Marshal(out); err != nil {
		return err
	}
	answer := putAnswerFor(rec.Type, existing != nil)
	async := duration > 0 || fails || answer.Async != ""
	var op *operation
	if async {
		op = &operation{ID: s.newUUID(), Resource: rec.ID, Method: http.MethodPut, APIVersion: r.URL.Query().Get("api-version"), Start: now, Until: now.Add(duration), Error: opErr, Hints: timing.hints}
		state := stateCreating
		if existing != nil {
			state = stateUpdating
		}
		if duration > 0 || fails {
			rec.Pending = &pending{Op: op.ID, State: state, Start: now, Until: op.Until}
			if err := s.st.putOp(op); err != nil {
				return err
			}
		} else {
			// An operation of no duration is over as it starts: nothing to
			// settle or store, its URL names the resource it wrote.
			op.ID = instantOperationID(rec.ID)
		}
	}
	if err := s.st.putResource(k, rec); err != nil {
		return err
	}
	if err := s.applyChildren(children, k, now, finalState, rec.Pending); err != nil {
		return err
	}
	if existing == nil && !fails {
		if err := s.createWithParent(rec, now, finalState); err != nil {
			return err
		}
	}
	if rec.Pending != nil {
		s.noteDueLocked(op.Until)
	} else {
		s.scheduleDriftLocked(rec, f, now)
	}
	if err := s.st.maybeCompact(now); err != nil {
		return err
	}

	h := w.Header()
	h.Set("ETag", rec.ETag)
	if async {
		if answer.Async != "Location" {
			h.Set("Azure-AsyncOperation", operationURL(r, rec, op, false))
		}
		if answer.Async == "Location" || answer.Status == http.StatusAccepted {
			h.Set("Location", operationURL(r, rec, op, true)) // a 202 always says where to look
		}
		s.answerHint(h, op, now)
	}
	if answer.Status == http.StatusAccepted {
		w.WriteHeader(http.StatusAccepted) // the resource is read once the operation ends
		return nil
	}
	writeRaw(w, answer.Status, s.render(rec, now))
	return nil
}

// putAnswerFor is how ARM answers a successful PUT that creates (or
// updates) a resource of typ: as the recordings show for the type
// (registry.ARMType.Create/Update), else 201 (200) with no polling header.
// An update the recordings do not show answers 200 with the create's polling
// header, unless the create answers 202 (then the update is synchronous).
func putAnswerFor(typ string, update bool) registry.PutAnswer {
	a := factsOf(typ).arm
	switch {
	case a != nil && update && a.Update != nil:
		return *a.Update
	case a != nil && update && a.Create != nil && a.Create.Status != http.StatusAccepted:
		return registry.PutAnswer{Status: http.StatusOK, Async: a.Create.Async}
	case update:
		return registry.PutAnswer{Status: http.StatusOK}
	case a != nil && a.Create != nil:
		return *a.Create
	}
	return registry.PutAnswer{Status: http.StatusCreated}
}

// maxBodyDepth bounds how deeply a request body may nest. ARM's schemas stay
// far below it; a deeper body is refused before it is stored, since a journal
// line that deep could not be decoded again on restart.
const maxBodyDepth = 64

func decodeObject(body []byte) (map[string]any, error) {
	if depthExceeds(body, maxBodyDepth) {
		return nil, errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: it nests deeper than %d levels.", maxBodyDepth)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		msg := "the body is not a JSON object"
		if err != nil {
			msg = err.Error()
		}
		return nil, errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: %s.", msg)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: trailing data after the JSON object.")
	}
	return m, nil
}

// depthExceeds reports whether the JSON text nests objects and arrays deeper than limit.
func depthExceeds(b []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

func checkPreconditions(r *http.Request, existing *record) error {
	if im := r.Header.Get("If-Match"); im != "" {
		if existing == nil || !etagMatches(im, existing.ETag) {
			return errorf(http.StatusPreconditionFailed, "PreconditionFailed", "The resource's ETag does not match the If-Match header.")
		}
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && existing != nil && etagMatches(inm, existing.ETag) {
		return errorf(http.StatusPreconditionFailed, "PreconditionFailed", "The resource already exists and matches the If-None-Match header.")
	}
	return nil
}

// buildBody is the stored body: the request, with the fields ARM owns set
// and the read-only properties of the previous version kept.
func (s *Server) buildBody(rec *record, req, prev map[string]any, now time.Time, state string) map[string]any {
	out := map[string]any{}
	for k, v := range req {
		if !slices.Contains(readOnly, k) {
			out[k] = v
		}
	}
	out["id"] = rec.ID
	out["name"] = rec.ID[strings.LastIndexByte(rec.ID, '/')+1:]
	out["type"] = rec.Type
	if _, ok := out["tags"]; !ok {
		out["tags"] = map[string]any{}
	}
	if _, ok := out["location"]; !ok {
		if loc := s.locationOf(rec.Parent); loc != "" && !strings.EqualFold(rec.Type, typeResourceGroup) {
			out["location"] = loc
		}
	}
	out["etag"] = rec.ETag
	facts := factsOf(rec.Type)
	facts.fill(s, rec, out, prev, now)
	s.assignPrivateIPs(rec, out, prev)
	props, _ := out["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	var prevProps, prevSystem map[string]any
	if prev != nil {
		prevProps, _ = prev["properties"].(map[string]any)
		prevSystem, _ = prev["systemData"].(map[string]any)
	}
	guid, _ := prevProps["resourceGuid"].(string)
	if guid == "" {
		guid = s.newUUID()
	}
	props["resourceGuid"] = guid
	props["provisioningState"] = state
	s.assignIdentities(rec, out, props, prev, prevProps)
	s.assignEndpoints(rec, out, props, prevProps)
	out["properties"] = props
	created := now.UTC().Format(time.RFC3339Nano)
	if c, ok := prevSystem["createdAt"].(string); ok {
		created = c
	}
	out["systemData"] = map[string]any{
		"createdBy": "emulator@example.com", "createdByType": "User", "createdAt": created,
		"lastModifiedBy": "emulator@example.com", "lastModifiedByType": "User", "lastModifiedAt": now.UTC().Format(time.RFC3339Nano),
	}
	facts.dropSecrets(out)
	return out
}

// locationOf is the location of the nearest stored ancestor, for child
// resources whose body names none.
func (s *Server) locationOf(k string) string {
	for depth := 0; k != "" && depth < 64; depth++ {
		rec := s.st.resources[k]
		if rec == nil {
			return ""
		}
		var m struct {
			Location string `json:"location"`
		}
		if json.Unmarshal(rec.Body, &m) == nil && m.Location != "" {
			return m.Location
		}
		k = rec.Parent
	}
	return ""
}

// mergePatch applies an RFC 7386 JSON merge patch.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

func (s *Server) replicationLag(t target, f Faults, now time.Time) error {
	if f.ReplicationLag <= 0 || t.rg == "" || strings.EqualFold(t.typ, typeResourceGroup) {
		return nil
	}
	rg := s.st.resources[key("/subscriptions/"+t.sub+"/resourceGroups/"+t.rg)]
	if rg == nil || now.Sub(rg.Created) >= f.ReplicationLag {
		return nil
	}
	rate := f.ReplicationLagRate
	if rate == 0 {
		rate = 1
	}
	if s.faults.hit(rate, "lag", "PUT "+t.id) {
		return errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", t.rg)
	}
	return nil
}

// siblingConflict answers 409 AnotherOperationInProgress when a sibling of a
// conflict-prone child type has an operation in progress.
func (s *Server) siblingConflict(t target, k string, f Faults, now time.Time) error {
	if !t.parentIsResource || !f.conflicts(t.typ) {
		return nil
	}
	for sib := range s.st.children[key(t.parent)] {
		rec := s.st.resources[sib]
		if sib == k || rec == nil || rec.Pending == nil || !now.Before(rec.Pending.Until) || !f.conflicts(rec.Type) {
			continue
		}
		return errorf(http.StatusConflict, "AnotherOperationInProgress",
			"Another operation on this or dependent resource is in progress. To retry later, please refer to the Azure-AsyncOperation of '%s'.", rec.ID)
	}
	return nil
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, t target) error {
	now := time.Now()
	f := s.faults.get()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ancestors(t, false); err != nil {
		return err
	}
	k := key(t.id)
	rec := s.live(k)
	if rec == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if err := checkPreconditions(r, rec); err != nil {
		return err
	}
	if rec.Pending != nil && rec.Pending.State == stateDeleting {
		op := s.st.ops[rec.Pending.Op]
		w.Header().Set("Location", operationURL(r, rec, op, true))
		s.answerHint(w.Header(), op, now)
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	if err := s.siblingConflict(t, k, f, now); err != nil {
		return err
	}
	if err := s.subtreeInUse(k); err != nil {
		return err
	}
	timing := s.opts.timingFor(rec.Type, opDelete)
	if timing.duration <= 0 {
		if err := s.removeSubtreeLocked(k, now); err != nil {
			return err
		}
		w.WriteHeader(http.StatusOK)
		return s.st.maybeCompact(now)
	}
	op := &operation{ID: s.newUUID(), Resource: rec.ID, APIVersion: r.URL.Query().Get("api-version"), Start: now, Until: now.Add(timing.duration), Hints: timing.hints}
	if err := s.st.putOp(op); err != nil {
		return err
	}
	p := &pending{Op: op.ID, State: stateDeleting, Start: now, Until: op.Until}
	if err := s.markSubtreeLocked(k, p); err != nil {
		return err
	}
	s.noteDueLocked(op.Until)
	w.Header().Set("Location", operationURL(r, rec, op, true))
	s.answerHint(w.Header(), op, now)
	w.WriteHeader(http.StatusAccepted)
	return s.st.maybeCompact(now)
}

// subtree lists k and everything under it (children and extension resources), parents first.
func (s *Server) subtree(k string) []string {
	out := []string{k}
	for i := 0; i < len(out); i++ {
		kids := make([]string, 0, len(s.st.children[out[i]]))
		for c := range s.st.children[out[i]] {
			kids = append(kids, c)
		}
		sort.Strings(kids)
		out = append(out, kids...)
	}
	return out
}

func (s *Server) markSubtreeLocked(k string, p *pending) error {
	for _, c := range s.subtree(k) {
		rec := *s.st.resources[c]
		rec.Pending = p
		if err := s.st.putResource(c, &rec); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) removeSubtreeLocked(k string, now time.Time) error {
	keys := s.subtree(k)
	for i := len(keys) - 1; i >= 0; i-- {
		rec := s.st.resources[keys[i]]
		if isVault(rec.Type) {
			if err := s.softDeleteVaultLocked(rec, now); err != nil {
				return err
			}
		}
		if err := s.st.deleteResource(keys[i]); err != nil {
			return err
		}
	}
	return nil
}

// settle finishes the operations that are due, taking the write lock only then.
func (s *Server) settle() {
	now := time.Now()
	if now.UnixNano() < s.nextDue.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	f := s.faults.get()
	for k, rec := range s.st.resources {
		if rec.Pending == nil || now.Before(rec.Pending.Until) {
			continue
		}
		if _, ok := s.st.resources[k]; !ok {
			continue // removed with an ancestor earlier in this loop
		}
		if rec.Pending.State == stateDeleting {
			// Ancestors first, so that their removal takes the subtree with it.
			top := k
			for p := s.st.resources[rec.Parent]; p != nil && p.Pending != nil && p.Pending.State == stateDeleting && !now.Before(p.Pending.Until); p = s.st.resources[p.Parent] {
				top = key(p.ID)
			}
			_ = s.removeSubtreeLocked(top, now)
			continue
		}
		done := *rec
		done.Pending = nil
		_ = s.st.putResource(k, &done)
		s.scheduleDriftLocked(&done, f, now)
	}
	s.recomputeDueLocked()
	_ = s.st.maybeCompact(now)
}

func (s *Server) noteDueLocked(t time.Time) {
	if t.UnixNano() < s.nextDue.Load() {
		s.nextDue.Store(t.UnixNano())
	}
}

func (s *Server) recomputeDueLocked() {
	due := int64(1<<63 - 1)
	for _, rec := range s.st.resources {
		if rec.Pending != nil && rec.Pending.Until.UnixNano() < due {
			due = rec.Pending.Until.UnixNano()
		}
	}
	s.nextDue.Store(due)
}

// scheduleDriftLocked arms the drift rules matching a resource whose write just completed.
func (s *Server) scheduleDriftLocked(rec *record, f Faults, now time.Time) {
	for _, d := range f.Drifts {
		if !globMatch(d.Type, rec.Type) || s.closed {
			continue
		}
		id, patch := rec.ID, d.Patch
		s.timers = append(s.timers, time.AfterFunc(d.After, func() { _ = s.Drift(id, patch) }))
	}
}

// Drift merges patch (a JSON merge patch) into the stored resource id, as a
// change made outside the client would; the resource gets a new ETag.
func (s *Server) Drift(id string, patch json.RawMessage) error {
	p, err := decodeObject(patch)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("emulator closed")
	}
	k := key(id)
	rec := s.live(k)
	if rec == nil {
		t, _ := parseTarget(id)
		return notFound(t, t.rg)
	}
	var cur map[string]any
	if err := json.Unmarshal(rec.Body, &cur); err != nil {
		return err
	}
	merged := mergePatch(cur, p).(map[string]any)
	next := *rec
	next.ETag = fmt.Sprintf(`W/"%s"`, s.newUUID())
	merged["etag"] = next.ETag
	if sd, ok := merged["systemData"].(map[string]any); ok {
		sd["lastModifiedBy"] = "portal@example.com"
		sd["lastModifiedAt"] = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if next.Body, err = json.Marshal(merged); err != nil {
		return err
	}
	return s.st.putResource(k, &next)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, t target) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var parents []string
	switch {
	case t.kind == targetGroupResources:
		if err := s.ancestors(t, false); err != nil {
			return err
		}
		parents = []string{key(t.parent)}
	case t.rg == "" && t.sub != "" && !t.parentIsResource && !strings.EqualFold(t.typ, typeResourceGroup):
		// A subscription-wide list of a type covers every resource group.
		parents = []string{key(t.parent)}
		for c := range s.st.children[key(t.parent)] {
			if rec := s.st.resources[c]; rec != nil && strings.EqualFold(rec.Type, typeResourceGroup) {
				parents = append(parents, c)
			}
		}
	default:
		if t.parentIsResource {
			pt, _ := parseTarget(t.parent)
			if err := s.ancestors(pt, false); err != nil {
				return err
			}
			if s.live(key(t.parent)) == nil {
				return notFound(pt, t.rg)
			}
		} else if err := s.ancestors(t, false); err != nil {
			return err
		}
		parents = []string{key(t.parent)}
	}
	var keys []string
	for _, p := range parents {
		for c := range s.st.children[p] {
			rec := s.live(c)
			if rec == nil || (t.kind == targetCollection && !strings.EqualFold(rec.Type, t.typ)) {
				continue
			}
			keys = append(keys, c)
		}
	}
	sort.Strings(keys)
	skip := r.URL.Query().Get("$skiptoken")
	start := sort.SearchStrings(keys, skip)
	if skip != "" && start < len(keys) && keys[start] == skip {
		start++
	}
	end := min(start+s.opts.pageSize(), len(keys))
	now := time.Now()
	items := make([]json.RawMessage, 0, end-start)
	for _, k := range keys[start:end] {
		items = append(items, s.render(s.st.resources[k], now))
	}
	page := map[string]any{"value": items}
	if end < len(keys) {
		q := r.URL.Query()
		q.Set("$skiptoken", keys[end-1])
		page["nextLink"] = baseURL(r) + r.URL.Path + "?" + q.Encode()
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// operationURL is where a long-running operation is polled: an
// Azure-AsyncOperation status URL, or (for deletes) a Location that answers
// 202 until done.
func operationURL(r *http.Request, rec *record, op *operation, result bool) string {
	t, _ := parseTarget(rec.ID)
	prefix := ""
	if t.sub != "" {
		prefix = "/subscriptions/" + url.PathEscape(t.sub)
	}
	loc := "global"
	// The location is read with the splicer's scanner: decoding the whole body
	// for it would cost every long-running write.
	if start, end, found, ok := memberSpan(rec.Body, "location"); ok && found {
		var l string
		if json.Unmarshal(rec.Body[start:end], &l) == nil && l != "" {
			loc = strings.ToLower(strings.ReplaceAll(l, " ", ""))
		}
	}
	kind := "operations"
	if result {
		kind = "operationResults"
	}
	return fmt.Sprintf("%s%s/providers/%s/locations/%s/%s/%s?api-version=%s",
		baseURL(r), prefix, namespaceOf(rec.Type), loc, kind, op.ID, url.QueryEscape(op.APIVersion))
}

func (s *Server) getOperation(w http.ResponseWriter, r *http.Request, id string, result bool) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	now := time.Now()
	op := s.st.ops[strings.ToLower(id)]
	if op == nil {
		op = instantOperation(id, now)
	}
	if op == nil {
		return errorf(http.StatusNotFound, "OperationNotFound", "The operation '%s' was not found.", id)
	}
	running := now.Before(op.Until)
	if result {
		switch {
		case running:
			w.Header().Set("Location", baseURL(r)+r.URL.RequestURI())
			s.answerHint(w.Header(), op, now)
			w.WriteHeader(http.StatusAccepted)
		case op.Error != nil:
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": op.Error})
		case op.Method == http.MethodPut && s.live(key(op.Resource)) != nil:
			writeRaw(w, http.StatusOK, s.render(s.live(key(op.Resource)), now))
		default:
			w.WriteHeader(http.StatusNoContent)
		}
		return nil
	}
	status := map[string]any{"id": r.URL.Path, "name": op.ID, "startTime": op.Start.UTC().Format(time.RFC3339Nano)}
	switch {
	case running:
		status["status"] = "InProgress"
		s.answerHint(w.Header(), op, now)
	case op.Error != nil:
		status["status"] = stateFailed
		status["error"] = op.Error
		status["endTime"] = op.Until.UTC().Format(time.RFC3339Nano)
	default:
		status["status"] = stateSucceeded
		status["endTime"] = op.Until.UTC().Format(time.RFC3339Nano)
	}
	writeJSON(w, http.StatusOK, status)
	return nil
}

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "InternalServerError", "encoding response: %v", err)
		return
	}
	writeRaw(w, status, body)
}

func writeError(w http.ResponseWriter, status int, code, format string, args ...any) {
	writeJSON(w, status, map[string]any{"error": armError{Code: code, Message: fmt.Sprintf(format, args...)}})
}

func writeARMError(w http.ResponseWriter, err error) {
	var ae *armError
	if errors.As(err, &ae) && ae.status != 0 {
		writeJSON(w, ae.status, map[string]any{"error": ae})
		return
	}
	writeError(w, http.StatusInternalServerError, "InternalServerError", "%v", err)
}

// versionedType is the resource type whose api-versions a request must use:
// the addressed type, or for a POST action the type it acts on; "" for the
// emulator's own operation-status paths.
func versionedType(t target, method string) string {
	lt := strings.ToLower(t.typ)
	if strings.HasSuffix(lt, "/locations/operations") || strings.HasSuffix(lt, "/locations/operationresults") {
		return ""
	}
	if method == http.MethodPost && t.kind == targetCollection {
		if i := strings.LastIndexByte(t.typ, '/'); i > 0 && strings.Contains(t.typ[:i], "/") {
			return t.typ[:i]
		}
		return ""
	}
	return t.typ
}

// instantPrefix starts the IDs of operations that finished as they started.
const instantPrefix = "done-"

func instantOperationID(resourceID string) string {
	return instantPrefix + hex.EncodeToString([]byte(resourceID))
}

// instantOperation is the finished PUT an instant operation ID names, or nil.
func instantOperation(id string, now time.Time) *operation {
	rest, ok := strings.CutPrefix(strings.ToLower(id), instantPrefix)
	if !ok {
		return nil
	}
	resource, err := hex.DecodeString(rest)
	if err != nil {
		return nil
	}
	return &operation{ID: id, Resource: string(resource), Method: http.MethodPut, Start: now, Until: now}
}
