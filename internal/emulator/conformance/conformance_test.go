// Package conformance drives the emulator over HTTPS with the Azure SDK for
// Go's own management clients (resources, network, storage, msi, keyvault):
// clients written by others, that raise on any answer real ARM would not
// give. Each check is a subtest; the summary line counts them.
package conformance_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/keyvault/armkeyvault"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"

	"github.com/azkcli/azk/internal/emulator"
)

const (
	subscription = "00000000-0000-0000-0000-000000000001"
	location     = "westus2"
	rg           = "conformance"
)

type fakeCredential struct{}

func (fakeCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "conformance", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// counting counts the 429s the SDK saw (and retried).
type counting struct {
	next      policy.Transporter
	throttled atomic.Int64
}

func (c *counting) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		c.throttled.Add(1)
	}
	return resp, err
}

type suite struct {
	run       *emulator.Running
	opts      *arm.ClientOptions
	transport *counting
	ctx       context.Context
	passed    int
	total     int
}

// check runs one check as a subtest; an answer missing a field the check
// reads fails that check rather than the whole suite.
func (s *suite) check(t *testing.T, name string, f func(t *testing.T)) {
	s.total++
	if t.Run(name, func(t *testing.T) {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("the answer lacks what the check reads: %v", r)
			}
		}()
		f(t)
	}) {
		s.passed++
	}
}

func newSuite(t *testing.T) *suite {
	run, err := emulator.Start(context.Background(), emulator.Options{
		PageSize: 2,
		// Network writes and resource group deletes are long-running, as in Azure.
		LRO: []emulator.LRORule{
			{Type: "Microsoft.Network/*", Write: 50 * time.Millisecond, Delete: 50 * time.Millisecond},
			{Type: "Microsoft.Resources/resourceGroups", Delete: 50 * time.Millisecond},
		},
	}, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	transport := &counting{next: run.HTTPClient()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return &suite{
		run:       run,
		transport: transport,
		ctx:       ctx,
		opts: &arm.ClientOptions{ClientOptions: azcore.ClientOptions{
			Cloud: cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
				cloud.ResourceManager: {Endpoint: run.URL, Audience: "https://management.azure.com"},
			}},
			Transport: transport,
			Retry:     policy.RetryOptions{MaxRetries: 5, RetryDelay: 10 * time.Millisecond, MaxRetryDelay: 2 * time.Second},
		}},
	}
}

var frequency = &runtime.PollUntilDoneOptions{Frequency: 20 * time.Millisecond}

func armCode(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return ""
}

