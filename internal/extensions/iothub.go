package extensions

// Microsoft.Devices/IotHubs: the operator's devices/iot_hub_extensions.go
// exports the keys of the hub's built-in shared access policies (listkeys,
// found by keyName). Key lists have one page; the operator's pager would
// follow a nextLink.
func init() {
	values := map[string]string{}
	for _, p := range []struct{ prefix, policy string }{
		{"iotHubOwner", "iothubowner"}, {"service", "service"}, {"device", "device"},
		{"registryRead", "registryRead"}, {"registryReadWrite", "registryReadWrite"},
	} {
		item := "value[keyName=" + p.policy + "]."
		values[p.prefix+"PrimaryKey"] = item + "primaryKey"
		values[p.prefix+"SecondaryKey"] = item + "secondaryKey"
	}
	register("Microsoft.Devices/IotHubs", &keyExporter{reads: []keyRead{{action: "listkeys", values: values}}})
}
