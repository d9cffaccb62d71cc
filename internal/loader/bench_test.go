package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/diag"
)

// benchmarkTemplates are typical ASO manifests; %[1]d makes names unique.
var benchmarkTemplates = []string{
	`apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg-%[1]d
  namespace: bench
spec:
  location: westeurope
  tags:
    env: bench
    owner: platform
`,
	`apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet-%[1]d
  namespace: bench
spec:
  owner:
    name: rg-%[1]d
  location: westeurope
  addressSpace:
    addressPrefixes:
      - 10.0.0.0/16
      - 10.1.0.0/16
  dhcpOptions:
    dnsServers: ["10.0.0.4", "10.0.0.5"]
`,
	`apiVersion: storage.azure.com/v1api20230101
kind: StorageAccount
metadata:
  name: sa%[1]d
  namespace: bench
  annotations:
    serviceoperator.azure.com/reconcile-policy: manage
spec:
  owner:
    name: rg-%[1]d
  location: westeurope
  kind: StorageV2
  sku:
    name: Standard_LRS
  accessTier: Hot
  minimumTlsVersion: TLS1_2
  networkAcls:
    defaultAction: Deny
    bypass: AzureServices
    virtualNetworkRules:
      - reference:
          group: network.azure.com
          kind: VirtualNetworksSubnet
          name: subnet-%[1]d
  operatorSpec:
    secrets:
      key1:
        name: sa%[1]d-keys
        key: key1
`,
	`apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedCluster
metadata:
  name: aks-%[1]d
  namespace: bench
spec:
  owner:
    name: rg-%[1]d
  location: westeurope
  dnsPrefix: aks%[1]d
  identity:
    type: SystemAssigned
  agentPoolProfiles:
    - name: system
      count: 3
      vmSize: Standard_D4s_v5
      mode: System
      osType: Linux
      vnetSubnetReference:
        group: network.azure.com
        kind: VirtualNetworksSubnet
        name: subnet-%[1]d
  networkProfile:
    networkPlugin: azure
    serviceCidr: 10.100.0.0/16
    dnsServiceIP: 10.100.0.10
`,
}

// BenchmarkLoad loads one multi-document file of 10,000 ASO resources.
func BenchmarkLoad(b *testing.B) {
	const resources = 10000
	var sb strings.Builder
	for i := range resources {
		if i > 0 {
			sb.WriteString("---\n")
		}
		fmt.Fprintf(&sb, benchmarkTemplates[i%len(benchmarkTemplates)], i)
	}
	path := filepath.Join(b.TempDir(), "bench.yaml")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(sb.Len()))
	b.ReportAllocs()
	var res *Result
	for b.Loop() {
		var diags diag.List
		res, diags = Load(Options{Paths: []string{path}})
		if len(diags) != 0 || len(res.Resources) != resources {
			b.Fatalf("loaded %d resources, diagnostics: %v", len(res.Resources), diags)
		}
	}
	// live-MB is what the result keeps for later stages, unlike B/op which
	// also counts garbage.
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(res)
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "live-MB")
}
