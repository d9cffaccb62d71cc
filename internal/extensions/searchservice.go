package extensions

// Microsoft.Search/searchServices: the operator's
// search/search_service_extension.go exports the admin keys (listAdminKeys)
// and the default query key, the one without a name (listQueryKeys). It
// hands secretExpressions the primary admin key as secret.adminSecondaryKey
// and never the query key; azk does the same.
func init() {
	register("Microsoft.Search/searchServices", &keyExporter{
		reads: []keyRead{
			{action: "listQueryKeys", values: map[string]string{"queryKey": "value[!name].key"}},
			{action: "listAdminKeys", values: map[string]string{"adminPrimaryKey": "primaryKey", "adminSecondaryKey": "secondaryKey"}},
		},
		rawAs:  map[string]string{"adminSecondaryKey": "adminPrimaryKey"},
		notRaw: []string{"queryKey"},
	})
}
