package deploy

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// runnerFunc is a template function the runner serves itself: it reads the
// deployment, its resources or its lambdas, which armfunc's pure functions
// cannot. n is the call, args its evaluated arguments.
type runnerFunc func(env *exprEnv, n *exprNode, args []any) (any, error)

// runnerFunctions are the runner's own functions by lower-cased name,
// besides if/and/or/lambda (lazy, in evalNode) and list* (env.list).
// Not run, so refused by name: pickZones (the emulator's provider
// registrations hold no zone mappings to pick from), deployer (the
// engine does not know the caller), references, managementGroup (the
// emulator runs no deployment at management group scope).
// Filled in init: their bodies reach env.call, which reads the table.
var runnerFunctions map[string]runnerFunc

func init() {
	runnerFunctions = map[string]runnerFunc{
		"parameters":      (*exprEnv).parameter,
		"variables":       (*exprEnv).variable,
		"copyindex":       (*exprEnv).copyIndex,
		"lambdavariables": (*exprEnv).lambdaVariable,
		"filter":          lambdaFilter,
		"map":             lambdaMap,
		"reduce":          lambdaReduce,
		"sort":            lambdaSort,
		"toobject":        lambdaToObject,
		"groupby":         lambdaGroupBy,
		"mapvalues":       lambdaMapValues,
		"deployment":      func(env *exprEnv, _ *exprNode, _ []any) (any, error) { return env.deployment, nil },
		"environment":     (*exprEnv).environment,
		"resourcegroup":   (*exprEnv).resourceGroup,
		"subscription":    (*exprEnv).subscription,
		"tenant": func(*exprEnv, *exprNode, []any) (any, error) {
			return map[string]any{"id": "/tenants/" + armcore.Tenant, "tenantId": armcore.Tenant, "displayName": "Emulated tenant", "countryCode": "US"}, nil
		},
		"resourceid":                (*exprEnv).resourceIDCall,
		"subscriptionresourceid":    (*exprEnv).resourceIDCall,
		"tenantresourceid":          (*exprEnv).resourceIDCall,
		"extensionresourceid":       extensionResourceID,
		"managementgroupresourceid": managementGroupResourceID,
		"reference":                 (*exprEnv).referenceCall,
		"providers":                 (*exprEnv).providers,
		"utcnow":                    (*exprEnv).utcNow,
		"newguid":                   (*exprEnv).newGUID,
	}
}

func argString(n *exprNode, args []any, i int) (string, error) {
	if i >= len(args) {
		return "", exprErrorf("the template function '%s' expects at least %d argument(s)", n.written, i+1)
	}
	s, ok := args[i].(string)
	if !ok {
		return "", exprErrorf("the template function '%s' expects a string as argument %d, not %s", n.written, i+1, typeName(args[i]))
	}
	return s, nil
}

