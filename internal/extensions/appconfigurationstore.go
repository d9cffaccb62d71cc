package extensions

// Microsoft.AppConfiguration/configurationStores: the operator's
// appconfiguration/configuration_store_extensions.go exports the ID, value
// and connection string of the store's four access keys (listKeys, which
// names them Primary, Secondary, Primary Read Only and Secondary Read Only).
// Key lists have one page; the operator's pager would follow a nextLink.
func init() {
	values := map[string]string{}
	for _, k := range []struct{ prefix, name string }{
		{"primary", "Primary"}, {"secondary", "Secondary"},
		{"primaryReadOnly", "Primary Read Only"}, {"secondaryReadOnly", "Secondary Read Only"},
	} {
		item := "value[name=" + k.name + "]."
		values[k.prefix+"KeyID"] = item + "id"
		values[k.prefix+"Key"] = item + "value"
		values[k.prefix+"ConnectionString"] = item + "connectionString"
	}
	register("Microsoft.AppConfiguration/configurationStores", &keyExporter{reads: []keyRead{{action: "listKeys", values: values}}})
}
