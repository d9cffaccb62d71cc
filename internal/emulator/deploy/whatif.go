package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// whatIf predicts what a deployment would change, as ARM's what-if does:
// per resource of the template (nested deployments expanded) Create when it
// does not exist, else Modify with the properties whose values the template
// changes, or NoChange; resources of the resource group the template does
// not name are Ignore (an incremental deployment leaves them). Values that
// reference() resources not yet deployed stay as their expression. The
// emulator compares what the template sets (and the tags Azure has beyond
// it); it does not guess which omitted properties a PUT would reset.
func (e *Engine) whatIf(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) error {
	dt, ok := armpath.Parse(t.Parent)
	if !ok || dt.Kind != armpath.Resource {
		return armcore.Errorf(http.StatusNotFound, "InvalidResourceType", "whatIf is an action of a deployment.")
	}
	req, err := decodeDeploymentRequest(body)
	if err != nil {
		return err
	}
	scope, err := e.deploymentScope(dt, req.Location)
	if err != nil {
		return err
	}
	changes, err := e.predict(r.Context(), scope, req.Properties.Template, req.Properties.Parameters, dt.ID, dt.Name)
	if err != nil {
		return err
	}
	result, err := json.Marshal(map[string]any{"status": armcore.StateSucceeded, "properties": map[string]any{"changes": changes}})
	if err != nil {
		return err
	}
	id := e.core.NewUUID()
	d := e.engine()
	d.mu.Lock()
	d.whatIfs[id] = result
	d.order = append(d.order, id)
	if len(d.order) > 100 {
		delete(d.whatIfs, d.order[0])
		d.order = d.order[1:]
	}
	d.mu.Unlock()
	w.Header().Set("Location", followURL(r, dt.ID, "whatIfResults", id))
	w.Header().Set("Retry-After", "0")
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func (e *Engine) whatIfResult(w http.ResponseWriter, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	result := d.whatIfs[t.Name]
	d.mu.Unlock()
	if result == nil {
		return armcore.Errorf(http.StatusNotFound, "OperationNotFound", "The what-if result '%s' was not found.", t.Name)
	}
	armcore.WriteRaw(w, http.StatusOK, result)
	return nil
}

// predict lists the changes of one template at scope.
func (e *Engine) predict(ctx context.Context, scope deployScope, tmpl, params map[string]any, deploymentID, name string) ([]any, error) {
	p, err := e.prepare(tmpl, params, scope, deploymentID, name)
	if err != nil {
		return nil, err
	}
	p.env.reference = func(id, apiVersion string, full bool) (any, error) {
		return e.reference(ctx, p, id, apiVersion, full)
	}
	changes := []any{}
	named := map[string]bool{}
	for _, r := range p.resources {
		if r.existing {
			continue // read, never written: no change to predict
		}
		if r.nested {
			props, err := nestedProperties(r.env, r.raw["properties"])
			if err != nil {
				// Its parameters read resources not deployed yet: what it
				// deploys is known only once they are.
				changes = append(changes, map[string]any{"resourceId": r.id, "changeType": "Unsupported", "unsupportedReason": err.Error()})
				continue
			}
			inner, _ := props["template"].(map[string]any)
			innerParams, _ := props["parameters"].(map[string]any)
			sc := r.scope
			if sc.rg != "" {
				sc.location, _ = e.groupLocation(sc)
			}
			more, err := e.predict(ctx, sc, inner, innerParams, r.id, r.name)
			if err != nil {
				return nil, err
			}
			changes = append(changes, more...)
			continue
		}
		named[armpath.Key(r.id)] = true
		after := map[string]any{"id": r.id, "name": r.name[strings.LastIndexByte(r.name, '/')+1:], "type": r.typ, "apiVersion": r.apiVersion}
		for k, v := range r.raw {
			if bodyKey(k) {
				after[k] = r.env.evalLenient(v)
			}
		}
		rec, err := e.sendWithRetry(ctx, innerRequest{method: http.MethodGet, target: requestURI(r.id, r.apiVersion)})
		var ae *armcore.Error
		switch {
		case errors.As(err, &ae) && ae.Status == http.StatusNotFound:
			changes = append(changes, map[string]any{"resourceId": r.id, "changeType": "Create", "after": after})
			continue
		case errors.As(err, &ae):
			changes = append(changes, map[string]any{"resourceId": r.id, "changeType": "Unsupported", "unsupportedReason": ae.Message})
			continue
		case err != nil:
			return nil, err
		}
		var before map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &before); err != nil {
			return nil, err
		}
		delta := propertyDelta("", after, before, true)
		kind := "NoChange"
		if len(delta) > 0 {
			kind = "Modify"
		}
		changes = append(changes, map[string]any{"resourceId": r.id, "changeType": kind, "before": before, "after": after, "delta": delta})
	}
	if scope.rg != "" {
		var others []string
		for _, id := range e.core.ChildrenOf(scope.id()) {
			if !named[armpath.Key(id)] {
				others = append(others, id)
			}
		}
		sort.Strings(others)
		for _, id := range others {
			changes = append(changes, map[string]any{"resourceId": id, "changeType": "Ignore"})
		}
	}
	return changes, nil
}

