package armcore

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/emulator/armpath"
)

// Middleware wraps a handler, as net/http middleware does.
type Middleware func(http.Handler) http.Handler

// Handler is the ARM surface, in the order ARM answers a request: request
// IDs; then outer (middleware every request passes, such as latency); then
// authentication and validation (api-version given, path routable,
// api-version served for the type); then inner (middleware for valid
// requests, which can read the request's Target with TargetOf, such as
// throttling); then the routes: the registered Routers, then the generic
// resource paths. Middleware run in the order given.
func (c *Core) Handler(outer, inner []Middleware) http.Handler {
	var h http.Handler = http.HandlerFunc(c.serve)
	for i := len(inner) - 1; i >= 0; i-- {
		h = inner[i](h)
	}
	h = validate(h)
	h = c.authenticate(h)
	for i := len(outer) - 1; i >= 0; i-- {
		h = outer[i](h)
	}
	return requestIDs(h)
}

// requestIDs gives every request its own ID and echoes the caller's
// correlation ID (making one when the caller sent none), as ARM does.
func requestIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("x-ms-request-id", uuid.NewString())
		correlation := r.Header.Get("x-ms-correlation-request-id")
		if correlation == "" {
			correlation = uuid.NewString()
			r.Header.Set("x-ms-correlation-request-id", correlation) // what the request's records show
		}
		h.Set("x-ms-correlation-request-id", correlation)
		if id := r.Header.Get("x-ms-client-request-id"); id != "" {
			h.Set("x-ms-client-request-id", id)
		}
		h.Set("Cache-Control", "no-cache")
		next.ServeHTTP(w, r)
	})
}

// targetKey is the context key of the request's Target.
type targetKey struct{}

// TargetOf is what a validated request addresses; ok is false outside the
// inner middleware and the routes.
func TargetOf(r *http.Request) (t armpath.Target, ok bool) {
	t, ok = r.Context().Value(targetKey{}).(armpath.Target)
	return t, ok
}

// validate refuses a request without an api-version, on a path ARM would
// not route, or with an api-version the type does not serve.
func validate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("api-version") == "" {
			WriteError(w, http.StatusBadRequest, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
			return
		}
		t, ok := armpath.Parse(r.URL.Path)
		if !ok {
			WriteError(w, http.StatusNotFound, "InvalidResourceType", "The request path '%s' is not an ARM resource or collection.", r.URL.Path)
			return
		}
		if err := checkAPIVersion(versionedType(t, r.Method), r.URL.Query().Get("api-version")); err != nil {
			WriteARMError(w, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), targetKey{}, t)))
	})
}

// serve reads the body, finishes the operations that are due, and routes.
func (c *Core) serve(w http.ResponseWriter, r *http.Request) {
	t, _ := TargetOf(r)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, c.cfg.BodyLimit()))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			WriteError(w, http.StatusRequestEntityTooLarge, "RequestContentTooLarge", "The request content size exceeds the limit of %d bytes.", tooBig.Limit)
			return
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			// The server's read deadline (a body sent too slowly); the
			// connection is closed after this answer.
			WriteError(w, http.StatusRequestTimeout, "RequestTimeout", "The request content did not arrive in time.")
			return
		}
		WriteError(w, http.StatusBadRequest, "InvalidRequestContent", "The request content could not be read: %v", err)
		return
	}
	c.settle()
	if err := c.route(w, r, t, strictJSON(body)); err != nil {
		WriteARMError(w, err)
	}
}

func (c *Core) route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) error {
	lt := strings.ToLower(t.Type)
	if t.Kind == armpath.Resource && (strings.HasSuffix(lt, "/locations/operations") || strings.HasSuffix(lt, "/locations/operationresults")) {
		if r.Method != http.MethodGet {
			return Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "Operation status only answers GET.")
		}
		return c.getOperation(w, r, t.Name, strings.HasSuffix(lt, "/operationresults"))
	}
	for _, rt := range c.hooks.routers {
		if handled, err := rt.Route(w, r, t, body); handled {
			return err
		}
	}
	switch t.Kind {
	case armpath.Collection, armpath.GroupResources, armpath.SubscriptionResources:
		if r.Method != http.MethodGet {
			return Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The collection '%s' only answers GET.", r.URL.Path)
		}
		return c.list(w, r, t)
	case armpath.Subscription, armpath.Subscriptions, armpath.Tenants, armpath.Locations, armpath.TagNames, armpath.GroupAction:
		// Served by a Router (providers); none registered answers 404.
		return Errorf(http.StatusNotFound, "InvalidResourceType", "The request path '%s' is not served.", r.URL.Path)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return c.get(w, r, t)
	case http.MethodPut:
		return c.put(w, r, t, body, false)
	case http.MethodPatch:
		return c.put(w, r, t, body, true)
	case http.MethodDelete:
		return c.delete(w, r, t)
	}
	return Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on '%s'.", r.Method, r.URL.Path)
}
