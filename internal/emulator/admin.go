package emulator

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
)

// adminPrefix is reserved for the admin API; ARM paths never start with it.
const adminPrefix = "/_emulator/"

// The admin API, for tests and scripts. Every request carries
// "Authorization: Bearer TOKEN" with the token the emulator printed at start
// (Server.AdminToken), and every body is "Content-Type: application/json":
// a web page can send neither a custom Authorization header nor a JSON
// content type across origins without a preflight that the admin API never
// answers, so a browser on the same machine cannot drive it.
//
//	GET  /_emulator/faults  the Faults in force
//	PUT  /_emulator/faults  replace them (JSON Faults)
//	POST /_emulator/drift   {"id": ARM ID, "patch": JSON merge patch}: change a resource as the portal would
//	GET|POST /_emulator/history  {"changesRetention": "336h", "activityRetention": "0s"}: how long the change history and the Activity Log keep a write
//	GET|PUT /_emulator/names, offerings, quotas, vmsizes: the world outside the emulator (admin_seeds.go)
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	if !s.adminAuthorized(r.Header.Get("Authorization")) {
		armcore.WriteError(w, http.StatusUnauthorized, "AuthenticationFailed", "The admin API needs 'Authorization: Bearer TOKEN' with the token the emulator printed at start.")
		return
	}
	if r.Method != http.MethodGet {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			armcore.WriteError(w, http.StatusUnsupportedMediaType, "UnsupportedMediaType", "The admin API accepts only 'Content-Type: application/json'.")
			return
		}
	}
	switch strings.TrimPrefix(r.URL.Path, adminPrefix) {
	case "faults":
		switch r.Method {
		case http.MethodGet:
			armcore.WriteJSON(w, http.StatusOK, s.Faults())
			return
		case http.MethodPut:
			var f Faults
			if err := json.NewDecoder(io.LimitReader(r.Body, s.opts.coreConfig().BodyLimit())).Decode(&f); err != nil {
				armcore.WriteError(w, http.StatusBadRequest, "InvalidRequestContent", "faults: %v", err)
				return
			}
			s.SetFaults(f)
			armcore.WriteJSON(w, http.StatusOK, f)
			return
		}
	case "drift":
		if r.Method == http.MethodPost {
			var req struct {
				ID    string          `json:"id"`
				Patch json.RawMessage `json:"patch"`
			}
			if err := json.NewDecoder(io.LimitReader(r.Body, s.opts.coreConfig().BodyLimit())).Decode(&req); err != nil {
				armcore.WriteError(w, http.StatusBadRequest, "InvalidRequestContent", "drift: %v", err)
				return
			}
			if err := s.Drift(req.ID, req.Patch); err != nil {
				armcore.WriteARMError(w, err)
				return
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
	case "history":
		switch r.Method {
		case http.MethodGet:
			armcore.WriteJSON(w, http.StatusOK, retentionJSON(s.HistoryRetention()))
			return
		case http.MethodPost:
			var req struct {
				Changes  *string `json:"changesRetention"`
				Activity *string `json:"activityRetention"`
			}
			if err := json.NewDecoder(io.LimitReader(r.Body, s.opts.coreConfig().BodyLimit())).Decode(&req); err != nil {
				armcore.WriteError(w, http.StatusBadRequest, "InvalidRequestContent", "history: %v", err)
				return
			}
			ret := s.HistoryRetention()
			for _, f := range []struct {
				given *string
				set   *time.Duration
			}{{req.Changes, &ret.Changes}, {req.Activity, &ret.Activity}} {
				if f.given == nil {
					continue
				}
				d, err := time.ParseDuration(*f.given)
				if err != nil || d < 0 {
					armcore.WriteError(w, http.StatusBadRequest, "InvalidRequestContent", "history: retention %q is not a duration of 0s or more (such as 336h)", *f.given)
					return
				}
				*f.set = d
			}
			if err := s.SetHistoryRetention(ret); err != nil {
				armcore.WriteARMError(w, err)
				return
			}
			armcore.WriteJSON(w, http.StatusOK, retentionJSON(ret))
			return
		}
	default:
		if s.serveSeeds(w, r, strings.TrimPrefix(r.URL.Path, adminPrefix)) {
			return
		}
		armcore.WriteError(w, http.StatusNotFound, "NotFound", "no admin endpoint %s", r.URL.Path)
		return
	}
	armcore.WriteError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "%s is not supported on %s", r.Method, r.URL.Path)
}

// adminAuthorized reports whether an Authorization header is "Bearer TOKEN"
// with the admin token. The scheme is required (its case is not, RFC 9110
// section 11.1): a bare token is refused.
func (s *Server) adminAuthorized(header string) bool {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(token), []byte(s.adminToken)) == 1
}

// AdminClient drives a running emulator's admin API; Running.AdminClient
// returns one set up for it. Otherwise set BaseURL (the emulator's URL) and
// Token (its admin token); HTTP defaults to http.DefaultClient.
type AdminClient struct {
	BaseURL string
	Token   string
	HTTP    *http.Client
}

// AdminClient returns a client of this emulator's admin API.
func (r *Running) AdminClient() *AdminClient {
	return &AdminClient{BaseURL: r.URL, Token: r.Server.AdminToken(), HTTP: r.HTTPClient()}
}

// Faults returns the faults in force.
func (c *AdminClient) Faults(ctx context.Context) (Faults, error) {
	var f Faults
	err := c.do(ctx, http.MethodGet, "faults", nil, &f)
	return f, err
}

// SetFaults replaces the faults in force.
func (c *AdminClient) SetFaults(ctx context.Context, f Faults) error {
	return c.do(ctx, http.MethodPut, "faults", f, nil)
}

// Drift merges patch (a JSON merge patch) into the resource id, as a change made in the portal would.
func (c *AdminClient) Drift(ctx context.Context, id string, patch any) error {
	return c.do(ctx, http.MethodPost, "drift", map[string]any{"id": id, "patch": patch}, nil)
}

// SetHistoryRetention sets how long the change history and the Activity
// Log keep a write (0 keeps nothing), dropping what they no longer keep.
func (c *AdminClient) SetHistoryRetention(ctx context.Context, r HistoryRetention) error {
	return c.do(ctx, http.MethodPost, "history", retentionJSON(r), nil)
}

// retentionJSON is a retention as the admin API reads and answers it.
func retentionJSON(r HistoryRetention) map[string]string {
	return map[string]string{"changesRetention": r.Changes.String(), "activityRetention": r.Activity.String()}
}

func (c *AdminClient) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.BaseURL, "/")+adminPrefix+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("emulator admin %s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// AdminToken is the secret the admin API requires; print it only to the
// user who started the emulator.
func (s *Server) AdminToken() string { return s.adminToken }

func newAdminToken(given string) string {
	if given != "" {
		return given
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}
