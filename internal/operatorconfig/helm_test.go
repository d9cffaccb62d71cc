package operatorconfig

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"

	"github.com/azkcli/azk/internal/corpus"
)

// The values are checked with the operator's own chart, rendered by Helm's
// engine as helm install renders it (no cluster): what the controller gets
// is what the chart makes of them, not what the values file seems to say.

// renderChart renders the corpus chart with values as the install line does
// (release aso2 in ReleaseNamespace); it skips the test when the corpus is
// absent.
func renderChart(t *testing.T, values string) (*rendered, error) {
	t.Helper()
	ch, err := loader.Load(filepath.Join(corpus.Dir(t), "operator", "chart"))
	if err != nil {
		t.Fatal(err)
	}
	vals, err := chartutil.ReadValues([]byte(values))
	if err != nil {
		t.Fatalf("the values are not YAML Helm reads: %v\n%s", err, values)
	}
	top, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "aso2", Namespace: ReleaseNamespace, IsInstall: true}, nil)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, top)
	if err != nil {
		return nil, err
	}
	r := &rendered{}
	for name, text := range files {
		for _, doc := range strings.Split(text, "\n---") {
			var o object
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			r.objects = append(r.objects, o)
		}
	}
	return r, nil
}

type rendered struct{ objects []object }

// object holds the fields of the rendered Deployment, Secret and
// ServiceAccount the tests read.
type object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
	Spec struct {
		Template struct {
			Spec struct {
				ServiceAccountName string      `json:"serviceAccountName"`
				Containers         []container `json:"containers"`
				Volumes            []struct {
					Name      string `json:"name"`
					Projected *struct {
						Sources []struct {
							ServiceAccountToken *struct {
								Audience string `json:"audience"`
								Path     string `json:"path"`
							} `json:"serviceAccountToken"`
						} `json:"sources"`
					} `json:"projected"`
				} `json:"volumes"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

type container struct {
	Name string   `json:"name"`
	Args []string `json:"args"`
	Env  []struct {
		Name      string `json:"name"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name string `json:"name"`
				Key  string `json:"key"`
			} `json:"secretKeyRef"`
		} `json:"valueFrom"`
	} `json:"env"`
}

func (r *rendered) find(t *testing.T, kind, name string) object {
	t.Helper()
	for _, o := range r.objects {
		if o.Kind == kind && o.Metadata.Name == name {
			return o
		}
	}
	t.Fatalf("the chart rendered no %s %s", kind, name)
	return object{}
}

func managerOf(t *testing.T, d object) container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "manager" {
			return c
		}
	}
	t.Fatal("the controller Deployment has no manager container")
	return container{}
}

// checkController checks that the rendered controller Deployment runs with the
// crdPattern and reads each of want's settings from the global credential
// Secret, which holds it; and that it signs in by workload identity as the
// values' federated credential says: the chart's service account, in the
// release namespace, with the token audience.
func checkController(t *testing.T, r *rendered, values, crdPattern string, want map[string]string) {
	t.Helper()
	d := r.find(t, "Deployment", "azureserviceoperator-controller-manager")
	manager := managerOf(t, d)
	if !slices.Contains(manager.Args, "--crd-pattern="+crdPattern) {
		t.Errorf("the manager's args lack --crd-pattern=%s: %q", crdPattern, manager.Args)
	}
	secret := r.find(t, "Secret", GlobalCredential)
	if secret.Metadata.Namespace != ReleaseNamespace {
		t.Errorf("Secret %s is in %q, not the release namespace", GlobalCredential, secret.Metadata.Namespace)
	}
	for key, value := range want {
		found := false
		for _, e := range manager.Env {
			if e.Name == key && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil &&
				e.ValueFrom.SecretKeyRef.Name == GlobalCredential && e.ValueFrom.SecretKeyRef.Key == key {
				found = true
			}
		}
		if !found {
			t.Errorf("the manager does not read %s from Secret %s", key, GlobalCredential)
		}
		got, err := base64.StdEncoding.DecodeString(secret.Data[key])
		if err != nil || string(got) != value {
			t.Errorf("Secret %s holds %s = %q (%v), want %q", GlobalCredential, key, got, err, value)
		}
	}
	for _, key := range []string{"AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE"} {
		if _, ok := secret.Data[key]; ok {
			t.Errorf("Secret %s holds %s: workload identity needs no secret", GlobalCredential, key)
		}
	}
	if got := d.Spec.Template.Spec.ServiceAccountName; got != ServiceAccount {
		t.Errorf("the controller runs as service account %q, not %q", got, ServiceAccount)
	}
	if sa := r.find(t, "ServiceAccount", ServiceAccount); sa.Metadata.Namespace != ReleaseNamespace {
		t.Errorf("ServiceAccount %s is in %q", ServiceAccount, sa.Metadata.Namespace)
	}
	audience := ""
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.ServiceAccountToken != nil {
					audience = s.ServiceAccountToken.Audience
				}
			}
		}
	}
	if audience != TokenAudience {
		t.Errorf("the projected token's audience is %q, not %q", audience, TokenAudience)
	}
	subject := "--subject system:serviceaccount:" + ReleaseNamespace + ":" + ServiceAccount + " --audiences " + TokenAudience
	if !strings.Contains(values, subject) {
		t.Errorf("the values' federated credential does not name %q:\n%s", subject, values)
	}
}

const teams = `apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  annotations:
    serviceoperator.azure.com/credential-from: team-a-identity
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: a, namespace: team-a}
spec: {location: westus2}
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: b, namespace: team-b}
spec: {location: westus2}
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata: {name: id, namespace: team-b}
spec:
  location: westus2
  owner: {name: b}
`

