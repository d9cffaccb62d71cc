package expression_test

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/expression"
	"github.com/azkcli/azk/internal/registry"
)

func identityKind(t *testing.T) *registry.Kind {
	t.Helper()
	k, ok := registry.Default().Lookup("managedidentity.azure.com", "v1api20230131", "UserAssignedIdentity")
	if !ok {
		t.Fatal("UserAssignedIdentity not in the registry")
	}
	return k
}

func identity() map[string]any {
	return map[string]any{
		"apiVersion": "managedidentity.azure.com/v1api20230131",
		"kind":       "UserAssignedIdentity",
		"metadata":   map[string]any{"name": "app", "namespace": "default", "labels": map[string]any{"team": "a"}},
		"spec":       map[string]any{"azureName": "app-identity", "location": "westus2", "tags": map[string]any{"env": "dev"}},
		"status": map[string]any{
			"principalId": "1111", "clientId": "2222", "tenantId": "3333",
			"id": "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app-identity",
		},
	}
}

func TestEvaluate(t *testing.T) {
	k := identityKind(t)
	tests := []struct {
		expr, want string
		status     bool
	}{
		{`self.status.principalId`, "1111", true},
		{`self.spec.azureName + "." + self.metadata.namespace`, "app-identity.default", false},
		{`self.spec.location.upperAscii()`, "WESTUS2", false},
		{`has(self.spec.tags) ? self.spec.tags["env"] : "none"`, "dev", false},
		{`aso.parseResourceId(self.status.id).resourceGroupName`, "rg", true},
		{`string(size(self.metadata.labels))`, "1", false},
		{`self.metadata.labels.exists(k, k == "team") ? "yes" : "no"`, "yes", false},
	}
	for _, tc := range tests {
		p, err := expression.Compile(k, tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if p.ReadsStatus != tc.status {
			t.Errorf("%s: ReadsStatus %v, want %v", tc.expr, p.ReadsStatus, tc.status)
		}
		got, _, err := p.Eval(identity(), nil)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.expr, got, err, tc.want)
		}
	}
}

func TestEvaluateMap(t *testing.T) {
	p, err := expression.Compile(identityKind(t), `{"principal": self.status.principalId, "client": self.status.clientId}`)
	if err != nil {
		t.Fatal(err)
	}
	_, m, err := p.Eval(identity(), nil)
	if err != nil || p.Output != expression.Map || m["principal"] != "1111" || m["client"] != "2222" {
		t.Fatalf("got %v, %v (output %v)", m, err, p.Output)
	}
}

func TestSecretKeys(t *testing.T) {
	p, err := expression.Compile(identityKind(t), `secret.key1 + ";" + secret["key2"]`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Secrets, ",") != "key1,key2" && strings.Join(p.Secrets, ",") != "key2,key1" {
		t.Errorf("secrets read = %v", p.Secrets)
	}
	got, _, err := p.Eval(identity(), map[string]string{"key1": "a", "key2": "b"})
	if err != nil || got != "a;b" {
		t.Errorf("got %q, %v", got, err)
	}
}

// TestCompileErrors: what the operator's webhook refuses.
func TestCompileErrors(t *testing.T) {
	k := identityKind(t)
	for expr, want := range map[string]string{
		`self.status.principalID`:   "undefined field 'principalID'",
		`self.spec.location == "x"`: "must return one of [string, map(string, string)], but returns bool",
		`self.status.principalId +`: "Syntax error",
		`unknown.value`:             "undeclared reference to 'unknown'",
	} {
		_, err := expression.Compile(k, expr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to say %q", expr, err, want)
		}
	}
}
