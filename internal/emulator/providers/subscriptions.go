package providers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// subscriptions is ARM's subscriptions API: the subscriptions the emulator
// knows (armcore.Tx.Subscriptions: the configured one and every one
// something is stored in), its one tenant, and the locations of a
// subscription. Unknown subscriptions are 404 SubscriptionNotFound.
type subscriptions struct{ c *armcore.Core }

// Route answers GET /subscriptions, /subscriptions/{s}, /tenants and
// /subscriptions/{s}/locations.
func (s subscriptions) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	switch t.Kind {
	case armpath.Subscriptions, armpath.Subscription, armpath.Tenants, armpath.Locations:
	default:
		return false, nil
	}
	if r.Method != http.MethodGet {
		return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on '%s'.", r.Method, r.URL.Path)
	}
	var err error
	_ = s.c.Read(func(tx armcore.Tx) error {
		switch t.Kind {
		case armpath.Subscriptions:
			subs := tx.Subscriptions()
			items := make([]any, len(subs))
			for i, sub := range subs {
				items[i] = subscriptionBody(tx, sub)
			}
			armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items, "count": map[string]any{"type": "Total", "value": len(items)}})
		case armpath.Tenants:
			armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": []any{tenantBody()}})
		case armpath.Subscription:
			if !tx.KnowsSubscription(t.Sub) {
				err = armcore.SubscriptionNotFound(t.Sub)
				return nil
			}
			armcore.WriteJSON(w, http.StatusOK, subscriptionBody(tx, t.Sub))
		case armpath.Locations:
			if !tx.KnowsSubscription(t.Sub) {
				err = armcore.SubscriptionNotFound(t.Sub)
				return nil
			}
			armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": locationsOf(t.Sub)})
		}
		return nil
	})
	return true, err
}

// subscriptionBody is a subscription as the subscriptions API shows it; its
// tags are those set through Microsoft.Resources/tags/default at its scope.
func subscriptionBody(tx armcore.Tx, sub string) map[string]any {
	body := map[string]any{
		"id": "/subscriptions/" + sub, "subscriptionId": sub, "tenantId": armcore.Tenant,
		"displayName": "Azk emulator subscription", "state": "Enabled", "authorizationSource": "RoleBased",
		"managedByTenants": []any{},
		"subscriptionPolicies": map[string]any{
			"locationPlacementId": "Public_2014-09-01", "quotaId": "PayAsYouGo_2014-09-01", "spendingLimit": "Off",
		},
	}
	if tags := scopeTags(tx, "/subscriptions/"+sub); len(tags) > 0 {
		body["tags"] = tags
	}
	return body
}

func tenantBody() map[string]any {
	return map[string]any{
		"id": "/tenants/" + armcore.Tenant, "tenantId": armcore.Tenant, "tenantCategory": "Home",
		"country": "United States", "countryCode": "US", "displayName": "Azk emulator",
		"domains": []string{"azkemulator.onmicrosoft.com"}, "defaultDomain": "azkemulator.onmicrosoft.com", "tenantType": "AAD",
	}
}

// region is one of Azure's public regions: its name, display name and
// geography group, as the subscriptions API lists them.
type region struct{ name, display, group string }

// regions are Azure's public physical regions (Microsoft's published list).
var regions = []region{
	{"eastus", "East US", "US"}, {"eastus2", "East US 2", "US"}, {"southcentralus", "South Central US", "US"},
	{"westus2", "West US 2", "US"}, {"westus3", "West US 3", "US"}, {"centralus", "Central US", "US"},
	{"northcentralus", "North Central US", "US"}, {"westus", "West US", "US"}, {"westcentralus", "West Central US", "US"},
	{"canadacentral", "Canada Central", "Canada"}, {"canadaeast", "Canada East", "Canada"},
	{"brazilsouth", "Brazil South", "South America"}, {"mexicocentral", "Mexico Central", "Mexico"},
	{"northeurope", "North Europe", "Europe"}, {"westeurope", "West Europe", "Europe"},
	{"swedencentral", "Sweden Central", "Europe"}, {"uksouth", "UK South", "UK"}, {"ukwest", "UK West", "UK"},
	{"francecentral", "France Central", "Europe"}, {"germanywestcentral", "Germany West Central", "Europe"},
	{"italynorth", "Italy North", "Europe"}, {"norwayeast", "Norway East", "Europe"}, {"polandcentral", "Poland Central", "Europe"},
	{"spaincentral", "Spain Central", "Europe"}, {"switzerlandnorth", "Switzerland North", "Europe"},
	{"australiaeast", "Australia East", "Asia Pacific"}, {"australiasoutheast", "Australia Southeast", "Asia Pacific"},
	{"australiacentral", "Australia Central", "Asia Pacific"}, {"southeastasia", "Southeast Asia", "Asia Pacific"},
	{"eastasia", "East Asia", "Asia Pacific"}, {"japaneast", "Japan East", "Asia Pacific"}, {"japanwest", "Japan West", "Asia Pacific"},
	{"koreacentral", "Korea Central", "Asia Pacific"}, {"koreasouth", "Korea South", "Asia Pacific"},
	{"centralindia", "Central India", "Asia Pacific"}, {"southindia", "South India", "Asia Pacific"},
	{"westindia", "West India", "Asia Pacific"}, {"uaenorth", "UAE North", "Middle East"},
	{"qatarcentral", "Qatar Central", "Middle East"}, {"israelcentral", "Israel Central", "Middle East"},
	{"southafricanorth", "South Africa North", "Africa"},
}

func locationsOf(sub string) []any {
	out := make([]any, len(regions))
	for i, reg := range regions {
		out[i] = map[string]any{
			"id": "/subscriptions/" + sub + "/locations/" + reg.name, "name": reg.name, "type": "Region",
			"displayName": reg.display, "regionalDisplayName": "(" + reg.group + ") " + reg.display,
			"metadata": map[string]any{"regionType": "Physical", "regionCategory": "Recommended", "geographyGroup": reg.group},
		}
	}
	return out
}

// scopeTags are the tags of a scope that has no record of its own (a
// subscription), kept in its tags/default record; nil when none.
func scopeTags(tx armcore.Tx, scope string) map[string]any {
	rec := tx.Live(armpath.Key(scope + tagsDefaultSuffix))
	if rec == nil {
		return nil
	}
	var m struct {
		Properties struct {
			Tags map[string]any `json:"tags"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(rec.Body, &m)
	return m.Properties.Tags
}

// tagsDefaultSuffix names a scope's tags resource.
const tagsDefaultSuffix = "/providers/Microsoft.Resources/tags/default"

// isTagsDefault reports whether t is a scope's Microsoft.Resources/tags/default.
func isTagsDefault(t armpath.Target) bool {
	return t.Kind == armpath.Resource && strings.EqualFold(t.Type, "Microsoft.Resources/tags") && strings.EqualFold(t.Name, "default")
}
