package extensions

import "strings"

// Microsoft.OperationalInsights/workspaces: the legacy Standalone and
// PerNode pricing tiers are not available to workspaces created since
// April 2018 (Azure Monitor documentation, "Legacy pricing tiers"): a new
// workspace sent one of them gets PerGB2018.
//
// The operator's operationalinsights/workspace_extension.go exports the
// shared keys (sharedKeys).
type logAnalyticsWorkspace struct {
	storedAsSent
	*keyExporter
}

func init() {
	register("Microsoft.OperationalInsights/workspaces", logAnalyticsWorkspace{keyExporter: &keyExporter{
		reads: []keyRead{sameNames("sharedKeys", "primarySharedKey", "secondarySharedKey")},
	}})
}

func (logAnalyticsWorkspace) Equivalent(path string, want, have any) bool {
	w, _ := want.(string)
	h, _ := have.(string)
	return path == "properties.sku.name" && (strings.EqualFold(w, "Standalone") || strings.EqualFold(w, "PerNode")) && strings.EqualFold(h, "PerGB2018")
}