var known = Operator{
	Subscription: "6f1c3a52-8d0e-4b7a-9c21-3e5d7f9a0b14", SubscriptionFrom: "--subscription",
	Tenant: "0b2e4d6f-1a3c-4e5f-8a7b-9c0d1e2f3a4b", TenantFrom: "$AZURE_TENANT_ID",
	ClientID:   "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
	SyncPeriod: 90 * time.Minute,
}

func helmValues(t *testing.T, c *Config, op Operator) string {
	t.Helper()
	var b strings.Builder
	if err := c.WriteHelmValues(&b, op); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// With the subscription, tenant and client ID known, the chart renders a
// controller that signs in by workload identity as that client, against
// that subscription and tenant, with the crdPattern, the sync period and the
// manifests' namespaces.
func TestHelmValuesRenderASigningInController(t *testing.T) {
	c := Build(load(t, teams))
	values := helmValues(t, c, known)
	r, err := renderChart(t, values)
	if err != nil {
		t.Fatalf("the chart refuses the values: %v\n%s", err, values)
	}
	checkController(t, r, values, c.CRDPattern, map[string]string{
		"AZURE_SUBSCRIPTION_ID":      known.Subscription,
		"AZURE_TENANT_ID":            known.Tenant,
		"AZURE_CLIENT_ID":            known.ClientID,
		"USE_WORKLOAD_IDENTITY_AUTH": "true",
		"AZURE_SYNC_PERIOD":          "1h30m",
		"AZURE_TARGET_NAMESPACES":    "team-a,team-b",
	})
	for _, want := range []string{
		"azureSubscriptionID: \"" + known.Subscription + "\"\n",
		"# The subscription the operator acts against (from --subscription):\n",
		"# The Microsoft Entra tenant of the subscription (from $AZURE_TENANT_ID):\n",
		"azk plan --preflight --as \"$(az ad sp show --id " + known.ClientID + " --query id -o tsv)\"",
		"#   kubectl create secret generic team-a-identity -n team-a --from-literal=AZURE_SUBSCRIPTION_ID=" + known.Subscription + " --from-literal=AZURE_TENANT_ID=" + known.Tenant + " --from-literal=AZURE_CLIENT_ID=<client ID of its identity>\n",
		"#   kubectl create secret generic aso-credential -n team-b ",
	} {
		if !strings.Contains(values, want) {
			t.Errorf("values lack %q:\n%s", want, values)
		}
	}
}

// Each value azk cannot know, alone, makes Helm refuse to render the chart:
// the chart has no validation of its own, and an empty string would
// install an operator that cannot sign in.
func TestHelmValuesPlaceholderFailsTheChart(t *testing.T) {
	c := Build(load(t, teams))
	for _, missing := range []struct {
		value string
		clear func(*Operator)
	}{
		{"azureSubscriptionID", func(o *Operator) { o.Subscription, o.SubscriptionFrom = "", "" }},
		{"azureTenantID", func(o *Operator) { o.Tenant, o.TenantFrom = "", "" }},
		{"azureClientID", func(o *Operator) { o.ClientID = "" }},
	} {
		t.Run(missing.value, func(t *testing.T) {
			op := known
			missing.clear(&op)
			values := helmValues(t, c, op)
			if !strings.Contains(values, "\n"+missing.value+": {"+PlaceholderKey+": ") {
				t.Fatalf("no placeholder for %s:\n%s", missing.value, values)
			}
			_, err := renderChart(t, values)
			if err == nil || !strings.Contains(err.Error(), "wrong type for value") {
				t.Errorf("the chart rendered with %s unknown (error %v):\n%s", missing.value, err, values)
			}
		})
	}
}

// The Helm values of azk operator-config's golden files (cmd/azk, each
// compared there with what the command writes) through the chart: those
// with a placeholder are refused, the others render a controller with
// their crdPattern.
func TestHelmValuesOfTheCommandGoldens(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "cmd", "azk", "testdata", "operator-config", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden Helm values (%v)", err)
	}
	complete := 0
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		values := string(raw)
		var top struct {
			CRDPattern string `json:"crdPattern"`
		}
		if err := yaml.Unmarshal(raw, &top); err != nil || top.CRDPattern == "" {
			t.Fatalf("%s: no crdPattern (%v)", path, err)
		}
		r, err := renderChart(t, values)
		switch {
		case strings.Contains(values, "{"+PlaceholderKey+": "):
			if err == nil {
				t.Errorf("%s: the chart renders values with a placeholder", path)
			}
		case err != nil:
			t.Errorf("%s: the chart refuses the values: %v", path, err)
		default:
			complete++
			d := r.find(t, "Deployment", "azureserviceoperator-controller-manager")
			if !slices.Contains(managerOf(t, d).Args, "--crd-pattern="+top.CRDPattern) {
				t.Errorf("%s: the controller's args lack the crdPattern", path)
			}
		}
	}
	if complete == 0 {
		t.Error("no golden Helm values without a placeholder: none shows the chart accepting the command's values")
	}
}

func TestFormatSyncPeriod(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour: "1h", 90 * time.Minute: "1h30m", 15 * time.Minute: "15m", 45 * time.Second: "45s",
		time.Hour + time.Second: "1h0m1s", 2*time.Hour + 30*time.Second: "2h0m30s",
	} {
		got := FormatSyncPeriod(d)
		if got != want {
			t.Errorf("FormatSyncPeriod(%s) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(got); err != nil || back != d {
			t.Errorf("%q parses back as %s (%v), not %s", got, back, err, d)
		}
	}
}
