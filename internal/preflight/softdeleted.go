package preflight

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/planner"
)

// softDeletedKind is a type whose deleted resources keep their name for a
// while: ARM serves each at a deleted path of its own, and a create of the
// name fails (or recovers it) until it is purged.
type softDeletedKind struct {
	// path is the deleted resource's ARM path.
	path func(sub, rg, loc, name string) string
	// recovers: the desired body already asks to recover (or to purge first,
	// purges is then true) what the name holds.
	recovers func(body map[string]any) (recover, purges bool)
	// recoverHow and purgeHow are the recipe's steps, formatted with the
	// name, the resource group and the location.
	recoverHow, purgeHow string
}

// softDeletedKinds are the kinds that keep deleted names, by ARM type
// (lower case). Each deleted path is in the resource's own REST spec, so the
// resource's api-version serves it.
var softDeletedKinds = map[string]softDeletedKind{
	"microsoft.keyvault/vaults": {
		path: func(sub, _, loc, name string) string {
			return "/subscriptions/" + sub + "/providers/Microsoft.KeyVault/locations/" + loc + "/deletedVaults/" + name
		},
		recovers: func(body map[string]any) (bool, bool) {
			// createOrRecover and purgeThenCreate are the operator's own modes.
			switch mode, _ := armjson.Lookup(body, []string{"properties", "createMode"}); mode {
			case "recover", "createOrRecover":
				return true, false
			case "purgeThenCreate":
				return true, true
			}
			return false, false
		},
		recoverHow: "set spec.properties.createMode: recover (or the operator's createOrRecover) to recover it",
		purgeHow:   "az keyvault purge --name %[1]s --location %[3]s",
	},
	"microsoft.appconfiguration/configurationstores": {
		path: func(sub, _, loc, name string) string {
			return "/subscriptions/" + sub + "/providers/Microsoft.AppConfiguration/locations/" + loc + "/deletedConfigurationStores/" + name
		},
		recovers: func(body map[string]any) (bool, bool) {
			mode, _ := armjson.Lookup(body, []string{"properties", "createMode"})
			return mode == "Recover", false
		},
		recoverHow: "set spec.createMode: Recover to recover it",
		purgeHow:   "az appconfig purge --name %[1]s --location %[3]s",
	},
	"microsoft.cognitiveservices/accounts": {
		path: func(sub, rg, loc, name string) string {
			return "/subscriptions/" + sub + "/providers/Microsoft.CognitiveServices/locations/" + loc + "/resourceGroups/" + rg + "/deletedAccounts/" + name
		},
		recovers:   restores,
		recoverHow: "set spec.properties.restore: true to recover it",
		purgeHow:   "az cognitiveservices account purge --name %[1]s --resource-group %[2]s --location %[3]s",
	},
	"microsoft.apimanagement/service": {
		path: func(sub, _, loc, name string) string {
			return "/subscriptions/" + sub + "/providers/Microsoft.ApiManagement/locations/" + loc + "/deletedservices/" + name
		},
		recovers:   restores,
		recoverHow: "set spec.restore: true to recover it",
		purgeHow:   "az apim deletedservice purge --service-name %[1]s --location %[3]s",
	},
}

func restores(body map[string]any) (bool, bool) {
	v, _ := armjson.Lookup(body, []string{"properties", "restore"})
	return v == true, false
}

// softDeleted asks, for each create of a kind that keeps deleted names,
// whether a deleted resource of that name waits in the subscription and
// location. One does: the create fails (ARM's ConflictError for a vault), an
// error (SoftDeletedName) with the recipe: recover it, purge it (unless purge
// protection keeps it: then until when), or choose another name. A body
// that recovers it (or purges it first, which purge protection forbids)
// is told so (SoftDeletedRecovered, info).
func softDeleted(r *run) []planner.Finding {
	var out []planner.Finding
	for _, res := range r.writes() {
		kind, ok := softDeletedKinds[strings.ToLower(res.ARMType)]
		if res.Action != planner.ActionCreate || !ok {
			continue
		}
		sub, rg := scopeOf(res.ARMID)
		loc, name := location(res), lastSegment(res.ARMID)
		if sub == "" || loc == "" {
			continue
		}
		resp, err := r.client.Get(r.ctx, kind.path(sub, rg, loc, name), res.APIVersion)
		if arm.IsNotFound(err) {
			continue
		}
		if err != nil {
			out = append(out, checkFailed(res, "soft-deleted", err))
			continue
		}
		var deleted struct {
			Properties struct {
				ScheduledPurgeDate     string `json:"scheduledPurgeDate"`
				PurgeProtectionEnabled bool   `json:"purgeProtectionEnabled"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(resp.Body, &deleted); err != nil {
			out = append(out, checkFailed(res, "soft-deleted", fmt.Errorf("reading the deleted %s: %w", name, err)))
			continue
		}
		recovers, purges := kind.recovers(res.Desired)
		protected := deleted.Properties.PurgeProtectionEnabled
		if recovers && (!purges || !protected) {
			what := "recovers"
			if purges {
				what = "purges, then creates anew,"
			}
			out = append(out, finding(res, "soft-deleted", "SoftDeletedRecovered", planner.SeverityInfo,
				"apply %s the deleted %s named %q in %s, as the body asks", what, res.ARMType, name, loc))
			continue
		}
		until := ""
		if d := deleted.Properties.ScheduledPurgeDate; d != "" {
			until = " until " + d
			if t, err := time.Parse(time.RFC3339, d); err == nil {
				until = " until " + t.UTC().Format("2006-01-02 15:04 UTC")
			}
		}
		purge := "purge it first (" + fmt.Sprintf(kind.purgeHow, name, rg, loc) + ")"
		if protected {
			purge = "it cannot be purged: purge protection keeps it" + until
		}
		out = append(out, finding(res, "soft-deleted", "SoftDeletedName", planner.SeverityError,
			"a deleted %s named %q in %s holds the name%s, so creating it fails: %s; %s; or choose another name",
			res.ARMType, name, loc, until, kind.recoverHow, purge))
	}
	return out
}

// withoutNameTakenBySoftDeleted leaves out the names check's
// NameAlreadyTaken on a resource whose name a soft-deleted one of the
// subscription holds: the name check answers "taken" for it too, but the
// name is the caller's own to recover or purge, which SoftDeletedName says.
func withoutNameTakenBySoftDeleted(findings []planner.Finding) []planner.Finding {
	held := map[string]bool{}
	for _, f := range findings {
		if f.Code == "SoftDeletedName" || f.Code == "SoftDeletedRecovered" {
			held[f.Address] = true
		}
	}
	out := findings[:0]
	for _, f := range findings {
		if !(f.Code == "NameAlreadyTaken" && held[f.Address]) {
			out = append(out, f)
		}
	}
	return out
}
