package manifestedit

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var (
	vnet = Object{Group: "network.azure.com", Kind: "VirtualNetwork", Namespace: "default", Name: "vnet"}
	path = func(keys ...string) []Step {
		var out []Step
		for _, k := range keys {
			out = append(out, Step{Key: k})
		}
		return out
	}
)

// Each case edits a file of testdata and compares it with its golden file;
// the line diff of before and after is exactly the lines whose values
// changed (or were inserted or taken out).
func TestEditsChangeOnlyTheirLines(t *testing.T) {
	for _, c := range []struct {
		name, file string
		edits      []Edit
		diff       []string
	}{
		{
			name: "crlf-4space", file: "crlf-4space.yaml",
			edits: []Edit{
				{Object: vnet, Path: path("spec", "addressSpace", "addressPrefixes"), Value: []any{"10.20.0.0/16", "10.40.0.0/16"}},
				{Object: vnet, Path: path("spec", "tags", "team"), Value: "platform"},
				{Object: vnet, Path: path("spec", "tags", "cost"), Value: "43"},
				{Object: vnet, Path: path("spec", "dhcpOptions"), Value: map[string]any{"dnsServers": []any{"10.0.0.4"}}},
			},
			diff: []string{
				"-            - 10.30.0.0/16   # old\r\n", "+            - 10.40.0.0/16   # old\r\n",
				"-        team: \"payments\"\r\n", "-        cost: '42'\r\n",
				"+        team: \"platform\"\r\n", "+        cost: '43'\r\n",
				"+    dhcpOptions:\r\n", "+        dnsServers:\r\n", "+            - 10.0.0.4\r\n",
			},
		},
		{
			name: "multidoc", file: "multidoc.yaml",
			edits: []Edit{
				{Object: vnet, Path: path("spec", "addressSpace", "addressPrefixes"), Value: []any{"10.0.0.0/16", "10.2.0.0/16"}},
				{Object: vnet, Path: path("spec", "dhcpOptions", "dnsServers"), Value: []any{"10.0.0.5", "10.0.0.6"}},
			},
			diff: []string{
				"-    addressPrefixes: [10.0.0.0/16, 10.1.0.0/16]   # flow\n", "+    addressPrefixes: [10.0.0.0/16, 10.2.0.0/16]   # flow\n",
				"-    - 10.0.0.4 # first\n", "+    - 10.0.0.6\n",
			},
		},
		{
			name: "nomarker", file: "nomarker.yaml",
			edits: []Edit{
				{Object: Object{Group: "resources.azure.com", Kind: "ResourceGroup", Namespace: "default", Name: "b"}, Path: path("spec", "location"), Value: "eastus"},
				{Object: Object{Group: "resources.azure.com", Kind: "ResourceGroup", Namespace: "default", Name: "a"}, Path: path("metadata", "annotations", "serviceoperator.azure.com/reconcile-policy"), Value: "manage"},
			},
			diff: []string{
				"+  annotations:\n", "+    serviceoperator.azure.com/reconcile-policy: manage\n",
				"-  location: westus2\n", "+  location: eastus\n",
			},
		},
		{
			name: "bom", file: "bom.yaml",
			edits: []Edit{{Object: Object{Group: "resources.azure.com", Kind: "ResourceGroup", Namespace: "default", Name: "bom"}, Path: path("spec", "location"), Value: "eastus"}},
			diff:  []string{"-  location: westus2 # region\n", "+  location: eastus # region\n"},
		},
		{
			name: "list", file: "list.yaml",
			edits: []Edit{
				{Object: Object{Group: "storage.azure.com", Kind: "StorageAccount", Namespace: "default", Name: "two"}, Path: path("spec", "sku", "name"), Value: "Standard_GRS"},
				{Object: Object{Group: "resources.azure.com", Kind: "ResourceGroup", Namespace: "default", Name: "one"}, Path: path("spec", "tags"), Value: map[string]any{"env": "prod"}},
			},
			diff: []string{
				"+    tags:\n", "+      env: prod\n",
				"-    sku: {name: Standard_LRS}\n", "+    sku: {name: Standard_GRS}\n",
			},
		},
		{
			name: "scalars", file: "scalars.yaml",
			edits: []Edit{
				{Object: Object{Group: "insights.azure.com", Kind: "ScheduledQueryRule", Namespace: "default", Name: "rule"}, Path: path("spec", "severity"), Value: 2},
				{Object: Object{Group: "insights.azure.com", Kind: "ScheduledQueryRule", Namespace: "default", Name: "rule"}, Path: path("spec", "displayName"), Value: "Heartbeat's rule"},
			},
			diff: []string{
				"-  displayName: 'Heartbeat rule'\n", "-  severity: 3\n",
				"+  displayName: 'Heartbeat''s rule'\n", "+  severity: 2\n",
			},
		},
		{
			name: "literal", file: "scalars.yaml",
			edits: []Edit{
				{Object: Object{Group: "insights.azure.com", Kind: "ScheduledQueryRule", Namespace: "default", Name: "rule"}, Path: path("spec", "query"), Value: "Heartbeat\n| where TimeGenerated > ago(10m)\n"},
			},
			diff: []string{
				"-    | where TimeGenerated > ago(5m)\n", "+    | where TimeGenerated > ago(10m)\n",
			},
		},
		{
			name: "json", file: "manifest.json",
			edits: []Edit{
				{Object: vnet, Path: path("spec", "addressSpace", "addressPrefixes"), Value: []any{"10.0.0.0/16", "10.1.0.0/16"}},
				{Object: vnet, Path: path("spec", "tags", "owner"), Value: "portal"},
				{Object: vnet, Path: path("spec", "dhcpOptions"), Value: map[string]any{"dnsServers": []any{"10.0.0.4"}}},
				{Object: vnet, Path: path("spec", "location"), Remove: true},
			},
			diff: []string{
				"-        \"location\": \"westus2\",\n",
				"-                \"10.0.0.0/16\"\n", "+                \"10.0.0.0/16\",\n", "+                \"10.1.0.0/16\"\n",
				"-        \"tags\": {\"team\": \"a\"}\n", "+        \"tags\": {\"team\": \"a\", \"owner\": \"portal\"},\n",
				"+        \"dhcpOptions\": {\n", "+            \"dnsServers\": [\n", "+                \"10.0.0.4\"\n", "+            ]\n", "+        }\n",
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			after, skipped, err := Apply(before, c.edits)
			if err != nil {
				t.Fatal(err)
			}
			for i, why := range skipped {
				if why != "" {
					t.Errorf("edit %d skipped: %s", i, why)
				}
			}
			ext := filepath.Ext(c.file)
			golden := filepath.Join("testdata", c.name+".golden"+ext)
			if *update {
				if err := os.WriteFile(golden, after, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(after) != string(want) {
				t.Errorf("edited file differs from %s:\n%s", golden, after)
			}
			if got := testkit.LineDiff(before, after); !slices.Equal(got, c.diff) {
				t.Errorf("line diff:\n%s\nwant:\n%s", strings.Join(got, ""), strings.Join(c.diff, ""))
			}
		})
	}
}