func lookupFold(table map[string]any, key string) (any, bool) {
	if v, ok := table[key]; ok {
		return v, true
	}
	for k, v := range table {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

func (env *exprEnv) parameter(n *exprNode, args []any) (any, error) {
	key, err := argString(n, args, 0)
	if err != nil {
		return nil, err
	}
	if v, ok := lookupFold(env.params, key); ok {
		return v, nil
	}
	if env.pendingParams != nil {
		return env.pendingParams.resolve(key)
	}
	return nil, exprErrorf("the template parameter '%s' is not found", key)
}

func (env *exprEnv) variable(n *exprNode, args []any) (any, error) {
	key, err := argString(n, args, 0)
	if err != nil {
		return nil, err
	}
	if v, ok := lookupFold(env.vars, key); ok {
		return v, nil
	}
	if env.pendingVars != nil {
		return env.pendingVars.resolve(key)
	}
	return nil, exprErrorf("the template variable '%s' is not found", key)
}

// copyIndex is copyIndex([loopName], [offset]): the iteration of the named
// loop, else of the resource's own, plus offset.
func (env *exprEnv) copyIndex(n *exprNode, args []any) (any, error) {
	loop, offset := "", int64(0)
	if len(args) > 0 {
		if s, ok := args[0].(string); ok {
			loop, args = s, args[1:]
		}
	}
	if len(args) > 1 {
		return nil, exprErrorf("the template function 'copyIndex' takes a loop name and an offset")
	}
	if len(args) == 1 {
		o, ok := toInt(args[0])
		if !ok {
			return nil, exprErrorf("the offset of 'copyIndex' must be an integer, not %s", typeName(args[0]))
		}
		offset = o
	}
	i, ok := env.copies[strings.ToLower(loop)]
	if !ok {
		if loop == "" {
			return nil, exprErrorf("the template function 'copyIndex' is not expected at this location: it is used outside a copy loop")
		}
		return nil, exprErrorf("the template function 'copyIndex' is not expected at this location: the copy loop '%s' does not enclose it", loop)
	}
	return i + offset, nil
}

func (env *exprEnv) lambdaVariable(n *exprNode, args []any) (any, error) {
	name, err := argString(n, args, 0)
	if err != nil {
		return nil, err
	}
	if v, ok := env.lambdaVars[name]; ok {
		return v, nil
	}
	return nil, exprErrorf("the lambda variable '%s' is not in scope", name)
}

// lambdaArgs checks the arguments of a lambda function: a value of the
// wanted kind, then lambdas.
func lambdaArgs(n *exprNode, args []any, lambdas int, more int) ([]*lambdaFunc, error) {
	if len(args) < 1+more+lambdas-boolInt(n.call == "toobject") || len(args) > 1+more+lambdas {
		return nil, exprErrorf("the template function '%s' takes %d argument(s), not %d", n.written, 1+more+lambdas, len(args))
	}
	var out []*lambdaFunc
	for i := 1 + more; i < len(args); i++ {
		l, ok := args[i].(*lambdaFunc)
		if !ok {
			return nil, exprErrorf("argument %d of the template function '%s' must be a lambda, not %s", i+1, n.written, typeName(args[i]))
		}
		out = append(out, l)
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func arrayArg(n *exprNode, v any) ([]any, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, exprErrorf("the template function '%s' expects an array, not %s", n.written, typeName(v))
	}
	return a, nil
}

func lambdaFilter(_ *exprEnv, n *exprNode, args []any) (any, error) {
	ls, err := lambdaArgs(n, args, 1, 0)
	if err != nil {
		return nil, err
	}
	items, err := arrayArg(n, args[0])
	if err != nil {
		return nil, err
	}
	out := []any{}
	for i, item := range items {
		keep, err := ls[0].call(item, int64(i))
		if err != nil {
			return nil, err
		}
		b, ok := keep.(bool)
		if !ok {
			return nil, exprErrorf("the lambda of 'filter' must return a boolean, not %s", typeName(keep))
		}
		if b {
			out = append(out, item)
		}
	}
	return out, nil
}

func lambdaMap(_ *exprEnv, n *exprNode, args []any) (any, error) {
	ls, err := lambdaArgs(n, args, 1, 0)
	if err != nil {
		return nil, err
	}
	items, err := arrayArg(n, args[0])
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, item := range items {
		if out[i], err = ls[0].call(item, int64(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func lambdaReduce(_ *exprEnv, n *exprNode, args []any) (any, error) {
	ls, err := lambdaArgs(n, args, 1, 1)
	if err != nil {
		return nil, err
	}
	items, err := arrayArg(n, args[0])
	if err != nil {
		return nil, err
	}
	acc := args[1]
	for i, item := range items {
		if acc, err = ls[0].call(acc, item, int64(i)); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func lambdaSort(_ *exprEnv, n *exprNode, args []any) (any, error) {
	ls, err := lambdaArgs(n, args, 1, 0)
	if err != nil {
		return nil, err
	}
	items, err := arrayArg(n, args[0])
	if err != nil {
		return nil, err
	}
	out := append([]any{}, items...)
	var failed error
	sort.SliceStable(out, func(i, j int) bool {
		less, err := ls[0].call(out[i], out[j])
		if err != nil && failed == nil {
			failed = err
		}
		b, ok := less.(bool)
		if !ok && failed == nil {
			failed = exprErrorf("the lambda of 'sort' must return a boolean, not %s", typeName(less))
		}
		return b
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

func lambdaToObject(_ *exprEnv, n *exprNode, args []any) (any, error) {
	ls, err := lambdaArgs(n, args, 2, 0)
	if err != nil {
		return nil, err
	}
	items, err := arrayArg(n, args[0])
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, item := range items {
		key, err := ls[0].call(item)
		if err != nil {
			return nil, err
		}
		k, ok := key.(string)
		if !ok {
			return nil, exprErrorf("the key lambda of 'toObject' must return a string, not %s", typeName(key))
		}
		value := item
		if len(ls) > 1 {
			if value, err = ls[1].call(item); err != nil {
				return nil, err
			}
		}
		out[k] = value
	}
	return out, nil
}

func lambdaGroupBy(_ *exprEnv, n *exprNode, args []any) (any, error) {
	ls, err := lambdaArgs(n, args, 1, 0)
	if err != nil {
		return nil, err
	}
	items, err := arrayArg(n, args[0])
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, item := range items {
		key, err := ls[0].call(item)
		if err != nil {
			return nil, err
		}
		k, ok := key.(string)
		if !ok {
			return nil, exprErrorf("the key lambda of 'groupBy' must return a string, not %s", typeName(key))
		}
		group, _ := out[k].([]any)
		out[k] = append(group, item)
	}
	return out, nil
}

func lambdaMapValues(_ *exprEnv, n *exprNode, args []any) (any, error) {
	ls, err := lambdaArgs(n, args, 1, 0)
	if err != nil {
		return nil, err
	}
	obj, ok := args[0].(map[string]any)
	if !ok {
		return nil, exprErrorf("the template function 'mapValues' expects an object, not %s", typeName(args[0]))
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		mv, err := ls[0].call(v)
		if err != nil {
			return nil, err
		}
		out[k] = mv
	}
	return out, nil
}

// environment is ARM's environment() in its documented shape, naming the
// emulator as Resource Manager and login endpoint; the other endpoints
// and suffixes are public Azure's, as the emulator's computed endpoints use them.
func (env *exprEnv) environment(*exprNode, []any) (any, error) {
	base := strings.TrimSuffix(env.endpoint, "/") + "/"
	return map[string]any{
		"name": "AzkEmulator", "gallery": "", "graph": "https://graph.windows.net/", "graphAudience": "https://graph.windows.net/",
		"portal": base, "resourceManager": base, "activeDirectoryDataLake": "https://datalake.azure.net/",
		"batch": "https://batch.core.windows.net/", "media": "https://rest.media.azure.net",
		"sqlManagement":   "https://management.core.windows.net:8443/",
		"vmImageAliasDoc": "https://raw.githubusercontent.com/Azure/azure-rest-api-specs/master/arm-compute/quickstart-templates/aliases.json",
		"authentication": map[string]any{
			"loginEndpoint": base, "tenant": "common", "identityProvider": "AAD",
			"audiences": []any{"https://management.core.windows.net/", "https://management.azure.com/"},
		},
		"suffixes": map[string]any{
			"acrLoginServer": ".azurecr.io", "azureDatalakeAnalyticsCatalogAndJob": "azuredatalakeanalytics.net",
			"azureDatalakeStoreFileSystem": "azuredatalakestore.net", "azureFrontDoorEndpointSuffix": "azurefd.net",
			"keyvaultDns": ".vault.azure.net", "sqlServerHostname": ".database.windows.net", "storage": "core.windows.net",
		},
	}, nil
}

func (env *exprEnv) resourceGroup(n *exprNode, _ []any) (any, error) {
	if env.scope.rg == "" {
		return nil, exprErrorf("the template function '%s' is not expected at this location: the deployment is not at resource group scope", n.written)
	}
	return map[string]any{"id": env.scope.id(), "name": env.scope.rg, "type": armpath.TypeResourceGroup, "location": env.scope.location,
		"properties": map[string]any{"provisioningState": armcore.StateSucceeded}}, nil
}

func (env *exprEnv) subscription(n *exprNode, _ []any) (any, error) {
	if env.scope.sub == "" {
		return nil, exprErrorf("the template function '%s' is not expected at this location: the deployment is at tenant scope", n.written)
	}
	return map[string]any{"id": "/subscriptions/" + env.scope.sub, "subscriptionId": env.scope.sub, "tenantId": armcore.Tenant, "displayName": "Emulated subscription"}, nil
}

func (env *exprEnv) resourceIDCall(n *exprNode, args []any) (any, error) {
	return env.resourceID(n.call, args)
}

func extensionResourceID(_ *exprEnv, n *exprNode, args []any) (any, error) {
	if len(args) < 3 {
		return nil, exprErrorf("the template function '%s' takes a scope, a type and names", n.written)
	}
	scope, _ := args[0].(string)
	return typedID(strings.TrimSuffix(scope, "/"), args[1:])
}

// managementGroupResourceID is managementGroupResourceId(group, type,
// names...); without the group it needs a management group deployment,
// which the emulator does not run.
func managementGroupResourceID(_ *exprEnv, n *exprNode, args []any) (any, error) {
	if len(args) < 3 {
		return nil, exprErrorf("the template function '%s' needs a management group name outside a management group deployment", n.written)
	}
	group, _ := args[0].(string)
	return typedID("/providers/Microsoft.Management/managementGroups/"+group, args[1:])
}

func (env *exprEnv) referenceCall(n *exprNode, args []any) (any, error) {
	target, err := argString(n, args, 0)
	if err != nil {
		return nil, err
	}
	apiVersion := ""
	if len(args) > 1 {
		apiVersion, _ = args[1].(string)
	}
	full := len(args) > 2 && strings.EqualFold(exprString(args[2]), "full")
	if env.reference == nil {
		return nil, exprErrorf("the template function 'reference' is not expected at this location")
	}
	return env.reference(target, apiVersion, full)
}

// list runs a list* function: listKeys(resourceId, apiVersion, [body]) is
// a POST of the resource's listKeys action.
func (env *exprEnv) list(name string, args []any) (any, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, exprErrorf("the template function '%s' takes a resource ID, an api-version and an optional body", name)
	}
	id, ok1 := args[0].(string)
	apiVersion, ok2 := args[1].(string)
	if !ok1 || !ok2 {
		return nil, exprErrorf("the template function '%s' takes a resource ID and an api-version as strings", name)
	}
	if env.invoke == nil {
		return nil, exprErrorf("the template function '%s' is not expected at this location", name)
	}
	var body any
	if len(args) == 3 {
		body = args[2]
	}
	return env.invoke(id, apiVersion, name, body)
}

// providers is providers(namespace, [resourceType]) in its documented
// shape, from the emulator's registration of the provider.
func (env *exprEnv) providers(n *exprNode, args []any) (any, error) {
	ns, err := argString(n, args, 0)
	if err != nil {
		return nil, err
	}
	reg, err := env.providerOf(n, ns)
	if err != nil {
		return nil, err
	}
	types := []any{}
	for _, t := range listOf(reg["resourceTypes"]) {
		tm, _ := t.(map[string]any)
		entry := map[string]any{"resourceType": tm["resourceType"], "locations": tm["locations"], "apiVersions": tm["apiVersions"]}
		if len(args) > 1 {
			if strings.EqualFold(exprString(tm["resourceType"]), exprString(args[1])) {
				return entry, nil
			}
			continue
		}
		types = append(types, entry)
	}
	if len(args) > 1 {
		return nil, exprErrorf("the resource type '%s/%s' is not found", ns, exprString(args[1]))
	}
	return map[string]any{"namespace": reg["namespace"], "resourceTypes": types}, nil
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

func (env *exprEnv) providerOf(n *exprNode, namespace string) (map[string]any, error) {
	if env.provider == nil {
		return nil, exprErrorf("the template function '%s' is not expected at this location", n.written)
	}
	return env.provider(namespace)
}

// utcNow is utcNow([format]), allowed only in a parameter's default value;
// the format is .NET's: the default "yyyyMMddTHHmmssZ", the standard "u",
// "s" and "o", or custom patterns of yyyy, MM, dd, HH, mm, ss and fff.
func (env *exprEnv) utcNow(n *exprNode, args []any) (any, error) {
	if !env.parameterDefault {
		return nil, exprErrorf("the template function '%s' is not expected at this location: it can only be used in the default value of a parameter", n.written)
	}
	format := "yyyyMMddTHHmmssZ"
	if len(args) > 0 {
		format = exprString(args[0])
	}
	now := time.Now().UTC()
	switch format {
	case "u":
		return now.Format("2006-01-02 15:04:05Z"), nil
	case "s":
		return now.Format("2006-01-02T15:04:05"), nil
	case "o":
		return now.Format("2006-01-02T15:04:05.0000000Z07:00"), nil
	}
	layout := strings.NewReplacer("yyyy", "2006", "MM", "01", "dd", "02", "HH", "15", "mm", "04", "ss", "05", "fff", "000").Replace(format)
	if strings.ContainsAny(strings.NewReplacer("2006", "", "01", "", "02", "", "15", "", "04", "", "05", "", "000", "").Replace(layout), "yMdHhmsfFtzK") {
		return nil, exprErrorf("the format '%s' of '%s' is not one the emulator renders (yyyy, MM, dd, HH, mm, ss, fff, u, s, o)", format, n.written)
	}
	return now.Format(layout), nil
}

func (env *exprEnv) newGUID(n *exprNode, _ []any) (any, error) {
	if !env.parameterDefault {
		return nil, exprErrorf("the template function '%s' is not expected at this location: it can only be used in the default value of a parameter", n.written)
	}
	return env.newUUID(), nil
}

// providerRegistration reads the provider namespace's registration through the emulator's handler.
func (e *Engine) providerRegistration(sub string) func(namespace string) (map[string]any, error) {
	return func(namespace string) (map[string]any, error) {
		rec := e.selfRequest(e.engine().ctx, http.MethodGet, "/subscriptions/"+sub+"/providers/"+namespace, "2021-04-01", nil, "")
		if rec.Code != http.StatusOK {
			ae := responseError(rec)
			return nil, exprErrorf("the resource provider '%s' could not be read: %s: %s", namespace, ae.Code, ae.Message)
		}
		var reg map[string]any
		if err := jsonDecode(rec.Body.Bytes(), &reg); err != nil {
			return nil, fmt.Errorf("the resource provider '%s': %v", namespace, err)
		}
		return reg, nil
	}
}
