package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// EstateShape is an enterprise estate: Subscriptions landing-zone
// subscriptions of Zones resource groups each (the landing zone's 48
// resources: see LandingZone), every zone's network a spoke peered with
// the hub (a resource group and network in the first subscription, peered
// back with every spoke), and RoleAssignments role assignments at each
// subscription's scope. Every resource of a subscription acts as its
// credential (serviceoperator.azure.com/credential-from), whose Secret
// names the subscription.
type EstateShape struct {
	Subscriptions, Zones, RoleAssignments int
}

// Resources is how many resources the estate has.
func (s EstateShape) Resources() int {
	spokes := s.Subscriptions * s.Zones
	return spokes*48 + spokes + s.Subscriptions*s.RoleAssignments + 2 + spokes
}

// EstateSubscription is the ID of the estate's subscription i.
func EstateSubscription(i int) string {
	return fmt.Sprintf("00000000-0000-0000-0000-%012d", 100+i)
}

// builtInReader is the ID of Azure's built-in Reader role definition.
const builtInReader = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

// Estate writes the estate's manifests into dir, a file per subscription
// and zone, then loads and resolves them.
func Estate(dir string, shape EstateShape) (*Input, error) {
	tmpl, err := templateSet()
	if err != nil {
		return nil, err
	}
	for s := range shape.Subscriptions {
		var secret, b bytes.Buffer
		sub := EstateSubscription(s)
		fmt.Fprintf(&secret, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\nstringData:\n  AZURE_SUBSCRIPTION_ID: %s\n  AZURE_TENANT_ID: 00000000-0000-0000-0000-000000000001\n  AZURE_CLIENT_ID: 00000000-0000-0000-0000-%012d\n  AZURE_CLIENT_SECRET: estate-benchmark\n",
			credentialOf(s), sub, 200+s)
		for i := range shape.RoleAssignments {
			fmt.Fprintf(&b, "---\napiVersion: authorization.azure.com/v1api20220401\nkind: RoleAssignment\nmetadata:\n  name: s%02d-reader-%02d\nspec:\n  owner:\n    armId: /subscriptions/%s\n  principalId: 00000000-0000-0000-%04d-%012d\n  principalType: Group\n  roleDefinitionReference:\n    armId: /subscriptions/%s/providers/Microsoft.Authorization/roleDefinitions/%s\n",
				s, i, sub, s, i, sub, builtInReader)
		}
		if s == 0 {
			b.WriteString(hub(shape))
		}
		if err := writeFile(dir, fmt.Sprintf("sub%02d.yaml", s), secret.String()+annotate(b.String(), credentialOf(s))); err != nil {
			return nil, err
		}
		for z := range shape.Zones {
			zone := zoneName(s, z)
			var doc bytes.Buffer
			if err := tmpl.ExecuteTemplate(&doc, "landingzone.yaml.tmpl", zoneData(zone, z)); err != nil {
				return nil, err
			}
			fmt.Fprintf(&doc, "---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksVirtualNetworkPeering\nmetadata:\n  name: lz%s-to-hub\nspec:\n  azureName: to-hub\n  owner:\n    name: lz%s-vnet\n  allowVirtualNetworkAccess: true\n  allowForwardedTraffic: true\n  useRemoteGateways: false\n  remoteVirtualNetwork:\n    reference:\n      group: network.azure.com\n      kind: VirtualNetwork\n      name: hub-vnet\n",
				zone, zone)
			if err := writeFile(dir, fmt.Sprintf("sub%02d-zone%02d.yaml", s, z), annotate(doc.String(), credentialOf(s))); err != nil {
				return nil, err
			}
		}
	}
	res, diags := loader.Load(loader.Options{Paths: []string{dir}})
	g, more := graph.Build(res, graph.Options{Subscription: EstateSubscription(0)})
	if err := append(diags, more...).Err(); err != nil {
		return nil, err
	}
	return &Input{Dir: dir, Graph: g}, nil
}

func credentialOf(s int) string { return fmt.Sprintf("sub-%02d", s) }

// zoneName is a zone's four digits: its subscription's and its own.
func zoneName(s, z int) string { return fmt.Sprintf("%02d%02d", s, z) }

// hub is the hub's resource group and network, peered with every spoke.
func hub(shape EstateShape) string {
	var b strings.Builder
	b.WriteString("---\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: hub\nspec:\n  location: westus2\n")
	b.WriteString("---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetwork\nmetadata:\n  name: hub-vnet\nspec:\n  location: westus2\n  owner:\n    name: hub\n  addressSpace:\n    addressPrefixes: [\"10.255.0.0/16\"]\n")
	for s := range shape.Subscriptions {
		for z := range shape.Zones {
			zone := zoneName(s, z)
			fmt.Fprintf(&b, "---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksVirtualNetworkPeering\nmetadata:\n  name: hub-to-%s\nspec:\n  azureName: to-lz%s\n  owner:\n    name: hub-vnet\n  allowVirtualNetworkAccess: true\n  allowForwardedTraffic: true\n  allowGatewayTransit: false\n  remoteVirtualNetwork:\n    reference:\n      group: network.azure.com\n      kind: VirtualNetwork\n      name: lz%s-vnet\n",
				zone, zone, zone)
		}
	}
	return b.String()
}

// annotate makes every object of the documents act as the credential.
func annotate(docs, credential string) string {
	return strings.ReplaceAll(docs, "\nmetadata:\n", "\nmetadata:\n  annotations:\n    serviceoperator.azure.com/credential-from: "+credential+"\n")
}

func templateSet() (*template.Template, error) {
	return template.New("").Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
		"mod": func(a, b int) int { return a % b },
	}).ParseFS(templates, "testdata/*.tmpl")
}

func zoneData(zone string, octet int) map[string]any {
	return map[string]any{
		"Zone": zone, "Octet": octet,
		"Two": []int{0, 1}, "Three": []int{0, 1, 2}, "Four": []int{0, 1, 2, 3}, "Eight": []int{0, 1, 2, 3, 4, 5, 6, 7},
		"Endpoints": []endpoint{{0, "blob"}, {1, "blob"}, {0, "file"}},
	}
}

func writeFile(dir, name, text string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
}
