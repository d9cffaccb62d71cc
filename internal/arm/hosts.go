package arm

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// operationHeaders are the headers an ARM answer names a URL to follow in:
// the status of a long-running operation (Azure-AsyncOperation,
// Operation-Location) or where its result will be (Location).
var operationHeaders = []string{"Azure-AsyncOperation", "Operation-Location", "Location"}

// endpointOnly is a pipeline policy that keeps the bearer token with ARM.
// It sits before the retry and authentication policies, and refuses to send
// a request anywhere but the endpoint (scheme and host), and refuses an
// answer naming another host in an operation header, so that azcore's
// pollers never follow it; a redirect (never followed by the transport, see
// withoutRedirects) is refused too. ARM gives operation URLs on its own
// host: it rewrites those of resource providers to it.
type endpointOnly struct{ endpoint *url.URL }

func (p endpointOnly) Do(req *policy.Request) (*http.Response, error) {
	if u := req.Raw().URL; !p.holds(u) {
		return nil, &LeftEndpointError{Endpoint: p.endpoint.String(), URL: withoutQuery(u.String())}
	}
	resp, err := req.Next()
	if err != nil {
		return resp, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		discard(resp)
		return nil, &LeftEndpointError{Endpoint: p.endpoint.String(), Redirect: resp.StatusCode, URL: withoutQuery(resp.Header.Get("Location"))}
	}
	for _, h := range operationHeaders {
		v := resp.Header.Get(h)
		if v == "" || resp.StatusCode >= 300 {
			continue
		}
		if u, err := url.Parse(v); err != nil || !p.holds(u) {
			discard(resp)
			return nil, &LeftEndpointError{Endpoint: p.endpoint.String(), Header: h, URL: withoutQuery(v), Status: resp.StatusCode}
		}
	}
	return resp, nil
}

// holds reports whether u is on the endpoint: the same scheme and host
// (port included).
func (p endpointOnly) holds(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, p.endpoint.Scheme) && strings.EqualFold(u.Host, p.endpoint.Host)
}

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// LeftEndpointError is an ARM answer that would have taken a request (and
// its bearer token) to another host: an operation header naming it, or a
// redirect. Nothing is sent there.
type LeftEndpointError struct {
	// Endpoint is the ARM endpoint; URL is where the answer pointed, its
	// query (which may hold signatures) removed.
	Endpoint, URL string
	// Header is the operation header that named URL; Status is the answer's.
	Header string
	Status int
	// Redirect is the status of a redirect to URL.
	Redirect int
}

func (e *LeftEndpointError) Error() string {
	switch {
	case e.Redirect != 0:
		return fmt.Sprintf("the answer is a redirect (%d) to %q: not followed, as it would carry the request's body and access token away from the ARM endpoint %s", e.Redirect, e.URL, e.Endpoint)
	case e.Header != "":
		return fmt.Sprintf("the answer (%d) names %q in its %s header, not on the ARM endpoint %s: not followed, so the access token goes only to ARM; what the request did is not known", e.Status, e.URL, e.Header, e.Endpoint)
	}
	return fmt.Sprintf("refusing to send a request to %q: it is not on the ARM endpoint %s", e.URL, e.Endpoint)
}

// NonRetriable: azcore's retry policy gives up on it at once.
func (*LeftEndpointError) NonRetriable() {}

// isLeftEndpoint reports whether err is a LeftEndpointError.
func isLeftEndpoint(err error) bool {
	var le *LeftEndpointError
	return errors.As(err, &le)
}

// withoutRedirects is the transport with redirects handed back rather than
// followed: Go's client would send a 307's body again, and a token along to
// a subdomain. nil stands for azcore's default client, rebuilt with its
// settings; a transport that is not an *http.Client is used as it is.
func withoutRedirects(t policy.Transporter) policy.Transporter {
	refuse := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	switch c := t.(type) {
	case nil:
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 10
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		return &http.Client{Transport: tr, CheckRedirect: refuse}
	case *http.Client:
		client := *c
		client.CheckRedirect = refuse
		return &client
	}
	return t
}
