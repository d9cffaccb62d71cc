package deploy_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/emulator/deploy/armfunc"
)

const (
	sdkSubscription = "00000000-0000-0000-0000-000000000000"
	sdkLocation     = "westus2"
	identityType    = "Microsoft.ManagedIdentity/userAssignedIdentities"
)

type sdkCredential struct{}

func (sdkCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "templates-test", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// sdkEmulator is an emulator driven by the Go SDK's clients.
type sdkEmulator struct {
	t           *testing.T
	ctx         context.Context
	run         *emulator.Running
	groups      *armresources.ResourceGroupsClient
	deployments *armresources.DeploymentsClient
	operations  *armresources.DeploymentOperationsClient
	resources   *armresources.Client
}

func startSDK(t *testing.T, opts emulator.Options) *sdkEmulator {
	t.Helper()
	run, err := emulator.Start(context.Background(), opts, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	co := &arm.ClientOptions{ClientOptions: azcore.ClientOptions{
		Cloud: cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: run.URL, Audience: "https://management.azure.com"},
		}},
		Transport: run.HTTPClient(),
	}}
	s := &sdkEmulator{t: t, ctx: ctx, run: run}
	cred := sdkCredential{}
	if s.groups, err = armresources.NewResourceGroupsClient(sdkSubscription, cred, co); err != nil {
		t.Fatal(err)
	}
	if s.deployments, err = armresources.NewDeploymentsClient(sdkSubscription, cred, co); err != nil {
		t.Fatal(err)
	}
	if s.operations, err = armresources.NewDeploymentOperationsClient(sdkSubscription, cred, co); err != nil {
		t.Fatal(err)
	}
	if s.resources, err = armresources.NewClient(sdkSubscription, cred, co); err != nil {
		t.Fatal(err)
	}
	return s
}

var poll = &runtime.PollUntilDoneOptions{Frequency: 20 * time.Millisecond}

func (s *sdkEmulator) group(name string) string {
	s.t.Helper()
	if _, err := s.groups.CreateOrUpdate(s.ctx, name, armresources.ResourceGroup{Location: to.Ptr(sdkLocation)}, nil); err != nil {
		s.t.Fatal(err)
	}
	return "/subscriptions/" + sdkSubscription + "/resourceGroups/" + name
}

// loadTemplate reads a template of testdata/templates.
func loadTemplate(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "templates", name))
	if err != nil {
		t.Fatal(err)
	}
	var tmpl map[string]any
	if err := json.Unmarshal(data, &tmpl); err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func params(values map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range values {
		out[k] = map[string]any{"value": v}
	}
	return out
}

// deploy runs a template through the SDK's DeploymentsClient, as a client
// does: validate, then create, polled to its end; it returns the outputs.
func (s *sdkEmulator) deploy(group, name string, tmpl, parameters map[string]any) map[string]any {
	s.t.Helper()
	props := &armresources.DeploymentProperties{Mode: to.Ptr(armresources.DeploymentModeIncremental), Template: tmpl, Parameters: parameters}
	vp, err := s.deployments.BeginValidate(s.ctx, group, name, armresources.Deployment{Properties: props}, nil)
	if err == nil {
		_, err = vp.PollUntilDone(s.ctx, poll)
	}
	if err != nil {
		s.t.Fatalf("validate %s: %v", name, err)
	}
	p, err := s.deployments.BeginCreateOrUpdate(s.ctx, group, name, armresources.Deployment{Properties: props}, nil)
	if err != nil {
		s.t.Fatalf("create %s: %v", name, err)
	}
	got, err := p.PollUntilDone(s.ctx, poll)
	if err != nil {
		s.t.Fatalf("deployment %s: %v", name, err)
	}
	if *got.Properties.ProvisioningState != armresources.ProvisioningStateSucceeded {
		s.t.Fatalf("deployment %s ended %s: %+v", name, *got.Properties.ProvisioningState, got.Properties.Error)
	}
	outputs, _ := got.Properties.Outputs.(map[string]any)
	return outputs
}

// groupResources are the names (type/name) of the resources of a group.
func (s *sdkEmulator) groupResources(group string) []string {
	s.t.Helper()
	var out []string
	pager := s.resources.NewListByResourceGroupPager(group, nil)
	for pager.More() {
		page, err := pager.NextPage(s.ctx)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, r := range page.Value {
			out = append(out, *r.Type+"/"+*r.Name)
		}
	}
	sort.Strings(out)
	return out
}

