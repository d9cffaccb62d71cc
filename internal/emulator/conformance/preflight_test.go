package conformance_test

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/keyvault/armkeyvault"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/policyinsights/armpolicyinsights"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armpolicy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"

	"github.com/azkcli/azk/internal/emulator/providers"
)

const otherSubscription = "00000000-0000-0000-0000-000000000002"

// TestPreflightConformance drives the APIs azk's pre-flight asks with the
// SDK's own clients: provider registration, name checks, permissions and
// role assignments, Azure Policy, usages and resource SKUs, and deployment
// validation.
func TestPreflightConformance(t *testing.T) {
	s := newSuite(t)
	cred := fakeCredential{}
	ctx := s.ctx
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	groups, err := armresources.NewResourceGroupsClient(subscription, cred, s.opts)
	must(err)
	_, err = groups.CreateOrUpdate(ctx, rg, armresources.ResourceGroup{Location: to.Ptr(location)}, nil)
	must(err)
	provs, err := armresources.NewProvidersClient(subscription, cred, s.opts)
	must(err)
	// The SDK registers a provider itself when ARM answers
	// MissingSubscriptionRegistration: off, to see the answer.
	noRegistration := *s.opts
	noRegistration.DisableRPRegistration = true
	storage, err := armstorage.NewAccountsClient(subscription, cred, &noRegistration)
	must(err)
	account := armstorage.AccountCreateParameters{Location: to.Ptr(location), Kind: to.Ptr(armstorage.KindStorageV2), SKU: &armstorage.SKU{Name: to.Ptr(armstorage.SKUNameStandardLRS)}}
	admin := s.run.AdminClient()

	s.check(t, "providers/get-register-list", func(t *testing.T) {
		p, err := provs.Get(ctx, "Microsoft.Storage", nil)
		if err != nil || *p.RegistrationState != "Registered" {
			t.Fatalf("get: %v %v", err, p.RegistrationState)
		}
		found := false
		for _, rt := range p.ResourceTypes {
			found = found || strings.EqualFold(*rt.ResourceType, "storageAccounts") && len(rt.Locations) > 0 && len(rt.APIVersions) > 0
		}
		if !found {
			t.Fatal("storageAccounts is not among the resource types, with locations and api-versions")
		}
		if p, err := provs.Unregister(ctx, "Microsoft.Storage", nil); err != nil || *p.RegistrationState != "Unregistered" {
			t.Fatalf("unregister: %v", err)
		}
		poller, err := storage.BeginCreate(ctx, rg, "unregistered1", account, nil)
		if err == nil {
			_, err = poller.PollUntilDone(ctx, frequency)
		}
		if armCode(err) != "MissingSubscriptionRegistration" {
			t.Fatalf("a write of an unregistered provider's type: %v", err)
		}
		if _, err := provs.Register(ctx, "Microsoft.Storage", nil); err != nil {
			t.Fatal(err)
		}
		pager := provs.NewListPager(nil)
		registered := false
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range page.Value {
				registered = registered || *p.Namespace == "Microsoft.Storage" && *p.RegistrationState == "Registered"
			}
		}
		if !registered {
			t.Fatal("Microsoft.Storage is not listed as registered again")
		}
	})
	s.check(t, "providers/location-not-offered", func(t *testing.T) {
		must(admin.SetOfferings(ctx, []providers.Offering{{Type: "Microsoft.Storage/storageAccounts", Locations: []string{"East US"}}}))
		defer func() { must(admin.SetOfferings(ctx, nil)) }()
		poller, err := storage.BeginCreate(ctx, rg, "westonly1", account, nil)
		if err == nil {
			_, err = poller.PollUntilDone(ctx, frequency)
		}
		if armCode(err) != "LocationNotAvailableForResourceType" {
			t.Fatalf("a write where the type is not offered: %v", err)
		}
	})
	s.check(t, "names/storage", func(t *testing.T) {
		other, err := armstorage.NewAccountsClient(otherSubscription, cred, s.opts)
		must(err)
		og, err := armresources.NewResourceGroupsClient(otherSubscription, cred, s.opts)
		must(err)
		_, err = og.CreateOrUpdate(ctx, "other", armresources.ResourceGroup{Location: to.Ptr(location)}, nil)
		must(err)
		poller, err := other.BeginCreate(ctx, "other", "takenelsewhere", account, nil)
		must(err)
		_, err = poller.PollUntilDone(ctx, frequency)
		must(err)
		ask := func(name string) armstorage.CheckNameAvailabilityResult {
			res, err := storage.CheckNameAvailability(ctx, armstorage.AccountCheckNameAvailabilityParameters{Name: to.Ptr(name), Type: to.Ptr("Microsoft.Storage/storageAccounts")}, nil)
			must(err)
			return res.CheckNameAvailabilityResult
		}
		if r := ask("freename1"); !*r.NameAvailable {
			t.Fatal("a free name is not available")
		}
		if r := ask("takenelsewhere"); *r.NameAvailable || *r.Reason != armstorage.ReasonAlreadyExists {
			t.Fatalf("a name another subscription holds: %+v", r)
		}
		_, err = storage.BeginCreate(ctx, rg, "takenelsewhere", account, nil)
		if armCode(err) != "StorageAccountAlreadyTaken" {
			t.Fatalf("creating a name another subscription holds: %v", err)
		}
	})
	s.check(t, "names/keyvault-seeded", func(t *testing.T) {
		must(admin.SetTakenNames(ctx, []providers.TakenName{{Type: "Microsoft.KeyVault/vaults", Name: "someones-vault"}}))
		defer func() { must(admin.SetTakenNames(ctx, nil)) }()
		vaults, err := armkeyvault.NewVaultsClient(subscription, cred, s.opts)
		must(err)
		res, err := vaults.CheckNameAvailability(ctx, armkeyvault.VaultCheckNameAvailabilityParameters{Name: to.Ptr("someones-vault"), Type: to.Ptr("Microsoft.KeyVault/vaults")}, nil)
		must(err)
		if *res.NameAvailable || *res.Reason != armkeyvault.ReasonAlreadyExists {
			t.Fatalf("a name taken outside the emulator: %+v", res.CheckNameAvailabilityResult)
		}
	})
	rgScope := "/subscriptions/" + subscription + "/resourceGroups/" + rg
	s.check(t, "authorization/permissions-and-assignments", func(t *testing.T) {
		perms, err := armauthorization.NewPermissionsClient(subscription, cred, s.opts)
		must(err)
		pager := perms.NewListForResourceGroupPager(rg, nil)
		page, err := pager.NextPage(ctx)
		must(err)
		if len(page.Value) != 1 || *page.Value[0].Actions[0] != "*" {
			t.Fatalf("the default caller's permissions on a fresh emulator: %+v", page.Value)
		}
		assignments, err := armauthorization.NewRoleAssignmentsClient(subscription, cred, s.opts)
		must(err)
		reader := "/subscriptions/" + subscription + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
		_, err = assignments.Create(ctx, rgScope, "0b0b0b0b-0000-4000-8000-000000000001", armauthorization.RoleAssignmentCreateParameters{
			Properties: &armauthorization.RoleAssignmentProperties{RoleDefinitionID: to.Ptr(reader), PrincipalID: to.Ptr(providers.DefaultPrincipal)},
		}, nil)
		must(err)
		page, err = perms.NewListForResourceGroupPager(rg, nil).NextPage(ctx)
		must(err)
		if len(page.Value) != 1 || *page.Value[0].Actions[0] != "*/read" {
			t.Fatalf("once named by an assignment, the caller has what it gives: %+v", page.Value)
		}
		// The SDK sends $filter as given (the spec says not to encode it): spaces as %20.
		filter := "principalId%20eq%20'" + providers.DefaultPrincipal + "'"
		list, err := assignments.NewListForSubscriptionPager(&armauthorization.RoleAssignmentsClientListForSubscriptionOptions{Filter: &filter}).NextPage(ctx)
		must(err)
		if len(list.Value) != 1 || !strings.EqualFold(*list.Value[0].Properties.RoleDefinitionID, reader) {
			t.Fatalf("the principal's assignments below the subscription: %+v", list.Value)
		}
		_, err = assignments.Delete(ctx, rgScope, "0b0b0b0b-0000-4000-8000-000000000001", nil)
		must(err)
	})
	s.check(t, "policy/deny-and-check-restrictions", func(t *testing.T) {
		defs, err := armpolicy.NewDefinitionsClient(subscription, cred, s.opts)
		must(err)
		def, err := defs.CreateOrUpdate(ctx, "https-only", armpolicy.Definition{Properties: &armpolicy.DefinitionProperties{
			Mode: to.Ptr("All"),
			PolicyRule: map[string]any{
				"if": map[string]any{"allOf": []any{
					map[string]any{"field": "type", "equals": "Microsoft.Storage/storageAccounts"},
					map[string]any{"field": "Microsoft.Storage/storageAccounts/supportsHttpsTrafficOnly", "notEquals": true},
				}},
				"then": map[string]any{"effect": "deny"},
			},
		}}, nil)
		must(err)
		assigns, err := armpolicy.NewAssignmentsClient(subscription, cred, s.opts)
		must(err)
		_, err = assigns.Create(ctx, rgScope, "https-only", armpolicy.Assignment{Properties: &armpolicy.AssignmentProperties{PolicyDefinitionID: def.ID}}, nil)
		must(err)
		defer func() { _, _ = assigns.Delete(ctx, rgScope, "https-only", nil) }()
		restrictions, err := armpolicyinsights.NewPolicyRestrictionsClient(subscription, cred, s.opts)
		must(err)
		res, err := restrictions.CheckAtResourceGroupScope(ctx, rg, armpolicyinsights.CheckRestrictionsRequest{
			ResourceDetails: &armpolicyinsights.CheckRestrictionsResourceDetails{
				ResourceContent: map[string]any{"type": "Microsoft.Storage/storageAccounts", "name": "deniedone", "location": location, "properties": map[string]any{"supportsHttpsTrafficOnly": false}},
				APIVersion:      to.Ptr("2023-01-01"),
			},
		}, nil)
		must(err)
		evals := res.ContentEvaluationResult.PolicyEvaluations
		if len(evals) != 1 || *evals[0].EvaluationResult != "NonCompliant" || !strings.EqualFold(*evals[0].PolicyInfo.PolicyDefinitionID, *def.ID) {
			t.Fatalf("checkPolicyRestrictions: %+v", evals)
		}
		account := account
		account.Properties = &armstorage.AccountPropertiesCreateParameters{EnableHTTPSTrafficOnly: to.Ptr(false)}
		_, err = storage.BeginCreate(ctx, rg, "deniedone", account, nil)
		if armCode(err) != "RequestDisallowedByPolicy" {
			t.Fatalf("a write the policy denies: %v", err)
		}
	})
	s.check(t, "compute/usages-and-skus", func(t *testing.T) {
		must(admin.SetQuotas(ctx, []providers.Quota{{Namespace: "Microsoft.Compute", Location: location, Name: "cores", Limit: 10, CurrentValue: 3}}))
		defer func() { must(admin.SetQuotas(ctx, nil)) }()
		usage, err := armcompute.NewUsageClient(subscription, cred, s.opts)
		must(err)
		page, err := usage.NewListPager(location, nil).NextPage(ctx)
		must(err)
		cores := false
		for _, u := range page.Value {
			cores = cores || *u.Name.Value == "cores" && *u.Limit == 10 && *u.CurrentValue == 3
		}
		if !cores {
			t.Fatal("the seeded cores quota is not reported")
		}
		skus, err := armcompute.NewResourceSKUsClient(subscription, cred, s.opts)
		must(err)
		filter := "location eq '" + location + "'"
		sp, err := skus.NewListPager(&armcompute.ResourceSKUsClientListOptions{Filter: &filter}).NextPage(ctx)
		must(err)
		vcpus := ""
		for _, sku := range sp.Value {
			if *sku.Name == "Standard_D2s_v3" {
				for _, c := range sku.Capabilities {
					if *c.Name == "vCPUs" {
						vcpus = *c.Value
					}
				}
			}
		}
		if vcpus != "2" {
			t.Fatalf("Standard_D2s_v3 vCPUs: %q", vcpus)
		}
	})
	s.check(t, "network/usages-count-what-exists", func(t *testing.T) {
		vnets, err := armnetwork.NewVirtualNetworksClient(subscription, cred, s.opts)
		must(err)
		poller, err := vnets.BeginCreateOrUpdate(ctx, rg, "counted", armnetwork.VirtualNetwork{Location: to.Ptr(location), Properties: &armnetwork.VirtualNetworkPropertiesFormat{
			AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: []*string{to.Ptr("10.9.0.0/16")}},
		}}, nil)
		must(err)
		_, err = poller.PollUntilDone(ctx, frequency)
		must(err)
		usages, err := armnetwork.NewUsagesClient(subscription, cred, s.opts)
		must(err)
		page, err := usages.NewListPager(location, nil).NextPage(ctx)
		must(err)
		for _, u := range page.Value {
			if *u.Name.Value == "VirtualNetworks" {
				if *u.CurrentValue != 1 || *u.Limit != 1000 {
					t.Fatalf("VirtualNetworks: %d of %d", *u.CurrentValue, *u.Limit)
				}
				return
			}
		}
		t.Fatal("no VirtualNetworks usage")
	})
	s.check(t, "deployments/validate", func(t *testing.T) {
		deployments, err := armresources.NewDeploymentsClient(subscription, cred, s.opts)
		must(err)
		template := func(rules []any) map[string]any {
			return map[string]any{
				"$schema":        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
				"contentVersion": "1.0.0.0",
				"resources": []any{map[string]any{
					"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-01-01", "name": "validated1", "location": location,
					"kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
					"properties": map[string]any{"networkAcls": map[string]any{"defaultAction": "Deny", "ipRules": rules}},
				}},
			}
		}
		validate := func(rules []any) (armresources.DeploymentValidateResult, error) {
			poller, err := deployments.BeginValidate(ctx, rg, "check", armresources.Deployment{Properties: &armresources.DeploymentProperties{
				Mode: to.Ptr(armresources.DeploymentModeIncremental), Template: template(rules),
			}}, nil)
			if err != nil {
				return armresources.DeploymentValidateResult{}, err
			}
			res, err := poller.PollUntilDone(ctx, frequency)
			return res.DeploymentValidateResult, err
		}
		ok, err := validate([]any{map[string]any{"action": "Allow", "value": "203.0.113.7"}})
		if err != nil || ok.Error != nil || *ok.Properties.ProvisioningState != "Succeeded" {
			t.Fatalf("a valid body: %v %+v", err, ok.Error)
		}
		// ARM answers a refused validation 400 with the refusals as details, which the SDK raises.
		_, err = validate([]any{map[string]any{"action": "Allow"}})
		if armCode(err) != "InvalidTemplateDeployment" || !strings.Contains(err.Error(), `"code": "InvalidRequestContent"`) ||
			!strings.Contains(err.Error(), `/storageAccounts/validated1"`) {
			t.Fatalf("a body missing a required property: %v", err)
		}
		if _, err := storage.GetProperties(ctx, rg, "validated1", nil); armCode(err) != "ResourceNotFound" {
			t.Fatalf("validate wrote the account: %v", err)
		}
	})
	t.Logf("pre-flight conformance: %d of %d checks passed", s.passed, s.total)
}