// evalLenient evaluates what it can; an expression that cannot be
// evaluated yet (a reference() to a resource not deployed) stays as written.
func (env *exprEnv) evalLenient(v any) any {
	out, err := env.evalWith(v, func(env *exprEnv, s string) (any, error) {
		if out, err := env.evalString(s); err == nil {
			return out, nil
		}
		return s, nil
	})
	if err != nil {
		return v
	}
	return out
}

// propertyDelta lists what the template's values change in Azure's: a
// property the template sets that Azure lacks (Create) or holds otherwise
// (Modify); at the top level also the tags Azure has beyond the template's
// (Delete), since a PUT replaces tags whole.
func propertyDelta(path string, after, before any, top bool) []any {
	a, aok := after.(map[string]any)
	b, bok := before.(map[string]any)
	if al, ok := after.([]any); ok {
		if bl, ok := before.([]any); ok && len(al) == len(bl) {
			// Item by item (by name where items are named), so that what
			// Azure adds to each item (IDs, states) is not a change.
			var out []any
			for i, item := range al {
				out = append(out, propertyDelta(fmt.Sprintf("%s[%d]", path, i), item, matchingItem(item, bl, i), false)...)
			}
			return out
		}
	}
	if !aok || !bok {
		if sameValue(path, after, before) {
			return nil
		}
		return []any{map[string]any{"path": path, "propertyChangeType": "Modify", "before": before, "after": after}}
	}
	var out []any
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if top && (k == "id" || k == "name" || k == "type" || k == "apiVersion") {
			continue
		}
		p := armjson.Join(path, k)
		bv, ok := b[k]
		if !ok {
			if a[k] != nil {
				out = append(out, map[string]any{"path": p, "propertyChangeType": "Create", "after": a[k]})
			}
			continue
		}
		out = append(out, propertyDelta(p, a[k], bv, false)...)
	}
	if top {
		at, _ := a["tags"].(map[string]any)
		bt, _ := b["tags"].(map[string]any)
		var gone []string
		for k := range bt {
			if _, ok := at[k]; !ok {
				gone = append(gone, k)
			}
		}
		sort.Strings(gone)
		for _, k := range gone {
			out = append(out, map[string]any{"path": "tags." + k, "propertyChangeType": "Delete", "before": bt[k]})
		}
	}
	return out
}

// matchingItem is the item of list that item updates: the one of the same
// name, else the one at its position.
func matchingItem(item any, list []any, i int) any {
	if m, ok := item.(map[string]any); ok {
		if name, ok := m["name"].(string); ok {
			for _, other := range list {
				if om, ok := other.(map[string]any); ok && om["name"] == name {
					return other
				}
			}
		}
	}
	return list[i]
}

// sameValue compares JSON values: numbers by value, locations by canonical name.
func sameValue(path string, a, b any) bool {
	if path == "location" {
		return strings.EqualFold(strings.ReplaceAll(exprString(a), " ", ""), strings.ReplaceAll(exprString(b), " ", ""))
	}
	na, aok := number(a)
	nb, bok := number(b)
	if aok && bok {
		return na == nb
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var ca, cb any
	_ = json.Unmarshal(ja, &ca)
	_ = json.Unmarshal(jb, &cb)
	return reflect.DeepEqual(ca, cb)
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case int64:
		return float64(t), true
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	}
	return 0, false
}
