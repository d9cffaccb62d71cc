package exported_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/exported"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

const subscription = "00000000-0000-0000-0000-000000000000"

// exporters are resources of the kinds whose secrets the examples and the
// real-world stacks read, each exporting every secret its kind has.
const exporters = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg
spec:
  location: westus2
---
apiVersion: cache.azure.com/v1api20230801
kind: Redis
metadata:
  name: cache1
spec:
  location: westus2
  owner:
    name: rg
  sku:
    name: Basic
    family: C
    capacity: 0
  operatorSpec:
    secrets:
      primaryKey: {name: cache1-secrets, key: primaryKey}
      secondaryKey: {name: cache1-secrets, key: secondaryKey}
    secretExpressions:
      - name: cache1-secrets
        key: url
        value: '"rediss://:" + secret.primaryKey + "@" + self.status.hostName + ":" + string(self.status.sslPort)'
---
apiVersion: documentdb.azure.com/v1api20231115
kind: DatabaseAccount
metadata:
  name: cosmos1
spec:
  location: westus2
  owner:
    name: rg
  databaseAccountOfferType: Standard
  locations:
    - locationName: westus2
  operatorSpec:
    secrets:
      primaryMasterKey: {name: cosmos1-secrets, key: key}
      primaryReadonlyMasterKey: {name: cosmos1-secrets, key: readonly}
---
apiVersion: eventhub.azure.com/v1api20211101
kind: Namespace
metadata:
  name: eventhubs01
spec:
  location: westus2
  owner:
    name: rg
  operatorSpec:
    secrets:
      primaryConnectionString: {name: eventhubs01-secrets, key: connection}
---
apiVersion: servicebus.azure.com/v1api20221001preview
kind: Namespace
metadata:
  name: servicebus01
spec:
  location: westus2
  owner:
    name: rg
  sku:
    name: Standard
  operatorSpec:
    secrets:
      primaryConnectionString: {name: servicebus01-secrets, key: connection}
---
apiVersion: operationalinsights.azure.com/v1api20210601
kind: Workspace
metadata:
  name: logs1
spec:
  location: westus2
  owner:
    name: rg
  operatorSpec:
    secrets:
      primarySharedKey: {name: logs1-secrets, key: key}
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id1
spec:
  location: westus2
  owner:
    name: rg
  operatorSpec:
    secrets:
      clientId: {name: id1-secrets, key: clientId}
      subscriptionId: {name: id1-secrets, key: subscription}
    configMaps:
      principalId: {name: id1-config, key: principalId}
`

// TestEmulatorAnswersEveryExporter: against the emulator, each kind's
// exporter finds every secret it is asked for, and hands the keys (not
// the IDs any GET shows) to the redaction.
func TestEmulatorAnswersEveryExporter(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := emulator.Start(ctx, emulator.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	client, err := arm.New(arm.Options{Credential: arm.EmulatorCredential, Subscription: subscription, Endpoint: run.URL, AllowHTTP: true, PollFrequency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "exporters.yaml")
	if err := os.WriteFile(file, []byte(exporters), 0o644); err != nil {
		t.Fatal(err)
	}
	res, diags := loader.Load(loader.Options{Paths: []string{file}})
	g, more := graph.Build(res, graph.Options{Subscription: subscription})
	if err := append(diags, more...).Err(); err != nil {
		t.Fatal(err)
	}
	for _, n := range g.Nodes {
		req, diags := convert.Convert(g, n, convert.Sources{})
		if diags.HasErrors() {
			t.Fatal(diags.Err())
		}
		body, err := convert.MarshalRequest(req.Body)
		if err != nil {
			t.Fatal(err)
		}
		op, err := client.Put(ctx, n.ID, n.Kind.APIVersion, json(body))
		if err == nil {
			_, err = op.Wait(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var redacted []string
	f := exported.New(exported.Options{Client: client, Redact: func(v ...string) { redacted = append(redacted, v...) }})
	for _, n := range g.Nodes {
		objs, err := f.Secrets(ctx, n)
		if err != nil {
			t.Errorf("%s: %v", n.Address(), err)
			continue
		}
		for _, e := range n.SecretExports {
			i := slices.IndexFunc(objs, func(o exported.Object) bool { return o.Name == e.Secret })
			if i < 0 || objs[i].Data[e.Key] == "" || objs[i].Kind != "Secret" || objs[i].Namespace != "default" {
				t.Errorf("%s: no value for %s key %s: %+v", n.Address(), e.Secret, e.Key, objs)
			}
		}
	}
	url := secretValue(t, f, g, "cache1", "cache1-secrets", "url")
	if !strings.HasPrefix(url, "rediss://:") || !strings.HasSuffix(url, "@cache1.redis.cache.windows.net:6380") {
		t.Errorf("redis URL %q", url)
	}
	for _, v := range []string{url, secretValue(t, f, g, "cache1", "cache1-secrets", "primaryKey"), secretValue(t, f, g, "eventhubs01", "eventhubs01-secrets", "connection")} {
		if !slices.Contains(redacted, v) {
			t.Errorf("%q was not handed to the redaction", v)
		}
	}
	if sub := secretValue(t, f, g, "id1", "id1-secrets", "subscription"); sub != subscription || slices.Contains(redacted, sub) {
		t.Errorf("identity subscription %q (redacted: %v)", sub, slices.Contains(redacted, sub))
	}
	var id *graph.Node
	for _, n := range g.Nodes {
		if n.Object.Name == "id1" {
			id = n
		}
	}
	cms, err := f.ConfigMaps(ctx, id)
	if err != nil || len(cms) != 1 || cms[0].Name != "id1-config" || len(cms[0].Data["principalId"]) != 36 {
		t.Errorf("config maps %+v %v", cms, err)
	}
}

func secretValue(t *testing.T, f *exported.Fetcher, g *graph.Graph, resource, secret, key string) string {
	t.Helper()
	for _, n := range g.Nodes {
		if n.Object.Name == resource {
			data, ok, err := f.Secret(context.Background(), n, secret)
			if err != nil || !ok {
				t.Fatalf("%s: %v %v", resource, ok, err)
			}
			return data[key]
		}
	}
	t.Fatalf("no resource %s", resource)
	return ""
}

type json []byte

func (j json) MarshalJSON() ([]byte, error) { return j, nil }
