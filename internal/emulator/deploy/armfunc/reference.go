package armfunc

// Entry is one function of ARM's template function reference
// (learn.microsoft.com/azure/azure-resource-manager/templates/template-functions).
type Entry struct {
	Name     string
	Category string // string, array, object, logical, numeric, comparison, date, deployment, resource, scope, lambda, cidr, any
	// Pure is true when Lookup evaluates the function; false for the ones the runner owns
	// because they read the deployment's context, take lambdas or are not deterministic.
	Pure bool
}

// Reference lists every function of ARM's template function reference, each once under the
// category the reference first lists it in.
var Reference = []Entry{
	// The any function exists in Bicep only; a JSON template cannot call it.
	{"any", "any", false},

	{"array", "array", true},
	{"concat", "array", true},
	{"contains", "array", true},
	{"createArray", "array", true},
	{"empty", "array", true},
	{"first", "array", true},
	{"indexFromEnd", "array", true},
	{"indexOf", "array", true},
	{"intersection", "array", true},
	{"last", "array", true},
	{"lastIndexOf", "array", true},
	{"length", "array", true},
	{"max", "array", true},
	{"min", "array", true},
	{"range", "array", true},
	{"skip", "array", true},
	{"take", "array", true},
	{"tryGet", "array", true},
	{"tryIndexFromEnd", "array", true},
	{"union", "array", true},

	{"cidrHost", "cidr", true},
	{"cidrSubnet", "cidr", true},
	{"parseCidr", "cidr", true},

	{"coalesce", "comparison", true},
	{"equals", "comparison", true},
	{"greater", "comparison", true},
	{"greaterOrEquals", "comparison", true},
	{"less", "comparison", true},
	{"lessOrEquals", "comparison", true},

	{"dateTimeAdd", "date", true},
	{"dateTimeFromEpoch", "date", true},
	{"dateTimeToEpoch", "date", true},
	{"utcNow", "date", false},

	{"deployer", "deployment", false},
	{"deployment", "deployment", false},
	{"environment", "deployment", false},
	{"parameters", "deployment", false},
	{"variables", "deployment", false},

	{"filter", "lambda", false},
	{"groupBy", "lambda", false},
	{"map", "lambda", false},
	{"mapValues", "lambda", false},
	{"reduce", "lambda", false},
	{"sort", "lambda", false},
	{"toObject", "lambda", false},

	{"and", "logical", true},
	{"bool", "logical", true},
	{"false", "logical", true},
	{"if", "logical", true},
	{"not", "logical", true},
	{"or", "logical", true},
	{"true", "logical", true},

	{"add", "numeric", true},
	{"copyIndex", "numeric", false},
	{"div", "numeric", true},
	{"float", "numeric", true},
	{"int", "numeric", true},
	{"mod", "numeric", true},
	{"mul", "numeric", true},
	{"sub", "numeric", true},

	{"createObject", "object", true},
	{"items", "object", true},
	{"json", "object", true},
	{"null", "object", true},
	{"objectKeys", "object", true},
	{"shallowMerge", "object", true},

	{"extensionResourceId", "resource", false},
	{"listAccountSas", "resource", false},
	{"listKeys", "resource", false},
	{"listSecrets", "resource", false},
	{"list*", "resource", false},
	{"managementGroupResourceId", "resource", false},
	{"pickZones", "resource", false},
	{"providers", "resource", false},
	{"reference", "resource", false},
	{"references", "resource", false},
	{"resourceId", "resource", false},
	{"subscriptionResourceId", "resource", false},
	{"tenantResourceId", "resource", false},

	{"managementGroup", "scope", false},
	{"resourceGroup", "scope", false},
	{"subscription", "scope", false},
	{"tenant", "scope", false},

	{"base64", "string", true},
	{"base64ToJson", "string", true},
	{"base64ToString", "string", true},
	{"dataUri", "string", true},
	{"dataUriToString", "string", true},
	{"endsWith", "string", true},
	{"format", "string", true},
	{"guid", "string", true},
	{"join", "string", true},
	{"newGuid", "string", false},
	{"padLeft", "string", true},
	{"replace", "string", true},
	{"split", "string", true},
	{"startsWith", "string", true},
	{"string", "string", true},
	{"substring", "string", true},
	{"toLower", "string", true},
	{"toUpper", "string", true},
	{"trim", "string", true},
	{"uniqueString", "string", true},
	{"uri", "string", true},
	{"uriComponent", "string", true},
	{"uriComponentToString", "string", true},
}