func TestConformance(t *testing.T) {
	s := newSuite(t)
	cred := fakeCredential{}
	groups, err := armresources.NewResourceGroupsClient(subscription, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	net, err := armnetwork.NewClientFactory(subscription, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	storage, err := armstorage.NewClientFactory(subscription, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	msi, err := armmsi.NewClientFactory(subscription, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := armkeyvault.NewClientFactory(subscription, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := s.ctx

	// Resources: create, read, existence, update, list and page, delete.
	s.check(t, "resources/create-read", func(t *testing.T) {
		if _, err := groups.CreateOrUpdate(ctx, rg, armresources.ResourceGroup{Location: to.Ptr(location), Tags: map[string]*string{"a": to.Ptr("1")}}, nil); err != nil {
			t.Fatal(err)
		}
		got, err := groups.Get(ctx, rg, nil)
		if err != nil || *got.Name != rg || *got.Properties.ProvisioningState != "Succeeded" {
			t.Fatalf("get: %v %+v", err, got)
		}
	})
	s.check(t, "resources/check-existence", func(t *testing.T) {
		yes, err := groups.CheckExistence(ctx, rg, nil)
		if err != nil || !yes.Success {
			t.Fatalf("existing group: %v %v", yes.Success, err)
		}
		no, err := groups.CheckExistence(ctx, "absent", nil)
		if err != nil || no.Success {
			t.Fatalf("absent group: %v %v", no.Success, err)
		}
	})
	s.check(t, "resources/update-replaces-tags", func(t *testing.T) {
		got, err := groups.Update(ctx, rg, armresources.ResourceGroupPatchable{Tags: map[string]*string{"b": to.Ptr("2")}}, nil)
		if err != nil || len(got.Tags) != 1 || got.Tags["b"] == nil {
			t.Fatalf("update: %v %v", err, got.Tags)
		}
	})
	s.check(t, "resources/list-pages", func(t *testing.T) {
		for _, name := range []string{"page-a", "page-b", "page-c", "page-d"} {
			if _, err := groups.CreateOrUpdate(ctx, name, armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		pager := groups.NewListPager(nil)
		n, pages := 0, 0
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n += len(page.Value)
			pages++
		}
		if n != 5 || pages != 3 {
			t.Fatalf("%d groups in %d pages, want 5 in 3", n, pages)
		}
	})
	s.check(t, "resources/delete-long-running", func(t *testing.T) {
		poller, err := groups.BeginDelete(ctx, "page-a", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := poller.PollUntilDone(ctx, frequency); err != nil {
			t.Fatal(err)
		}
		_, err = groups.Get(ctx, "page-a", nil)
		if armCode(err) != "ResourceGroupNotFound" {
			t.Fatalf("get after delete: %v", err)
		}
	})

	// Network: long-running creates, default rules, NIC addresses, in-use subnets, ETags.
	vnets, subnets, nsgs, nics := net.NewVirtualNetworksClient(), net.NewSubnetsClient(), net.NewSecurityGroupsClient(), net.NewInterfacesClient()
	var subnetID string
	s.check(t, "network/vnet-subnet-long-running", func(t *testing.T) {
		poller, err := vnets.BeginCreateOrUpdate(ctx, rg, "vnet", armnetwork.VirtualNetwork{Location: to.Ptr(location),
			Properties: &armnetwork.VirtualNetworkPropertiesFormat{AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: []*string{to.Ptr("10.1.0.0/16")}}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		vnet, err := poller.PollUntilDone(ctx, frequency)
		if err != nil || *vnet.Properties.ProvisioningState != armnetwork.ProvisioningStateSucceeded {
			t.Fatalf("vnet: %v %+v", err, vnet)
		}
		sp, err := subnets.BeginCreateOrUpdate(ctx, rg, "vnet", "web", armnetwork.Subnet{Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.1.1.0/24")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		sn, err := sp.PollUntilDone(ctx, frequency)
		if err != nil {
			t.Fatal(err)
		}
		subnetID = *sn.ID
		pager := subnets.NewListPager(rg, "vnet", nil)
		page, err := pager.NextPage(ctx)
		if err != nil || len(page.Value) != 1 {
			t.Fatalf("subnet list: %v %d", err, len(page.Value))
		}
	})
	s.check(t, "network/etag-changes-on-update", func(t *testing.T) {
		before, err := vnets.Get(ctx, rg, "vnet", nil)
		if err != nil || before.Etag == nil {
			t.Fatalf("get: %v", err)
		}
		after, err := vnets.UpdateTags(ctx, rg, "vnet", armnetwork.TagsObject{Tags: map[string]*string{"x": to.Ptr("y")}}, nil)
		if err != nil || after.Etag == nil || *after.Etag == *before.Etag || len(after.Tags) != 1 {
			t.Fatalf("update tags: %v %+v", err, after)
		}
	})
	s.check(t, "network/nsg-default-rules", func(t *testing.T) {
		poller, err := nsgs.BeginCreateOrUpdate(ctx, rg, "nsg", armnetwork.SecurityGroup{Location: to.Ptr(location)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		nsg, err := poller.PollUntilDone(ctx, frequency)
		if err != nil || len(nsg.Properties.DefaultSecurityRules) != 6 {
			t.Fatalf("nsg: %v %+v", err, nsg.Properties)
		}
	})
	s.check(t, "network/nic-private-ip-and-back-reference", func(t *testing.T) {
		poller, err := nics.BeginCreateOrUpdate(ctx, rg, "nic", armnetwork.Interface{Location: to.Ptr(location), Properties: &armnetwork.InterfacePropertiesFormat{
			IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{Name: to.Ptr("ipconfig1"), Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{
				Subnet: &armnetwork.Subnet{ID: to.Ptr(subnetID)}}}}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		nic, err := poller.PollUntilDone(ctx, frequency)
		if err != nil {
			t.Fatal(err)
		}
		ipc := nic.Properties.IPConfigurations[0]
		if ipc.ID == nil || *ipc.Properties.PrivateIPAddress != "10.1.1.4" {
			t.Fatalf("ip configuration: %+v %+v", ipc, ipc.Properties)
		}
		sn, err := subnets.Get(ctx, rg, "vnet", "web", nil)
		if err != nil || len(sn.Properties.IPConfigurations) != 1 || *sn.Properties.IPConfigurations[0].ID != *ipc.ID {
			t.Fatalf("subnet back-reference: %v %+v", err, sn.Properties)
		}
	})
	s.check(t, "network/in-use-subnet-blocks-delete", func(t *testing.T) {
		poller, err := vnets.BeginDelete(ctx, rg, "vnet", nil)
		if err == nil {
			_, err = poller.PollUntilDone(ctx, frequency)
		}
		if armCode(err) != "InUseSubnetCannotBeDeleted" {
			t.Fatalf("delete of a network in use: %v", err)
		}
	})

	s.check(t, "network/subnet-pages", func(t *testing.T) {
		for _, name := range []string{"a", "b", "c"} {
			p, err := subnets.BeginCreateOrUpdate(ctx, rg, "vnet", name, armnetwork.Subnet{Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.1.1" + map[string]string{"a": "1", "b": "2", "c": "3"}[name] + ".0/24")}}, nil)
			if err == nil {
				_, err = p.PollUntilDone(ctx, frequency)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		pager := subnets.NewListPager(rg, "vnet", nil)
		n, pages := 0, 0
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n, pages = n+len(page.Value), pages+1
		}
		if n != 4 || pages != 2 {
			t.Fatalf("%d subnets in %d pages, want 4 in 2", n, pages)
		}
	})
	s.check(t, "network/delete-long-running-after-nic", func(t *testing.T) {
		np, err := nics.BeginDelete(ctx, rg, "nic", nil)
		if err == nil {
			_, err = np.PollUntilDone(ctx, frequency)
		}
		if err != nil {
			t.Fatal(err)
		}
		vp, err := vnets.BeginDelete(ctx, rg, "vnet", nil)
		if err == nil {
			_, err = vp.PollUntilDone(ctx, frequency)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := subnets.Get(ctx, rg, "vnet", "web", nil); armCode(err) != "ResourceNotFound" {
			t.Fatalf("subnet after its network's delete: %v", err)
		}
	})

	// Storage: name checks, a 202 create, keys, children created with the account.
	accounts := storage.NewAccountsClient()
	s.check(t, "storage/check-name-create-202", func(t *testing.T) {
		avail, err := accounts.CheckNameAvailability(ctx, armstorage.AccountCheckNameAvailabilityParameters{Name: to.Ptr("azkconf"), Type: to.Ptr("Microsoft.Storage/storageAccounts")}, nil)
		if err != nil || !*avail.NameAvailable {
			t.Fatalf("free name: %v %+v", err, avail)
		}
		poller, err := accounts.BeginCreate(ctx, rg, "azkconf", armstorage.AccountCreateParameters{Location: to.Ptr(location),
			Kind: to.Ptr(armstorage.KindStorageV2), SKU: &armstorage.SKU{Name: to.Ptr(armstorage.SKUNameStandardLRS)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		acct, err := poller.PollUntilDone(ctx, frequency)
		if err != nil || acct.Properties.PrimaryEndpoints == nil || *acct.Properties.PrimaryEndpoints.Blob != "https://azkconf.blob.core.windows.net/" {
			t.Fatalf("account: %v %+v", err, acct.Properties)
		}
		avail, err = accounts.CheckNameAvailability(ctx, armstorage.AccountCheckNameAvailabilityParameters{Name: to.Ptr("azkconf"), Type: to.Ptr("Microsoft.Storage/storageAccounts")}, nil)
		if err != nil || *avail.NameAvailable || *avail.Reason != armstorage.ReasonAlreadyExists {
			t.Fatalf("taken name: %v %+v", err, avail)
		}
	})
	s.check(t, "storage/list-and-regenerate-keys", func(t *testing.T) {
		keys, err := accounts.ListKeys(ctx, rg, "azkconf", nil)
		if err != nil || len(keys.Keys) != 2 || *keys.Keys[0].KeyName != "key1" {
			t.Fatalf("list keys: %v %+v", err, keys)
		}
		again, err := accounts.RegenerateKey(ctx, rg, "azkconf", armstorage.AccountRegenerateKeyParameters{KeyName: to.Ptr("key1")}, nil)
		if err != nil || *again.Keys[0].Value == *keys.Keys[0].Value {
			t.Fatalf("regenerate: %v", err)
		}
	})
	s.check(t, "storage/container-in-default-blob-service", func(t *testing.T) {
		if _, err := storage.NewBlobServicesClient().GetServiceProperties(ctx, rg, "azkconf", nil); err != nil {
			t.Fatalf("blob service created with the account: %v", err)
		}
		if _, err := storage.NewBlobContainersClient().Create(ctx, rg, "azkconf", "c1", armstorage.BlobContainer{}, nil); err != nil {
			t.Fatal(err)
		}
		page, err := storage.NewBlobContainersClient().NewListPager(rg, "azkconf", nil).NextPage(ctx)
		if err != nil || len(page.Value) != 1 {
			t.Fatalf("containers: %v", err)
		}
	})

	s.check(t, "storage/update-patch", func(t *testing.T) {
		got, err := accounts.Update(ctx, rg, "azkconf", armstorage.AccountUpdateParameters{Tags: map[string]*string{"k": to.Ptr("v")}}, nil)
		if err != nil || len(got.Tags) != 1 {
			t.Fatalf("update: %v %+v", err, got.Tags)
		}
		props, err := accounts.GetProperties(ctx, rg, "azkconf", nil)
		if err != nil || *props.Tags["k"] != "v" || *props.Properties.ProvisioningState != armstorage.ProvisioningStateSucceeded {
			t.Fatalf("get: %v", err)
		}
	})

	// Managed identity: generated IDs, tenant of the subscription.
	identities := msi.NewUserAssignedIdentitiesClient()
	s.check(t, "msi/create-list-delete", func(t *testing.T) {
		id, err := identities.CreateOrUpdate(ctx, rg, "id1", armmsi.Identity{Location: to.Ptr(location)}, nil)
		if err != nil || id.Properties.PrincipalID == nil || id.Properties.ClientID == nil || *id.Properties.TenantID != emulator.Tenant {
			t.Fatalf("identity: %v %+v", err, id.Properties)
		}
		page, err := identities.NewListByResourceGroupPager(rg, nil).NextPage(ctx)
		if err != nil || len(page.Value) != 1 {
			t.Fatalf("list: %v", err)
		}
		updated, err := identities.Update(ctx, rg, "id1", armmsi.IdentityUpdate{Tags: map[string]*string{"k": to.Ptr("v")}}, nil)
		if err != nil || *updated.Properties.PrincipalID != *id.Properties.PrincipalID || len(updated.Tags) != 1 {
			t.Fatalf("update: %v", err)
		}
		if _, err := identities.Delete(ctx, rg, "id1", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := identities.Get(ctx, rg, "id1", nil); armCode(err) != "ResourceNotFound" {
			t.Fatalf("get after delete: %v", err)
		}
	})

	// Key vault: the soft-delete cycle.
	vaults := kv.NewVaultsClient()
	s.check(t, "keyvault/soft-delete-purge", func(t *testing.T) {
		deleted, err := vaults.NewListDeletedPager(nil).NextPage(ctx)
		if err != nil || len(deleted.Value) != 0 {
			t.Fatalf("empty deleted list: %v", err)
		}
		avail, err := vaults.CheckNameAvailability(ctx, armkeyvault.VaultCheckNameAvailabilityParameters{Name: to.Ptr("azkconf-kv"), Type: to.Ptr("Microsoft.KeyVault/vaults")}, nil)
		if err != nil || !*avail.NameAvailable {
			t.Fatalf("name check: %v", err)
		}
		poller, err := vaults.BeginCreateOrUpdate(ctx, rg, "azkconf-kv", armkeyvault.VaultCreateOrUpdateParameters{Location: to.Ptr(location),
			Properties: &armkeyvault.VaultProperties{TenantID: to.Ptr(emulator.Tenant), SKU: &armkeyvault.SKU{Family: to.Ptr(armkeyvault.SKUFamilyA), Name: to.Ptr(armkeyvault.SKUNameStandard)}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		vault, err := poller.PollUntilDone(ctx, frequency)
		if err != nil || *vault.Properties.VaultURI != "https://azkconf-kv.vault.azure.net/" {
			t.Fatalf("vault: %v %+v", err, vault.Properties)
		}
		if _, err := vaults.Delete(ctx, rg, "azkconf-kv", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := vaults.GetDeleted(ctx, "azkconf-kv", location, nil); err != nil {
			t.Fatalf("soft-deleted vault: %v", err)
		}
		purge, err := vaults.BeginPurgeDeleted(ctx, "azkconf-kv", location, nil)
		if err == nil {
			_, err = purge.PollUntilDone(ctx, frequency)
		}
		if err != nil {
			t.Fatalf("purge: %v", err)
		}
		if _, err := vaults.GetDeleted(ctx, "azkconf-kv", location, nil); armCode(err) != "DeletedVaultNotFound" {
			t.Fatalf("after purge: %v", err)
		}
	})

	s.check(t, "keyvault/recover", func(t *testing.T) {
		params := armkeyvault.VaultCreateOrUpdateParameters{Location: to.Ptr(location),
			Properties: &armkeyvault.VaultProperties{TenantID: to.Ptr(emulator.Tenant), SKU: &armkeyvault.SKU{Family: to.Ptr(armkeyvault.SKUFamilyA), Name: to.Ptr(armkeyvault.SKUNameStandard)}}}
		create := func(p armkeyvault.VaultCreateOrUpdateParameters) (armkeyvault.VaultsClientCreateOrUpdateResponse, error) {
			poller, err := vaults.BeginCreateOrUpdate(ctx, rg, "azkconf-kv2", p, nil)
			if err != nil {
				return armkeyvault.VaultsClientCreateOrUpdateResponse{}, err
			}
			return poller.PollUntilDone(ctx, frequency)
		}
		first, err := create(params)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := vaults.Delete(ctx, rg, "azkconf-kv2", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := create(params); armCode(err) != "ConflictError" {
			t.Fatalf("create over a soft-deleted vault: %v", err)
		}
		params.Properties.CreateMode = to.Ptr(armkeyvault.CreateModeRecover)
		back, err := create(params)
		if err != nil || *back.Properties.VaultURI != *first.Properties.VaultURI {
			t.Fatalf("recover: %v", err)
		}
	})

	// Faults as ARM sends them: throttling, a failed operation, an unserved api-version.
	s.check(t, "faults/throttling-is-retried", func(t *testing.T) {
		s.run.Server.SetFaults(emulator.Faults{WriteLimit: emulator.RateLimit{Burst: 1, PerSecond: 2}})
		defer s.run.Server.SetFaults(emulator.Faults{})
		before := s.transport.throttled.Load()
		for _, name := range []string{"t1", "t2"} {
			if _, err := identities.CreateOrUpdate(ctx, rg, name, armmsi.Identity{Location: to.Ptr(location)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if s.transport.throttled.Load() == before {
			t.Fatal("no request was throttled")
		}
	})
	s.check(t, "faults/failed-operation", func(t *testing.T) {
		s.run.Server.SetFaults(emulator.Faults{Failures: []emulator.FailureRule{{Type: "Microsoft.Network/networkSecurityGroups", After: 30 * time.Millisecond, Code: "InvalidResourceReference", Message: "no such thing"}}})
		defer s.run.Server.SetFaults(emulator.Faults{})
		poller, err := nsgs.BeginCreateOrUpdate(ctx, rg, "broken", armnetwork.SecurityGroup{Location: to.Ptr(location)}, nil)
		if err == nil {
			_, err = poller.PollUntilDone(ctx, frequency)
		}
		if err == nil || !strings.Contains(err.Error(), "InvalidResourceReference") {
			t.Fatalf("failed operation: %v", err)
		}
	})
	s.check(t, "faults/unserved-api-version", func(t *testing.T) {
		o := *s.opts
		o.APIVersion = "2099-01-01"
		old, err := armnetwork.NewVirtualNetworksClient(subscription, cred, &o)
		if err != nil {
			t.Fatal(err)
		}
		_, err = old.Get(ctx, rg, "vnet", nil)
		if armCode(err) != "InvalidApiVersionParameter" {
			t.Fatalf("unserved api-version: %v", err)
		}
	})
	t.Logf("conformance: %d of %d checks passed", s.passed, s.total)
}
