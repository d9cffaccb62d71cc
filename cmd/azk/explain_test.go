package main

import (
	"strings"
	"testing"
)

func TestExplainAndAPIResources(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"explain-subnet-nsg.text", []string{"explain", "VirtualNetworksSubnet.networkSecurityGroup", "--api-version", "network.azure.com/v1api20201101"}},
		{"explain-rule.text", []string{"explain", "NetworkSecurityGroupsSecurityRule", "--api-version", "v1api20201101"}},
		{"api-resources-resources.text", []string{"api-resources", "--api-group", "resources.azure.com", "-o", "wide"}},
	} {
		out, errOut, code := azk(t, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		golden(t, c.golden, out)
	}
	if _, errOut, code := azk(t, "", "explain", "VirtualNetwrok"); code != 1 || !strings.Contains(errOut, "did you mean VirtualNetwork?") {
		t.Errorf("explain VirtualNetwrok: exit %d, %q", code, errOut)
	}
}

// TestCompletion asks cobra's completion entry point what the shell would
// offer for flag values and explain's argument.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "plan", "-o", ""}, []string{"text\n", "json\n", "yaml\n", "markdown\n", "name\n"}},
		{[]string{"__complete", "apply", "--reconcile-policy-if-exists", ""}, []string{"manage\n", "detach-on-delete\n", "skip\n"}},
		{[]string{"__complete", "plan", quickstart, "--target", ""}, []string{"ResourceGroup/azk-quickstart\n", "VirtualNetworksSubnet/web\n"}},
		{[]string{"__complete", "explain", "VirtualNetworksSub"}, []string{"VirtualNetworksSubnet\n"}},
		{[]string{"__complete", "explain", "VirtualNetwork.addressSp"}, []string{"VirtualNetwork.addressSpace\n"}},
	} {
		out, errOut, code := azk(t, "", c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
		}
		mustContain(t, strings.Join(c.args, " "), out, c.want...)
	}
}
