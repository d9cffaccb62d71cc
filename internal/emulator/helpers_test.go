package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

const (
	sub = "/subscriptions/00000000-0000-0000-0000-000000000001"
	api = "?api-version=2020-11-01"
	// rgAPI is a version of the resources API (resource groups and their lists).
	rgAPI = "?api-version=2021-04-01"
	rgID  = sub + "/resourceGroups/rg1"
)

// fakeCredential hands out a token that the emulator accepts without checking.
type fakeCredential struct{}

func (fakeCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "fake-token", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// client talks to a running emulator through azcore's pipeline.
type client struct {
	t    testing.TB
	run  *Running
	pl   runtime.Pipeline
	base string
}

// start serves an emulator over HTTPS; retries are off unless retry is set,
// so that tests see faults as ARM sends them.
func start(t testing.TB, opts Options, retry bool) *client {
	t.Helper()
	run, err := Start(context.Background(), opts, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	return newClient(t, run, retry)
}

func newClient(t testing.TB, run *Running, retry bool) *client {
	ro := policy.RetryOptions{MaxRetries: -1}
	if retry {
		ro = policy.RetryOptions{MaxRetries: 8, RetryDelay: 10 * time.Millisecond, MaxRetryDelay: 2 * time.Second}
	}
	bearer := runtime.NewBearerTokenPolicy(fakeCredential{}, []string{"https://management.azure.com/.default"},
		&policy.BearerTokenOptions{InsecureAllowCredentialWithHTTP: true})
	pl := runtime.NewPipeline("azk-emulator-test", "v0", runtime.PipelineOptions{PerRetry: []policy.Policy{bearer}},
		&policy.ClientOptions{Transport: run.HTTPClient(), Retry: ro})
	return &client{t: t, run: run, pl: pl, base: run.URL}
}

// do sends one request; body may be nil, a string (sent raw) or a value (sent as JSON).
func (c *client) do(method, path string, body any, headers ...string) (*http.Response, map[string]any) {
	c.t.Helper()
	resp := c.send(method, path, body, headers...)
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	var m map[string]any
	if len(data) > 0 {
		if err := json.Unmarshal(data, &m); err != nil {
			c.t.Fatalf("%s %s: body is not JSON: %q", method, path, data)
		}
	}
	return resp, m
}

func (c *client) send(method, path string, body any, headers ...string) *http.Response {
	c.t.Helper()
	url := path
	if !strings.HasPrefix(path, "http") {
		url = c.base + path
	}
	req, err := runtime.NewRequest(context.Background(), method, url)
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Raw().Header.Set(headers[i], headers[i+1])
	}
	switch b := body.(type) {
	case nil:
	case string:
		if err := req.SetBody(streaming(b), "application/json"); err != nil {
			c.t.Fatal(err)
		}
	default:
		if err := runtime.MarshalAsJSON(req, b); err != nil {
			c.t.Fatal(err)
		}
	}
	resp, err := c.pl.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// apiFor is the api-version query for an ARM path: 2020-11-01 (api) where
// the type serves it, else the newest version the registry knows for the type.
func apiFor(path string) string {
	t, _ := armpath.Parse(path)
	arm := armcore.ARMType(t.Type)
	if arm == nil || len(arm.APIVersions) == 0 || slices.Contains(arm.APIVersions, "2020-11-01") {
		return api
	}
	return "?api-version=" + arm.APIVersions[len(arm.APIVersions)-1]
}

// mustStatus fails unless resp has the status.
func mustStatus(t testing.TB, resp *http.Response, body map[string]any, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d; body %v", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, body)
	}
}

func errorCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

func provisioningState(body map[string]any) string {
	p, _ := body["properties"].(map[string]any)
	s, _ := p["provisioningState"].(string)
	return s
}

// pollUntilDone drives an LRO response to its end with runtime.NewPoller.
func (c *client) pollUntilDone(resp *http.Response) (map[string]any, error) {
	c.t.Helper()
	poller, err := runtime.NewPoller[map[string]any](resp, c.pl, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return poller.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: 20 * time.Millisecond})
}

func (c *client) mustPut(path string, body any) map[string]any {
	c.t.Helper()
	resp := c.send(http.MethodPut, path+apiFor(path), body)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusAccepted {
		data, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("PUT %s: %d %s", path, resp.StatusCode, data)
	}
	out, err := c.pollUntilDone(resp)
	if err != nil {
		c.t.Fatalf("PUT %s: %v", path, err)
	}
	return out
}

type readSeekNopCloser struct{ *strings.Reader }

func (readSeekNopCloser) Close() error { return nil }

func streaming(s string) io.ReadSeekCloser { return readSeekNopCloser{strings.NewReader(s)} }
