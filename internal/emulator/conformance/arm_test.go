package conformance_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/keyvault/armkeyvault"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v9"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v4"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armsubscriptions/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage/v2"
	"github.com/golang-jwt/jwt/v5"

	"github.com/azkcli/azk/internal/emulator"
)

// TestConformanceARM drives the emulator as a drop-in ARM with the newest
// Go SDK management modules (resources v4, subscriptions v2, network v9,
// storage v2, key vault 1.5, msi 1.3, authorization v2, container service
// v6) at their default api-versions, signed in through the emulator's own
// token service with azidentity: cloud metadata, identity, the
// subscription-level reads, list filters, tags at a scope, and ARM's
// semantics. It prints "conformance (ARM surface): N of M checks passed".
func TestConformanceARM(t *testing.T) {
	s := newSuite(t)
	ctx := s.ctx
	const sub = emulator.DefaultSubscription
	hc := s.run.HTTPClient()
	loginOpts := azcore.ClientOptions{
		Cloud:     cloud.Configuration{ActiveDirectoryAuthorityHost: s.run.URL + "/"},
		Transport: hc,
	}
	var cred azcore.TokenCredential

	s.check(t, "metadata/shapes-by-api-version", func(t *testing.T) {
		legacy := getJSON(t, hc, s.run.URL+"/metadata/endpoints?api-version=2015-01-01")
		auth := legacy.(map[string]any)["authentication"].(map[string]any)
		if auth["loginEndpoint"] != s.run.URL+"/" || auth["audiences"].([]any)[0] != "https://management.core.windows.net/" {
			t.Errorf("2015-01-01: %v", legacy)
		}
		clouds := getJSON(t, hc, s.run.URL+"/metadata/endpoints?api-version=2020-06-01").([]any)
		if len(clouds) != 1 || clouds[0].(map[string]any)["resourceManager"] != s.run.URL+"/" || clouds[0].(map[string]any)["name"] != emulator.CloudName {
			t.Errorf("2020-06-01: %v", clouds)
		}
		one := getJSON(t, hc, s.run.URL+"/metadata/endpoints?api-version=2022-09-01").(map[string]any)
		if one["resourceManager"] != s.run.URL+"/" || one["suffixes"].(map[string]any)["keyVaultDns"] != "vault.azure.net" {
			t.Errorf("2022-09-01: %v", one)
		}
	})
	s.check(t, "identity/client-credentials-with-azidentity", func(t *testing.T) {
		c, err := azidentity.NewClientSecretCredential(emulator.Tenant, "a2c0e5d4-0000-4000-8000-00000000a2c0", "any-secret",
			// Instance discovery asks login.microsoftonline.com to vouch for
			// an authority: off, as for any cloud of its own (Azure Stack).
			&azidentity.ClientSecretCredentialOptions{ClientOptions: loginOpts, DisableInstanceDiscovery: true})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := c.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{"https://management.azure.com/.default"}})
		if err != nil {
			t.Fatal(err)
		}
		claims := jwtClaims(t, tok.Token)
		if claims["tid"] != emulator.Tenant || claims["appid"] != "a2c0e5d4-0000-4000-8000-00000000a2c0" || claims["oid"] == "" {
			t.Errorf("claims %v", claims)
		}
		cred = c
	})
	if cred == nil {
		cred = fakeCredential{}
	}
	s.check(t, "identity/managed-identity-with-azidentity", func(t *testing.T) {
		t.Setenv("IDENTITY_ENDPOINT", s.run.URL+"/metadata/identity/oauth2/token")
		t.Setenv("IDENTITY_HEADER", "emulated")
		mi, err := azidentity.NewManagedIdentityCredential(&azidentity.ManagedIdentityCredentialOptions{ClientOptions: azcore.ClientOptions{Transport: hc}})
		if err != nil {
			t.Fatal(err)
		}
		subs, err := armsubscriptions.NewClientFactory(mi, s.opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := subs.NewClient().Get(ctx, sub, nil); err != nil {
			t.Fatal(err)
		}
	})
	s.check(t, "identity/forged-and-misdirected-tokens-refused", func(t *testing.T) {
		key, _ := rsa.GenerateKey(rand.Reader, 2048)
		forged, _ := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"aud": "https://management.azure.com/", "tid": emulator.Tenant,
			"oid": "x", "exp": time.Now().Add(time.Hour).Unix()}).SignedString(key)
		if code := statusWith(t, hc, s.run.URL+"/subscriptions?api-version=2022-12-01", forged); code != "401 InvalidAuthenticationToken" {
			t.Errorf("forged token: %s", code)
		}
		vault, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{"https://vault.azure.net/.default"}})
		if err != nil {
			t.Fatal(err)
		}
		if code := statusWith(t, hc, s.run.URL+"/subscriptions?api-version=2022-12-01", vault.Token); code != "401 InvalidAuthenticationTokenAudience" {
			t.Errorf("key vault token at ARM: %s", code)
		}
	})

	subs, err := armsubscriptions.NewClientFactory(cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := armresources.NewClientFactory(sub, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	net, err := armnetwork.NewClientFactory(sub, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	storage, err := armstorage.NewClientFactory(sub, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := armkeyvault.NewClientFactory(sub, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	msi, err := armmsi.NewClientFactory(sub, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	authz, err := armauthorization.NewClientFactory(sub, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	aks, err := armcontainerservice.NewClientFactory(sub, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	groups := res.NewResourceGroupsClient()
	const group = "arm-surface"
	groupID := "/subscriptions/" + sub + "/resourceGroups/" + group

	s.check(t, "subscriptions/list-get-tenants-locations", func(t *testing.T) {
		pager := subs.NewClient().NewListPager(nil)
		var ids []string
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range page.Value {
				ids = append(ids, *v.SubscriptionID)
			}
		}
		if !slices.Contains(ids, sub) {
			t.Errorf("subscriptions %v lack the default %s", ids, sub)
		}
		got, err := subs.NewClient().Get(ctx, sub, nil)
		if err != nil || *got.State != armsubscriptions.SubscriptionStateEnabled || *got.TenantID != emulator.Tenant {
			t.Fatalf("get: %v %+v", err, got)
		}
		if _, err := subs.NewClient().Get(ctx, "11111111-1111-1111-1111-111111111111", nil); armCode(err) != "SubscriptionNotFound" {
			t.Errorf("unknown subscription: %v", err)
		}
		tenants := subs.NewTenantsClient().NewListPager(nil)
		page, err := tenants.NextPage(ctx)
		if err != nil || len(page.Value) != 1 || *page.Value[0].TenantID != emulator.Tenant {
			t.Fatalf("tenants: %v %+v", err, page)
		}
		locs := subs.NewClient().NewListLocationsPager(sub, nil)
		lp, err := locs.NextPage(ctx)
		if err != nil || !slices.ContainsFunc(lp.Value, func(l *armsubscriptions.Location) bool { return *l.Name == location }) {
			t.Fatalf("locations: %v", err)
		}
	})

	// The newest modules' default api-versions, one create each.
	s.check(t, "api-versions/resources-v4-group", func(t *testing.T) {
		got, err := groups.CreateOrUpdate(ctx, group, armresources.ResourceGroup{Location: to.Ptr(location), Tags: map[string]*string{"team": to.Ptr("blue")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// systemData names the application that signed in, as ARM does.
		if sd := got.SystemData; sd == nil || sd.CreatedBy == nil || *sd.CreatedBy != "a2c0e5d4-0000-4000-8000-00000000a2c0" || *sd.CreatedByType != armresources.CreatedByTypeApplication {
			t.Errorf("systemData: %+v", sd)
		}
	})
	var vnetID string
	s.check(t, "api-versions/network-v9-vnet-and-public-ip", func(t *testing.T) {
		poller, err := net.NewVirtualNetworksClient().BeginCreateOrUpdate(ctx, group, "vnet1", armnetwork.VirtualNetwork{
			Location:   to.Ptr(location),
			Properties: &armnetwork.VirtualNetworkPropertiesFormat{AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: []*string{to.Ptr("10.1.0.0/16")}}},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		vnet, err := poller.PollUntilDone(ctx, frequency)
		if err != nil {
			t.Fatal(err)
		}
		vnetID = *vnet.ID
		ipPoller, err := net.NewPublicIPAddressesClient().BeginCreateOrUpdate(ctx, group, "ip1", armnetwork.PublicIPAddress{
			Location:   to.Ptr(location),
			SKU:        &armnetwork.PublicIPAddressSKU{Name: to.Ptr(armnetwork.PublicIPAddressSKUNameStandard)},
			Properties: &armnetwork.PublicIPAddressPropertiesFormat{PublicIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodStatic)},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ip, err := ipPoller.PollUntilDone(ctx, frequency)
		if err != nil || ip.Properties.IPAddress == nil || *ip.Properties.IPAddress == "" {
			t.Fatalf("a static public IP has its address at create: %v %+v", err, ip.Properties)
		}
	})
	s.check(t, "api-versions/storage-v2-account", func(t *testing.T) {
		poller, err := storage.NewAccountsClient().BeginCreate(ctx, group, "armsurfacesa", armstorage.AccountCreateParameters{
			Location: to.Ptr(location), Kind: to.Ptr(armstorage.KindStorageV2), SKU: &armstorage.SKU{Name: to.Ptr(armstorage.SKUNameStandardLRS)},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := poller.PollUntilDone(ctx, frequency); err != nil {
			t.Fatal(err)
		}
	})
	s.check(t, "api-versions/keyvault-1.5-vault", func(t *testing.T) {
		poller, err := kv.NewVaultsClient().BeginCreateOrUpdate(ctx, group, "armsurfacekv", armkeyvault.VaultCreateOrUpdateParameters{
			Location: to.Ptr(location),
			Properties: &armkeyvault.VaultProperties{TenantID: to.Ptr(emulator.Tenant),
				SKU: &armkeyvault.SKU{Family: to.Ptr(armkeyvault.SKUFamilyA), Name: to.Ptr(armkeyvault.SKUNameStandard)}},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := poller.PollUntilDone(ctx, frequency); err != nil {
			t.Fatal(err)
		}
	})
	var principal string
	s.check(t, "api-versions/msi-1.3-identity", func(t *testing.T) {
		id, err := msi.NewUserAssignedIdentitiesClient().CreateOrUpdate(ctx, group, "armsurfaceid", armmsi.Identity{Location: to.Ptr(location)}, nil)
		if err != nil || id.Properties.PrincipalID == nil {
			t.Fatalf("%v %+v", err, id)
		}
		principal = *id.Properties.PrincipalID
	})
	s.check(t, "api-versions/containerservice-v6-cluster", func(t *testing.T) {
		poller, err := aks.NewManagedClustersClient().BeginCreateOrUpdate(ctx, group, "armsurfaceaks", armcontainerservice.ManagedCluster{
			Location: to.Ptr(location),
			Identity: &armcontainerservice.ManagedClusterIdentity{Type: to.Ptr(armcontainerservice.ResourceIdentityTypeSystemAssigned)},
			Properties: &armcontainerservice.ManagedClusterProperties{DNSPrefix: to.Ptr("armsurface"),
				AgentPoolProfiles: []*armcontainerservice.ManagedClusterAgentPoolProfile{{Name: to.Ptr("pool1"), Count: to.Ptr[int32](1), VMSize: to.Ptr("Standard_D2s_v5"), Mode: to.Ptr(armcontainerservice.AgentPoolModeSystem)}}},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := poller.PollUntilDone(ctx, frequency); err != nil {
			t.Fatal(err)
		}
	})
	reader := "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	s.check(t, "api-versions/authorization-v2-role-assignment-with-scope", func(t *testing.T) {
		ra, err := authz.NewRoleAssignmentsClient().Create(ctx, groupID, "6f9bc2a4-1111-4111-8111-000000000001", armauthorization.RoleAssignmentCreateParameters{
			Properties: &armauthorization.RoleAssignmentProperties{PrincipalID: to.Ptr(principal), RoleDefinitionID: to.Ptr(reader)},
		}, nil)
		if err != nil || ra.Properties.Scope == nil || !strings.EqualFold(*ra.Properties.Scope, groupID) {
			t.Fatalf("%v %+v", err, ra.Properties)
		}
	})

	// ARM's semantics, each the rule ARM documents or answers with.
	s.check(t, "semantics/role-assignment-exists", func(t *testing.T) {
		_, err := authz.NewRoleAssignmentsClient().Create(ctx, groupID, "6f9bc2a4-1111-4111-8111-000000000002", armauthorization.RoleAssignmentCreateParameters{
			Properties: &armauthorization.RoleAssignmentProperties{PrincipalID: to.Ptr(principal), RoleDefinitionID: to.Ptr(reader)},
		}, nil)
		if armCode(err) != "RoleAssignmentExists" {
			t.Errorf("a second assignment of the same role to the same principal at the same scope: %v", err)
		}
	})
	s.check(t, "semantics/role-definition-does-not-exist", func(t *testing.T) {
		_, err := authz.NewRoleAssignmentsClient().Create(ctx, groupID, "6f9bc2a4-1111-4111-8111-000000000003", armauthorization.RoleAssignmentCreateParameters{
			Properties: &armauthorization.RoleAssignmentProperties{PrincipalID: to.Ptr(principal),
				RoleDefinitionID: to.Ptr("/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/00000000-dead-4000-8000-000000000000")},
		}, nil)
		if armCode(err) != "RoleDefinitionDoesNotExist" {
			t.Errorf("an assignment of a role that does not exist: %v", err)
		}
	})
	s.check(t, "semantics/location-is-immutable", func(t *testing.T) {
		_, err := groups.CreateOrUpdate(ctx, group, armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil)
		if armCode(err) != "InvalidResourceGroupLocation" {
			t.Errorf("moving a resource group: %v", err)
		}
		_, err = net.NewVirtualNetworksClient().BeginCreateOrUpdate(ctx, group, "vnet1", armnetwork.VirtualNetwork{
			Location:   to.Ptr("eastus"),
			Properties: &armnetwork.VirtualNetworkPropertiesFormat{AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: []*string{to.Ptr("10.1.0.0/16")}}},
		}, nil)
		if armCode(err) != "InvalidResourceLocation" {
			t.Errorf("moving a virtual network: %v", err)
		}
	})
	s.check(t, "semantics/delete-missing-group-is-404", func(t *testing.T) {
		_, err := groups.BeginDelete(ctx, "never-made", nil)
		if armCode(err) != "ResourceGroupNotFound" {
			t.Errorf("deleting a group that does not exist: %v", err)
		}
	})
	s.check(t, "semantics/tags-at-scope-are-the-scopes-tags", func(t *testing.T) {
		tags := res.NewTagsClient()
		poller, err := tags.BeginCreateOrUpdateAtScope(ctx, vnetID, armresources.TagsResource{Properties: &armresources.Tags{Tags: map[string]*string{"env": to.Ptr("dev")}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := poller.PollUntilDone(ctx, frequency); err != nil {
			t.Fatal(err)
		}
		merge, err := tags.BeginUpdateAtScope(ctx, vnetID, armresources.TagsPatchResource{Operation: to.Ptr(armresources.TagsPatchOperationMerge),
			Properties: &armresources.Tags{Tags: map[string]*string{"owner": to.Ptr("ops")}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := merge.PollUntilDone(ctx, frequency); err != nil {
			t.Fatal(err)
		}
		vnet, err := net.NewVirtualNetworksClient().Get(ctx, group, "vnet1", nil)
		if err != nil || len(vnet.Tags) != 2 || *vnet.Tags["env"] != "dev" || *vnet.Tags["owner"] != "ops" {
			t.Fatalf("the network's own tags: %v %v", err, vnet.Tags)
		}
		got, err := tags.GetAtScope(ctx, vnetID, nil)
		if err != nil || len(got.Properties.Tags) != 2 {
			t.Fatalf("tags at scope: %v %+v", err, got)
		}
	})

	// Lists: filters, $top and nextLink.
	s.check(t, "lists/resources-filter-top-nextlink", func(t *testing.T) {
		listed := func(opts *armresources.ClientListOptions) []*armresources.GenericResourceExpanded {
			return all(t, ctx, res.NewClient().NewListPager(opts), func(p armresources.ClientListResponse) []*armresources.GenericResourceExpanded { return p.Value })
		}
		byType := listed(&armresources.ClientListOptions{Filter: to.Ptr("resourceType eq 'Microsoft.Network/virtualNetworks'")})
		if len(byType) != 1 || !strings.EqualFold(*byType[0].Type, "Microsoft.Network/virtualNetworks") || byType[0].Properties != nil {
			t.Errorf("resourceType filter: %d resources (want the one network, listed without properties)", len(byType))
		}
		if named := listed(&armresources.ClientListOptions{Filter: to.Ptr("substringof('armsurface', name)")}); len(named) != 4 {
			t.Errorf("substringof('armsurface', name): %d resources, want 4 (storage, vault, identity, cluster)", len(named))
		}
		pages := 0
		topped := res.NewClient().NewListByResourceGroupPager(group, &armresources.ClientListByResourceGroupOptions{Top: to.Ptr[int32](1)})
		n := len(all(t, ctx, topped, func(p armresources.ClientListByResourceGroupResponse) []*armresources.GenericResourceExpanded {
			pages++
			if len(p.Value) != 1 {
				t.Errorf("$top=1: a page of %d", len(p.Value))
			}
			return p.Value
		}))
		if n < 6 || pages != n {
			t.Errorf("$top=1: %d resources in %d pages, want all of them one a page", n, pages)
		}
		bad := res.NewClient().NewListPager(&armresources.ClientListOptions{Filter: to.Ptr("resourceType eq 'Microsoft.Network/virtualNetworks' and tagName eq 'env'")})
		if _, err := bad.NextPage(ctx); armCode(err) != "InvalidFilterInQueryString" {
			t.Errorf("a tag filter combined with a type filter: %v", err)
		}
	})
	s.check(t, "lists/resource-groups-by-tag", func(t *testing.T) {
		if _, err := groups.CreateOrUpdate(ctx, "untagged", armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
			t.Fatal(err)
		}
		pager := groups.NewListPager(&armresources.ResourceGroupsClientListOptions{Filter: to.Ptr("tagName eq 'team' and tagValue eq 'blue'")})
		var names []string
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range page.Value {
				names = append(names, *g.Name)
			}
		}
		if !slices.Equal(names, []string{group}) {
			t.Errorf("groups tagged team=blue: %v", names)
		}
		byName := groups.NewListPager(&armresources.ResourceGroupsClientListOptions{Filter: to.Ptr("name eq 'untagged'")})
		if _, err := byName.NextPage(ctx); armCode(err) != "InvalidFilterInQueryString" {
			t.Errorf("a resource group list filtered by name: %v", err)
		}
	})
	s.check(t, "api-versions/unserved-version-refused-for-groups", func(t *testing.T) {
		_, err := res.NewClient().GetByID(ctx, groupID, "2020-11-01", nil)
		if armCode(err) != "InvalidApiVersionParameter" {
			t.Errorf("a resource group at an api-version ARM never served: %v", err)
		}
	})
	t.Logf("conformance (ARM surface): %d of %d checks passed", s.passed, s.total)
}

// getJSON reads an anonymous JSON endpoint.
func getJSON(t *testing.T, hc *http.Client, url string) any {
	t.Helper()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	var v any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// statusWith is the status and ARM error code of a GET with a bearer token.
func statusWith(t *testing.T, hc *http.Client, url, token string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(data, &body)
	return strings.TrimSpace(strings.Fields(resp.Status)[0] + " " + body.Error.Code)
}

// jwtClaims decodes a token's claims (the emulator's tokens are verified by
// the emulator; here the test reads what they carry).
func jwtClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %d parts", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

// all follows a pager's nextLinks to the end, collecting each page's items.
func all[R, V any](t *testing.T, ctx context.Context, pager *runtime.Pager[R], items func(R) []V) []V {
	t.Helper()
	var out []V
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, items(page)...)
	}
	return out
}
