package providers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
	"github.com/azkcli/azk/internal/registry"
)

// exportTemplate is POST /subscriptions/{s}/resourceGroups/{rg}/exportTemplate:
// a template of the group's resources, each top-level name a parameter,
// answered as ARM does at its current api-versions, as a long-running
// operation (202 with a Location whose result is the export). The request
// names the resources ("*" for all) and the options; resources it names that
// the group lacks are reported in the result's error, the rest exported.
type exportTemplate struct{ c *armcore.Core }

// The export options ARM documents.
const (
	optionDefaultValues = "includeparameterdefaultvalue"
	optionComments      = "includecomments"
	optionSkipNames     = "skipresourcenameparameterization"
	optionSkipAll       = "skipallparameterization"
)

// Route answers the POST of a group's exportTemplate.
func (e exportTemplate) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) (bool, error) {
	if t.Kind != armpath.GroupAction || !strings.EqualFold(t.Name, "exportTemplate") {
		return false, nil
	}
	if r.Method != http.MethodPost {
		return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "exportTemplate only answers POST.")
	}
	var req struct {
		Resources    []string `json:"resources"`
		Options      string   `json:"options"`
		OutputFormat string   `json:"outputFormat"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return true, armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The export request is not an ExportTemplateRequest: %v", err)
	}
	if len(req.Resources) == 0 {
		return true, armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The export request needs 'resources': the resource IDs to export, or [\"*\"] for all.")
	}
	if req.OutputFormat != "" && !strings.EqualFold(req.OutputFormat, "Json") {
		return true, armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The emulator exports templates as Json only, not '%s'.", req.OutputFormat)
	}
	options := map[string]bool{}
	for o := range strings.SplitSeq(req.Options, ",") {
		o = strings.ToLower(strings.TrimSpace(o))
		if o == "" {
			continue
		}
		if !slices.Contains([]string{optionDefaultValues, optionComments, optionSkipNames, optionSkipAll}, o) {
			return true, armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent",
				"The export option '%s' is not one of IncludeParameterDefaultValue, IncludeComments, SkipResourceNameParameterization, SkipAllParameterization.", o)
		}
		options[o] = true
	}
	return true, e.c.Write(func(tx armcore.Tx) error {
		if !tx.KnowsSubscription(t.Sub) {
			return armcore.SubscriptionNotFound(t.Sub)
		}
		group := tx.Live(armpath.Key(t.Parent))
		if group == nil {
			return armcore.Errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", t.RG)
		}
		result := export(tx, group, req.Resources, options)
		answer, err := json.Marshal(result)
		if err != nil {
			return err
		}
		now := time.Now()
		op := &store.Operation{ID: tx.NewUUID(), Resource: group.ID, Method: http.MethodPost, APIVersion: r.URL.Query().Get("api-version"),
			Start: now, Until: now, Result: answer}
		if err := tx.Store().PutOp(op); err != nil {
			return err
		}
		w.Header().Set("Location", armcore.OperationURL(r, group, op, true))
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusAccepted)
		return nil
	})
}

// export builds the ResourceGroupExportResult of the group's resources that wanted names.
func export(tx armcore.Tx, group *store.Record, wanted []string, options map[string]bool) map[string]any {
	var all []*store.Record
	var walk func(k string)
	walk = func(k string) {
		for kid := range tx.Store().Children(k) {
			rec := tx.Live(kid)
			if rec == nil {
				continue
			}
			if !isExtension(group.ID, rec.ID) {
				all = append(all, rec)
			}
			walk(kid)
		}
	}
	walk(armpath.Key(group.ID))
	sort.Slice(all, func(i, j int) bool { return armpath.Key(all[i].ID) < armpath.Key(all[j].ID) })

	exportAll := slices.Contains(wanted, "*")
	var chosen []*store.Record
	var missing []any
	if exportAll {
		chosen = all
	} else {
		for _, id := range wanted {
			i := slices.IndexFunc(all, func(rec *store.Record) bool { return strings.EqualFold(rec.ID, id) })
			if i < 0 {
				missing = append(missing, map[string]any{"code": "ResourceNotFound", "target": id,
					"message": fmt.Sprintf("The resource '%s' is not in resource group '%s'.", id, lastSegment(group.ID))})
				continue
			}
			chosen = append(chosen, all[i])
		}
	}
	names := nameExpressions{group: group.ID, literal: options[optionSkipNames] || options[optionSkipAll], parameters: map[string]string{}}
	var resources []any
	for _, rec := range chosen {
		resources = append(resources, names.resource(rec, options))
	}
	parameters := map[string]any{}
	for p, name := range names.parameters {
		spec := map[string]any{"type": "String"}
		if options[optionDefaultValues] {
			spec["defaultValue"] = name
		}
		parameters[p] = spec
	}
	if resources == nil {
		resources = []any{}
	}
	result := map[string]any{"template": map[string]any{
		"$schema":        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
		"contentVersion": "1.0.0.0",
		"parameters":     parameters,
		"variables":      map[string]any{},
		"resources":      resources,
	}}
	if len(missing) > 0 {
		result["error"] = map[string]any{"code": "ExportTemplateCompletedWithErrors",
			"message": "Export template operation completed with errors. Some resources were not exported. Please see details for more information.",
			"details": missing}
	}
	return result
}

// isExtension reports whether id is an extension resource (a second
// provider segment under the group), which the export leaves out.
func isExtension(groupID, id string) bool {
	return strings.Count(strings.ToLower(id[len(groupID):]), "/providers/") > 1
}

// nameExpressions writes the names of exported resources: each top-level
// name a String parameter ({type}_{name}_name, as ARM names them), child
// names under it, or every name literal.
type nameExpressions struct {
	group      string
	literal    bool
	parameters map[string]string // parameter -> the name it stands for
}

var notParameterName = regexp.MustCompile(`[^A-Za-z0-9_]`)

// segments are the types and names of a resource below the group: the
// top-level type's namespace/type and name, then each child type and name.
func segments(group, id string) (types, names []string) {
	rest := strings.Split(strings.TrimPrefix(id[len(group):], "/providers/"), "/")
	types, names = []string{rest[0] + "/" + rest[1]}, []string{rest[2]}
	for i := 3; i+1 < len(rest); i += 2 {
		types, names = append(types, rest[i]), append(names, rest[i+1])
	}
	return types, names
}

// parameter is the parameter expression naming the top-level resource of types/names.
func (n nameExpressions) parameter(types, names []string) string {
	p := notParameterName.ReplaceAllString(lastSegment(types[0])+"_"+names[0]+"_name", "_")
	n.parameters[p] = names[0]
	return "parameters('" + p + "')"
}

func (n nameExpressions) resource(rec *store.Record, options map[string]bool) map[string]any {
	types, names := segments(n.group, rec.ID)
	var name string
	var args []string // resourceId's name arguments of the parent
	if n.literal {
		name = strings.Join(names, "/")
		for _, s := range names[:len(names)-1] {
			args = append(args, "'"+s+"'")
		}
	} else {
		top := n.parameter(types, names)
		if len(names) == 1 {
			name = "[" + top + "]"
		} else {
			name = "[concat(" + top + ", '/" + strings.Join(names[1:], "/") + "')]"
			args = append(args, top)
			for _, s := range names[1 : len(names)-1] {
				args = append(args, "'"+s+"'")
			}
		}
	}
	var body map[string]any
	_ = json.Unmarshal(rec.Body, &body)
	out := map[string]any{"type": rec.Type, "apiVersion": exportAPIVersion(rec.Type), "name": name}
	for _, f := range []string{"location", "tags", "sku", "kind", "zones", "plan", "extendedLocation"} {
		if v, ok := body[f]; ok {
			out[f] = v
		}
	}
	if id, ok := body["identity"].(map[string]any); ok {
		kept := map[string]any{"type": id["type"]}
		if ua, ok := id["userAssignedIdentities"].(map[string]any); ok {
			refs := map[string]any{}
			for k := range ua {
				refs[k] = map[string]any{}
			}
			kept["userAssignedIdentities"] = refs
		}
		out["identity"] = kept
	}
	if props, ok := body["properties"].(map[string]any); ok {
		out["properties"] = props
		dropReturnedOnly(rec.Type, out)
		delete(props, "provisioningState")
		delete(props, "resourceGuid")
	}
	if len(types) > 1 {
		parentType := strings.Join(types[:len(types)-1], "/")
		out["dependsOn"] = []any{"[resourceId('" + parentType + "', " + strings.Join(args, ", ") + ")]"}
	}
	if options[optionComments] {
		out["comments"] = fmt.Sprintf("Generalized from resource: '%s'.", rec.ID)
	}
	return out
}

// exportAPIVersion is the newest stable api-version the type serves, as an
// export writes the current one; the newest of any when none is stable.
func exportAPIVersion(typ string) string {
	arm := armcore.ARMType(typ)
	if arm == nil || len(arm.APIVersions) == 0 {
		return ""
	}
	versions := slices.Clone(arm.APIVersions)
	sort.Strings(versions)
	for i := len(versions) - 1; i >= 0; i-- {
		if !strings.Contains(versions[i], "preview") {
			return versions[i]
		}
	}
	return versions[len(versions)-1]
}

// dropReturnedOnly removes from an exported resource what the REST
// specification says ARM sets and no PUT does (registry.BodyFacts'
// ReturnedOnly and ReadOnly, at any api-version of the type's kinds): a
// template holds what a deployment can send.
func dropReturnedOnly(typ string, out map[string]any) {
	reg := registry.Default()
	for _, gvk := range reg.KindsOfARMType(typ) {
		kind, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if !ok || kind.Body == nil {
			continue
		}
		for _, p := range append(slices.Clone(kind.Body.ReturnedOnly), kind.Body.ReadOnly...) {
			if !strings.HasPrefix(p, "properties.") || strings.ContainsAny(p, "[{") {
				continue // the envelope is the export's own; inside lists and maps the user's items stay whole
			}
			path := strings.Split(p, ".")
			parent := out
			for _, k := range path[:len(path)-1] {
				if parent, ok = parent[k].(map[string]any); !ok {
					break
				}
			}
			if parent != nil {
				delete(parent, path[len(path)-1])
			}
		}
	}
}
