package corpusgen

import "testing"

// TestCreateOnlyText: the wordings that say a value is given only at
// creation, and the conditional, partial or unrelated ones that do not.
// The sentences are azk's own, shaped like the specifications' wording.
func TestCreateOnlyText(t *testing.T) {
	const vm = "Microsoft.Compute/virtualMachines properties.osProfile.computerName"
	cases := []struct {
		text, subject string
		want          bool
	}{
		{"The region. This cannot be changed after the resource is created.", vm, true},
		{"The mode. May not be changed after creation. See the docs.", vm, true},
		{"The host name. This name cannot be updated after the VM is created.", vm, true},
		{"The kind of account. This can only be set at database account creation.", "Microsoft.DocumentDB/databaseAccounts kind", true},
		{"The login. Can only be specified when the server is being created (and is required for creation).", "Microsoft.Sql/servers properties.administratorLogin", true},
		{"The port. Specified at create time. Defaults to any port.", "Microsoft.Cache/redisEnterprise/databases properties.port", true},
		{"The tier. This property is not updatable.", vm, true},
		{"The group, used only in creation scenario and not allowed to changed once set.", vm, true},
		{"The flag. The property is immutable and can only be set to true at the account creation time.", "Microsoft.Storage/storageAccounts properties.x", true},
		{"The zone. Extended location cannot be changed.", vm, true},
		{"The modules; modules can only be added at creation time.", vm, true},
		{"The routing. This can only be set at cluster creation time and cannot be changed later.", "Microsoft.ContainerService/managedClusters properties.networkProfile.outboundType", true},
		{"The driver. This cannot be changed once the AgentPool has been created.", "Microsoft.ContainerService/managedClusters properties.agentPoolProfiles[].gpuProfile.driverType", true},

		// Not about this resource: a VM's disk settings shared with scale sets.
		{"The disk type. The OS disk type can only be set when you create the scale set.", "Microsoft.Compute/virtualMachines properties.storageProfile.osDisk.managedDisk.storageAccountType", false},
		{"The disk type. The OS disk type can only be set when you create the scale set.", "Microsoft.Compute/virtualMachineScaleSets properties.virtualMachineProfile.storageProfile.osDisk.managedDisk.storageAccountType", true},
		{"Floating IP. This setting can't be changed after you create the endpoint.", "Microsoft.Network/loadBalancers properties.loadBalancingRules[].properties.enableFloatingIP", false},
		// Conditional, partial or the opposite.
		{"The OS settings. Some of the settings cannot be changed once the VM is provisioned or created.", vm, false},
		{"The state. It cannot be changed if the link is created in auto-approval mode.", vm, false},
		{"The tags. This can only be specified when the account was created with pool allocation mode UserSubscription.", vm, false},
		{"Taints. This field can be modified after the node pool is created.", vm, false},
		{"The creation time of the server.", vm, false},
		{"Whether append writes are allowed. Existing blocks cannot be modified or deleted.", vm, false},
		{"This is populated once the storage account is created.", vm, false},
		{"", vm, false},
	}
	for _, c := range cases {
		if got := createOnlyText(c.text, c.subject); got != c.want {
			t.Errorf("createOnlyText(%q, %q) = %v, want %v", c.text, c.subject, got, c.want)
		}
	}
}
