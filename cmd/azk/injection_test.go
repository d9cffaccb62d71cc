package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
)

// requestLog is a reverse proxy in front of the emulator that keeps the path
// and query of every request azk sends.
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *requestLog) front(t *testing.T, target string) string {
	return proxyTo(t, target, func(_ http.ResponseWriter, r *http.Request) bool {
		l.mu.Lock()
		l.seen = append(l.seen, r.Method+" "+r.URL.RequestURI())
		l.mu.Unlock()
		return false
	})
}

// proxyTo serves a reverse proxy to target for one test; intercept sees each
// request first and answers it itself when it returns true.
func proxyTo(t *testing.T, target string, intercept func(http.ResponseWriter, *http.Request) bool) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !intercept(w, r) {
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// TestARMIDInjectionReachesNoVictim reproduces issue 12's attack end to end:
// an owner armId ending in "?api-version=2020-06-01&x=" made plan read, and
// apply overwrite, the resource group it named instead of the network. Now
// the manifest is refused with file, line and field, and no request names the
// victim; its tags are intact. The same for a credential Secret's subscription.
func TestARMIDInjectionReachesNoVictim(t *testing.T) {
	run, _ := emulatorAt(t)
	victim := "/subscriptions/" + emulatorSubscription + "/resourceGroups/victim-rg"
	client, err := arm.New(arm.Options{Credential: arm.EmulatorCredential, Subscription: emulatorSubscription, Endpoint: run.URL, AllowHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	op, err := client.Put(ctx, victim, "2020-06-01", map[string]any{"location": "westus2", "tags": map[string]any{"owner": "someone else"}})
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}

	network := `apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet1
spec:
  location: westus2
  owner:
    armId: ` + victim + `?api-version=2020-06-01&x=
  addressSpace:
    addressPrefixes: [10.0.0.0/16]
`
	credential := `apiVersion: v1
kind: Secret
metadata:
  name: other
stringData:
  AZURE_SUBSCRIPTION_ID: "` + emulatorSubscription + `/resourceGroups/victim-rg?api-version=2020-06-01&x="
  AZURE_TENANT_ID: t
  AZURE_CLIENT_ID: c
  AZURE_CLIENT_SECRET: s
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg1
  annotations:
    serviceoperator.azure.com/credential-from: other
spec:
  location: westus2
`
	for _, tc := range []struct {
		name, manifest, want string
	}{
		{"owner armId", network, `in.yaml:8: network.azure.com/VirtualNetwork/default/vnet1: spec.owner.armId: armId: ARM ID "` + victim + `?api-version=2020-06-01&x=": resource group name "victim-rg?api-version=2020-06-01&x=" may hold only`},
		{"credential subscription", credential, `in.yaml:6: v1/Secret/default/other: AZURE_SUBSCRIPTION_ID: is not a subscription ID (a GUID)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(tc.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			log := &requestLog{}
			endpoint := log.front(t, run.URL)
			for _, cmd := range []string{"plan", "apply"} {
				args := []string{cmd, file, "--endpoint", endpoint, "--insecure-http", "--subscription", emulatorSubscription}
				if cmd == "apply" {
					args = append(args, "--auto-approve")
				}
				_, errOut, code := azk(t, "", args...)
				if code != 1 {
					t.Errorf("%s exited %d", cmd, code)
				}
				mustContain(t, cmd+" stderr", errOut, tc.want)
			}
			for _, r := range log.all() {
				if strings.Contains(r, "victim") {
					t.Errorf("a request reached the victim: %s", r)
				}
			}
		})
	}
	resp, err := client.Get(ctx, victim, "2020-06-01")
	if err != nil || !strings.Contains(string(resp.Body), `"owner":"someone else"`) {
		t.Errorf("the victim changed: %v %s", err, resp.Body)
	}
}