func (s *sdkEmulator) get(id, apiVersion string) (armresources.GenericResource, error) {
	got, err := s.resources.GetByID(s.ctx, id, apiVersion, nil)
	return got.GenericResource, err
}

func output(t *testing.T, outputs map[string]any, name string) any {
	t.Helper()
	o, ok := outputs[name].(map[string]any)
	if !ok {
		t.Fatalf("no output %s in %v", name, outputs)
	}
	return o["value"]
}

func sameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// TestStorageAccountNamedByUniqueString deploys the storage quickstart's
// shape: the account is named "store" + uniqueString(resourceGroup().id),
// as ARM names it, and listKeys in an output reads its keys.
func TestStorageAccountNamedByUniqueString(t *testing.T) {
	s := startSDK(t, emulator.Options{})
	group := s.group("quickstart-storage")
	outputs := s.deploy("quickstart-storage", "storage", loadTemplate(t, "storage-account.json"), nil)
	want := "store" + armfunc.UniqueString(group)
	if got := output(t, outputs, "storageAccountName"); got != want {
		t.Errorf("storageAccountName = %v, want %s", got, want)
	}
	if got := output(t, outputs, "keyCount"); got != float64(2) {
		t.Errorf("keyCount (listKeys) = %v, want 2", got)
	}
	sameList(t, "resources", s.groupResources("quickstart-storage"), []string{"Microsoft.Storage/storageAccounts/" + want})
}

// TestRoleAssignmentNamedByGUID deploys the role assignment quickstart's
// shape: an identity, and a role assignment of it named guid(...) whose
// principalId reads the identity with reference().
func TestRoleAssignmentNamedByGUID(t *testing.T) {
	s := startSDK(t, emulator.Options{})
	group := s.group("quickstart-rbac")
	outputs := s.deploy("quickstart-rbac", "rbac", loadTemplate(t, "rbac-identity.json"), nil)
	name := armfunc.GUID(group, "id-app", "b24988ac-6180-42a0-ab88-20f7382dd24c")
	if got := output(t, outputs, "roleAssignmentName"); got != name {
		t.Errorf("roleAssignmentName = %v, want %s", got, name)
	}
	sameList(t, "resources", s.groupResources("quickstart-rbac"), []string{identityType + "/id-app", "Microsoft.Authorization/roleAssignments/" + name})
	identity, err := s.get(group+"/providers/"+identityType+"/id-app", "2023-01-31")
	if err != nil {
		t.Fatal(err)
	}
	assignment, err := s.get(group+"/providers/Microsoft.Authorization/roleAssignments/"+name, "2022-04-01")
	if err != nil {
		t.Fatalf("the role assignment %s: %v", name, err)
	}
	principal := identity.Properties.(map[string]any)["principalId"]
	if got := assignment.Properties.(map[string]any)["principalId"]; got != principal || principal == nil {
		t.Errorf("the assignment's principalId = %v, want the identity's %v", got, principal)
	}
}

// TestCopyLoopAndCondition deploys copy loops (a serial resource loop in
// batches of 2, a property loop of subnets from a variable loop, an output
// loop) and a condition: in dev the conditioned identity is not deployed
// and a dependency on it is dropped; in prod it is.
func TestCopyLoopAndCondition(t *testing.T) {
	s := startSDK(t, emulator.Options{LRO: []emulator.LRORule{{Type: identityType, Write: 150 * time.Millisecond}}})
	group := s.group("quickstart-loop")
	tmpl := loadTemplate(t, "loop-condition.json")
	outputs := s.deploy("quickstart-loop", "dev", tmpl, nil)
	sameList(t, "dev resources", s.groupResources("quickstart-loop"), []string{
		identityType + "/app-1", identityType + "/app-2", identityType + "/app-3", identityType + "/app-last",
		"Microsoft.Network/virtualNetworks/app-vnet",
	})
	names, _ := json.Marshal(output(t, outputs, "identityNames"))
	if string(names) != `["app-1","app-2","app-3"]` {
		t.Errorf("identityNames = %s", names)
	}
	if _, ok := outputs["prodOnlyPrincipal"]; ok {
		t.Errorf("an output whose condition is false is given: %v", outputs)
	}
	vnet, err := s.get(group+"/providers/Microsoft.Network/virtualNetworks/app-vnet", "2023-04-01")
	if err != nil {
		t.Fatal(err)
	}
	subnets, _ := json.Marshal(vnet.Properties.(map[string]any)["subnets"])
	for _, want := range []string{`"name":"snet-0"`, `"addressPrefix":"10.0.0.0/24"`, `"name":"snet-1"`, `"addressPrefix":"10.0.1.0/24"`} {
		if !strings.Contains(string(subnets), want) {
			t.Errorf("the subnets lack %s: %s", want, subnets)
		}
	}

	// Serial in batches of 2: app-3 starts once app-1 and app-2 have
	// ended; app-1 and app-2 run together; app-last waits for the loop.
	// An operation's end is its start plus its duration, which ARM gives
	// to the millisecond: a start within slack of an end is after it (each
	// write takes 150 ms, so a start that did not wait is far earlier).
	const slack = 2 * time.Millisecond
	spans := map[string][2]time.Time{}
	pager := s.operations.NewListPager("quickstart-loop", "dev", nil)
	for pager.More() {
		page, err := pager.NextPage(s.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range page.Value {
			started := *op.Properties.Timestamp
			d, _ := time.ParseDuration(strings.ToLower(strings.TrimPrefix(*op.Properties.Duration, "PT")))
			spans[*op.Properties.TargetResource.ResourceName] = [2]time.Time{started, started.Add(d)}
		}
	}
	if len(spans) != 5 {
		t.Fatalf("%d operations, want 5: %v", len(spans), spans)
	}
	for _, first := range []string{"app-1", "app-2"} {
		if spans["app-3"][0].Add(slack).Before(spans[first][1]) {
			t.Errorf("app-3 started %v, before %s ended %v: not serial in batches", spans["app-3"][0], first, spans[first][1])
		}
	}
	if !spans["app-2"][0].Before(spans["app-1"][1]) {
		t.Errorf("app-2 started %v after app-1 ended %v: the batch of 2 did not run together", spans["app-2"][0], spans["app-1"][1])
	}
	if spans["app-last"][0].Add(slack).Before(spans["app-3"][1]) {
		t.Errorf("app-last started before the loop it depends on ended")
	}

	outputs = s.deploy("quickstart-loop", "prod", tmpl, params(map[string]any{"environment": "prod", "count": 2}))
	prodOnly, err := s.get(group+"/providers/"+identityType+"/app-prod-only", "2023-01-31")
	if err != nil {
		t.Fatalf("prod deploys the conditioned identity: %v", err)
	}
	if got := output(t, outputs, "prodOnlyPrincipal"); got != prodOnly.Properties.(map[string]any)["principalId"] {
		t.Errorf("prodOnlyPrincipal = %v", got)
	}
}

// TestNestedDeployments deploys a module (an inner-scope nested
// deployment whose output the parent reads) and an outer-scope nested
// template that reads the parent's parameters and variables.
func TestNestedDeployments(t *testing.T) {
	s := startSDK(t, emulator.Options{})
	group := s.group("quickstart-module")
	outputs := s.deploy("quickstart-module", "modules", loadTemplate(t, "module.json"), nil)
	sameList(t, "resources", s.groupResources("quickstart-module"), []string{
		identityType + "/mod-inner", identityType + "/mod-outer", identityType + "/mod-after",
	})
	if got := output(t, outputs, "moduleIdentity"); got != "mod-inner" {
		t.Errorf("moduleIdentity = %v", got)
	}
	inner, err := s.get(group+"/providers/"+identityType+"/mod-inner", "2023-01-31")
	if err != nil {
		t.Fatal(err)
	}
	if got := output(t, outputs, "modulePrincipal"); got != inner.Properties.(map[string]any)["principalId"] {
		t.Errorf("modulePrincipal = %v", got)
	}
	after, err := s.get(group+"/providers/"+identityType+"/mod-after", "2023-01-31")
	if err != nil || *after.Tags["moduleIdentity"] != "mod-inner" {
		t.Errorf("mod-after's tags: %v %v", err, after.Tags)
	}
}

// TestLanguageVersion2 deploys a languageVersion 2.0 template: resources
// by symbolic name, symbolic dependsOn and reference(), an existing
// resource read and not written, a symbolic copy loop, a 2.0 module and a
// parameter of a user-defined type, which validate checks.
func TestLanguageVersion2(t *testing.T) {
	s := startSDK(t, emulator.Options{})
	group := s.group("quickstart-v2")
	// The existing identity is in another group, as Bicep's
	// existing resources with scope: resourceGroup(...) are.
	existing := s.group("quickstart-v2-other") + "/providers/" + identityType + "/id-existing"
	resp, err := s.resources.BeginCreateOrUpdateByID(s.ctx, existing, "2023-01-31", armresources.GenericResource{Location: to.Ptr(sdkLocation)}, nil)
	if err == nil {
		_, err = resp.PollUntilDone(s.ctx, poll)
	}
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.get(existing, "2023-01-31")
	if err != nil {
		t.Fatal(err)
	}
	tmpl := loadTemplate(t, "symbolic-v2.json")
	outputs := s.deploy("quickstart-v2", "v2", tmpl, params(map[string]any{"config": map[string]any{"name": "id-v2", "tier": "premium"}, "existingGroup": "quickstart-v2-other"}))
	assignmentName := armfunc.GUID(group, "id-v2", "reader")
	sameList(t, "resources", s.groupResources("quickstart-v2"), []string{
		"Microsoft.Authorization/roleAssignments/" + assignmentName, identityType + "/id-v2", identityType + "/id-v2-extra0", identityType + "/id-v2-extra1", identityType + "/id-v2-module",
	})
	identity, err := s.get(group+"/providers/"+identityType+"/id-v2", "2023-01-31")
	if err != nil {
		t.Fatal(err)
	}
	principal := identity.Properties.(map[string]any)["principalId"]
	if *identity.Tags["tier"] != "premium" || *identity.Tags["existingPrincipal"] != before.Properties.(map[string]any)["principalId"] {
		t.Errorf("id-v2's tags: %v", identity.Tags)
	}
	if got := output(t, outputs, "principalId"); got != principal {
		t.Errorf("principalId = %v, want %v", got, principal)
	}
	if got := output(t, outputs, "moduleName"); got != "id-v2-module" {
		t.Errorf("moduleName = %v", got)
	}
	if got, _ := json.Marshal(output(t, outputs, "extraNames")); string(got) != `["id-v2-extra0","id-v2-extra1"]` {
		t.Errorf("extraNames = %s", got)
	}
	assignment := group + "/providers/Microsoft.Authorization/roleAssignments/" + assignmentName
	if a, err := s.get(assignment, "2022-04-01"); err != nil || a.Properties.(map[string]any)["principalId"] != principal {
		t.Errorf("the role assignment %s: %v %v", assignment, err, a.Properties)
	}
	ops := 0
	pager := s.operations.NewListPager("quickstart-v2", "v2", nil)
	for pager.More() {
		page, err := pager.NextPage(s.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range page.Value {
			ops++
			if strings.EqualFold(*op.Properties.TargetResource.ID, existing) {
				t.Errorf("the existing resource was written: %v", *op.Properties.TargetResource.ID)
			}
		}
	}
	if ops != 5 {
		t.Errorf("%d operations, want 5 (identity, assignment, 2 extras, module)", ops)
	}

	// The user-defined type is checked: a tier it does not allow, a
	// missing required property, a property it does not declare.
	for _, bad := range []struct {
		config map[string]any
		names  string
	}{
		{map[string]any{"name": "id-x", "tier": "gold"}, "gold"},
		{map[string]any{"tier": "basic"}, "'name' is required"},
		{map[string]any{"name": "a-name-longer-than-twenty-four", "tier": "basic"}, "maximum length 24"},
	} {
		props := &armresources.DeploymentProperties{Mode: to.Ptr(armresources.DeploymentModeIncremental), Template: tmpl, Parameters: params(map[string]any{"config": bad.config})}
		_, err := s.deployments.BeginValidate(s.ctx, "quickstart-v2", "bad", armresources.Deployment{Properties: props}, nil)
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.ErrorCode != "InvalidTemplate" || !strings.Contains(err.Error(), bad.names) {
			t.Errorf("config %v: %v, want InvalidTemplate naming %q", bad.config, err, bad.names)
		}
	}
}

// TestUnsupportedFeaturesRefusedAlike: each template feature the emulator
// does not run is refused with InvalidTemplate naming it, by validate,
// what-if and create alike, and create starts nothing.
func TestUnsupportedFeaturesRefusedAlike(t *testing.T) {
	s := startSDK(t, emulator.Options{})
	s.group("refusals")
	base := func(extra map[string]any, resources ...any) map[string]any {
		tmpl := map[string]any{"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#", "contentVersion": "1.0.0.0", "resources": resources}
		for k, v := range extra {
			tmpl[k] = v
		}
		return tmpl
	}
	identity := func(name string) map[string]any {
		return map[string]any{"type": identityType, "apiVersion": "2023-01-31", "name": name, "location": sdkLocation}
	}
	child := identity("parent")
	child["resources"] = []any{map[string]any{"type": "federatedIdentityCredentials", "apiVersion": "2023-01-31", "name": "fic",
		"copy": map[string]any{"name": "fics", "count": 2}}}
	cases := []struct {
		name  string
		tmpl  map[string]any
		names string
	}{
		{"unknown-function", base(nil, map[string]any{"type": identityType, "apiVersion": "2023-01-31", "name": "[fooBar('x')]", "location": sdkLocation}), "'fooBar' is not valid"},
		{"function-not-run", base(map[string]any{"outputs": map[string]any{"who": map[string]any{"type": "object", "value": "[deployer()]"}}}, identity("a")), "'deployer' is not run"},
		{"user-function-default", base(map[string]any{"functions": []any{map[string]any{"namespace": "ns", "members": map[string]any{"f": map[string]any{
			"parameters": []any{map[string]any{"name": "p", "type": "string", "defaultValue": "x"}}, "output": map[string]any{"type": "string", "value": "[parameters('p')]"}}}}}}, identity("a")),
			"has a default value"},
		{"undeclared-user-function", base(nil, map[string]any{"type": identityType, "apiVersion": "2023-01-31", "name": "[ns.missing('x')]", "location": sdkLocation}), "'ns.missing' is not valid"},
		{"unknown-member", base(map[string]any{"imaginary": true}, identity("a")), "member 'imaginary'"},
		{"child-resource-loop", base(nil, child), "has a copy loop"},
		{"template-spec", base(nil, map[string]any{"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "linked",
			"properties": map[string]any{"mode": "Incremental", "templateLink": map[string]any{"id": "/subscriptions/" + sdkSubscription + "/resourceGroups/refusals/providers/Microsoft.Resources/templateSpecs/spec/versions/1.0"}}}), "templateLink"},
		{"language-version", base(map[string]any{"languageVersion": "3.0"}, identity("a")), "languageVersion '3.0'"},
		{"existing-in-1.0", base(nil, map[string]any{"type": identityType, "apiVersion": "2023-01-31", "name": "x", "existing": true}), "needs languageVersion 2.0"},
		{"new-guid-outside-defaults", base(nil, map[string]any{"type": identityType, "apiVersion": "2023-01-31", "name": "[newGuid()]", "location": sdkLocation}), "'newGuid' is not expected at this location"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			props := &armresources.DeploymentProperties{Mode: to.Ptr(armresources.DeploymentModeIncremental), Template: c.tmpl}
			check := func(verb string, err error) {
				t.Helper()
				var re *azcore.ResponseError
				if !errors.As(err, &re) || re.ErrorCode != "InvalidTemplate" || !strings.Contains(err.Error(), c.names) {
					t.Errorf("%s: %v, want InvalidTemplate naming %q", verb, err, c.names)
				}
			}
			_, err := s.deployments.BeginValidate(s.ctx, "refusals", c.name, armresources.Deployment{Properties: props}, nil)
			check("validate", err)
			_, err = s.deployments.BeginWhatIf(s.ctx, "refusals", c.name, armresources.DeploymentWhatIf{Properties: &armresources.DeploymentWhatIfProperties{
				Mode: to.Ptr(armresources.DeploymentModeIncremental), Template: c.tmpl}}, nil)
			check("what-if", err)
			_, err = s.deployments.BeginCreateOrUpdate(s.ctx, "refusals", c.name, armresources.Deployment{Properties: props}, nil)
			check("create", err)
			if _, err := s.deployments.Get(s.ctx, "refusals", c.name, nil); err == nil {
				t.Errorf("create started the deployment %s", c.name)
			}
		})
	}
	sameList(t, "resources", s.groupResources("refusals"), nil)
}

// TestChildResources deploys child resources declared inside their parent
// (the older quickstarts' shape), with relative and full types, a
// grandchild, and a child of each copy instance of its parent: each lands
// at its full ID.
func TestChildResources(t *testing.T) {
	s := startSDK(t, emulator.Options{})
	group := s.group("quickstart-children")
	s.deploy("quickstart-children", "children", loadTemplate(t, "child-resources.json"), nil)
	account := "child" + armfunc.UniqueString(group)
	for _, id := range []string{
		"/providers/Microsoft.Storage/storageAccounts/" + account + "/blobServices/default",
		"/providers/Microsoft.Storage/storageAccounts/" + account + "/blobServices/default/containers/data",
		"/providers/Microsoft.Network/virtualNetworks/vnet-0/subnets/web",
		"/providers/Microsoft.Network/virtualNetworks/vnet-1/subnets/web",
		"/providers/Microsoft.Network/virtualNetworks/vnet-0/subnets/data",
	} {
		if _, err := s.get(group+id, "2023-04-01"); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	if _, err := s.get(group+"/providers/Microsoft.Network/virtualNetworks/vnet-1/subnets/data", "2023-04-01"); err == nil {
		t.Errorf("vnet-1/data was deployed, though its condition is false")
	}
}

// TestSerialLoopSkipsConditionedInstances: a serial loop whose condition
// leaves an instance out runs the others in batches of what is deployed;
// none waits for the one left out (which would leave it never started).
func TestSerialLoopSkipsConditionedInstances(t *testing.T) {
	s := startSDK(t, emulator.Options{})
	s.group("serial-condition")
	tmpl := map[string]any{
		"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#", "contentVersion": "1.0.0.0",
		"resources": []any{map[string]any{
			"type": identityType, "apiVersion": "2023-01-31", "name": "[format('serial-{0}', copyIndex())]", "location": sdkLocation,
			"condition": "[not(equals(copyIndex(), 0))]",
			"copy":      map[string]any{"name": "ids", "count": 3, "mode": "serial", "batchSize": 1},
		}},
	}
	s.deploy("serial-condition", "serial", tmpl, nil)
	sameList(t, "resources", s.groupResources("serial-condition"), []string{identityType + "/serial-1", identityType + "/serial-2"})
}

// TestUserDefinedFunctions deploys a template with user-defined functions
// (as Bicep emits them, in the "__bicep" namespace), one calling another:
// the identity is named by them.
func TestUserDefinedFunctions(t *testing.T) {
	s := startSDK(t, emulator.Options{})
	s.group("user-functions")
	tmpl := map[string]any{
		"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#", "contentVersion": "1.0.0.0",
		"functions": []any{map[string]any{"namespace": "__bicep", "members": map[string]any{
			"suffixed": map[string]any{
				"parameters": []any{map[string]any{"name": "base", "type": "string"}, map[string]any{"name": "n", "type": "int"}},
				"output":     map[string]any{"type": "string", "value": "[format('{0}-{1}', parameters('base'), parameters('n'))]"}},
			"identityName": map[string]any{
				"parameters": []any{map[string]any{"name": "app", "type": "string"}},
				"output":     map[string]any{"type": "string", "value": "[__bicep.suffixed(toLower(parameters('app')), 7)]"}},
		}}},
		"parameters": map[string]any{"app": map[string]any{"type": "string", "defaultValue": "Web"}},
		"resources":  []any{map[string]any{"type": identityType, "apiVersion": "2023-01-31", "name": "[__bicep.identityName(parameters('app'))]", "location": sdkLocation}},
		"outputs":    map[string]any{"name": map[string]any{"type": "string", "value": "[__bicep.identityName('Api')]"}},
	}
	outputs := s.deploy("user-functions", "udf", tmpl, nil)
	sameList(t, "resources", s.groupResources("user-functions"), []string{identityType + "/web-7"})
	if got := output(t, outputs, "name"); got != "api-7" {
		t.Errorf("output name = %v, want api-7", got)
	}
}
