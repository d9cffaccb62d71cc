package providers

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// nameRule is ARM's naming rule of one resource type, as Azure's published
// "Naming rules and restrictions for Azure resources"
// (learn.microsoft.com, azure-resource-manager/management/resource-name-rules)
// gives it: a length in characters, the characters allowed with where they
// may stand (pattern), and what the name may not contain.
type nameRule struct {
	typ      string
	min, max int
	pattern  *regexp.Regexp
	// forbidden are substrings the name may not hold (consecutive hyphens).
	forbidden []string
	// says is the rule in words, for the refusal.
	says string
	// code is the error code ARM refuses a PUT of an invalid name with.
	code string
}

// The character classes of the rules, "alphanumeric" being a-z, A-Z and 0-9 as the page defines it.
const (
	alnumEnds      = `^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$`
	letterAlnumEnd = `^[a-zA-Z][a-zA-Z0-9-]*[a-zA-Z0-9]$`
	lowerHyphen    = `^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`
)

// nameRules are the rules of every type whose global name checkNameAvailability
// answers (extensions.NameChecks) that the page lists, and of resource groups.
// The name checks of types the page does not list (managed HSMs, Mongo
// clusters, Web PubSub, Front Door endpoints) keep the REST specs' azureName
// facts (invalidName).
var nameRules = []nameRule{
	{typ: "Microsoft.Resources/resourceGroups", min: 1, max: 90, code: "InvalidResourceGroup",
		// Char.IsLetterOrDigit's letters and decimal digits, as the page says.
		pattern: regexp.MustCompile(`^[-_.()\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nd}]*[-_()\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nd}]$`),
		says:    "1-90 characters: letters, digits, underscores, hyphens, periods and parentheses; it cannot end with a period"},
	{typ: "Microsoft.Storage/storageAccounts", min: 3, max: 24, code: "AccountNameInvalid",
		pattern: regexp.MustCompile(`^[a-z0-9]+$`),
		says:    "between 3 and 24 characters in length and use numbers and lower-case letters only"},
	{typ: "Microsoft.KeyVault/vaults", min: 3, max: 24, pattern: regexp.MustCompile(letterAlnumEnd), forbidden: []string{"--"},
		says: "3-24 alphanumerics and hyphens, starting with a letter, ending with a letter or digit, no consecutive hyphens"},
	{typ: "Microsoft.DocumentDB/databaseAccounts", min: 3, max: 44, pattern: regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`),
		says: "3-44 lowercase letters, numbers and hyphens, starting with a lowercase letter or number"},
	{typ: "Microsoft.Web/sites", min: 2, max: 60, pattern: regexp.MustCompile(`^[\pL\pN]([-\pL\pN]*[\pL\pN])?$`),
		says: "2-60 alphanumerics, hyphens and Unicode letters, not starting or ending with a hyphen"},
	{typ: "Microsoft.Cache/redis", min: 1, max: 63, pattern: regexp.MustCompile(alnumEnds), forbidden: []string{"--"},
		says: "1-63 alphanumerics and hyphens, starting and ending with an alphanumeric, no consecutive hyphens"},
	{typ: "Microsoft.ServiceBus/namespaces", min: 6, max: 50, pattern: regexp.MustCompile(letterAlnumEnd),
		says: "6-50 alphanumerics and hyphens, starting with a letter, ending with a letter or number"},
	{typ: "Microsoft.EventHub/namespaces", min: 6, max: 50, pattern: regexp.MustCompile(letterAlnumEnd),
		says: "6-50 alphanumerics and hyphens, starting with a letter, ending with a letter or number"},
	{typ: "Microsoft.ContainerRegistry/registries", min: 5, max: 50, pattern: regexp.MustCompile(`^[a-zA-Z0-9]+$`),
		says: "5-50 alphanumerics"},
	{typ: "Microsoft.AppConfiguration/configurationStores", min: 5, max: 50, pattern: regexp.MustCompile(`^[a-zA-Z0-9_-]+$`),
		says: "5-50 alphanumerics, underscores and hyphens"},
	{typ: "Microsoft.Search/searchServices", min: 2, max: 60, pattern: regexp.MustCompile(`^[a-z0-9]{2}([a-z0-9-]*[a-z0-9])?$`), forbidden: []string{"--"},
		says: "2-60 lowercase letters, digits and hyphens, no hyphen as the first two or the last character, no consecutive hyphens"},
	{typ: "Microsoft.SignalRService/signalR", min: 3, max: 63, pattern: regexp.MustCompile(letterAlnumEnd),
		says: "3-63 alphanumerics and hyphens, starting with a letter, ending with a letter or number"},
	{typ: "Microsoft.ApiManagement/service", min: 1, max: 50, pattern: regexp.MustCompile(`^[a-zA-Z]([a-zA-Z0-9-]*[a-zA-Z0-9])?$`),
		says: "1-50 alphanumerics and hyphens, starting with a letter, ending with an alphanumeric"},
	{typ: "Microsoft.Sql/servers", min: 1, max: 63, pattern: regexp.MustCompile(lowerHyphen),
		says: "1-63 lowercase letters, numbers and hyphens, not starting or ending with a hyphen"},
	// The page gives the servers of the three open-source databases one
	// rule; their flexible servers answer the same name checks.
	{typ: "Microsoft.DBforPostgreSQL/flexibleServers", min: 3, max: 63, pattern: regexp.MustCompile(lowerHyphen),
		says: "3-63 lowercase letters, hyphens and numbers, not starting or ending with a hyphen"},
	{typ: "Microsoft.DBforMySQL/flexibleServers", min: 3, max: 63, pattern: regexp.MustCompile(lowerHyphen),
		says: "3-63 lowercase letters, hyphens and numbers, not starting or ending with a hyphen"},
	{typ: "Microsoft.DBforMariaDB/servers", min: 3, max: 63, pattern: regexp.MustCompile(lowerHyphen),
		says: "3-63 lowercase letters, hyphens and numbers, not starting or ending with a hyphen"},
	{typ: "Microsoft.Cdn/profiles/endpoints", min: 1, max: 50, pattern: regexp.MustCompile(alnumEnds),
		says: "1-50 alphanumerics and hyphens, starting and ending with an alphanumeric"},
	{typ: "Microsoft.Network/frontDoors", min: 5, max: 64, pattern: regexp.MustCompile(alnumEnds),
		says: "5-64 alphanumerics and hyphens, starting and ending with an alphanumeric"},
	{typ: "Microsoft.Batch/batchAccounts", min: 3, max: 24, pattern: regexp.MustCompile(`^[a-z0-9]+$`),
		says: "3-24 lowercase letters and numbers"},
	{typ: "Microsoft.Kusto/clusters", min: 4, max: 22, pattern: regexp.MustCompile(`^[a-z][a-z0-9]*$`),
		says: "4-22 lowercase letters and numbers, starting with a letter"},
	{typ: "Microsoft.Synapse/workspaces", min: 1, max: 50, pattern: regexp.MustCompile(lowerHyphen), forbidden: []string{"-ondemand"},
		says: "1-50 lowercase letters, hyphens and numbers, starting and ending with a letter or number, not containing '-ondemand'"},
	{typ: "Microsoft.Communication/communicationServices", min: 1, max: 63, pattern: regexp.MustCompile(alnumEnds),
		says: "1-63 alphanumerics and hyphens, not starting or ending with a hyphen"},
	{typ: "Microsoft.Devices/IotHubs", min: 3, max: 50, pattern: regexp.MustCompile(`^[a-zA-Z0-9-]*[a-zA-Z0-9]$`),
		says: "3-50 alphanumerics and hyphens, not ending with a hyphen"},
	{typ: "Microsoft.NotificationHubs/namespaces", min: 6, max: 50, pattern: regexp.MustCompile(letterAlnumEnd),
		says: "6-50 alphanumerics and hyphens, starting with a letter, ending with an alphanumeric"},
	{typ: "Microsoft.CognitiveServices/accounts", min: 2, max: 64, pattern: regexp.MustCompile(alnumEnds),
		says: "2-64 alphanumerics and hyphens, starting and ending with an alphanumeric"},
}

// nameRuleFor is the published naming rule of typ, if the page lists it.
func nameRuleFor(typ string) (nameRule, bool) {
	for _, r := range nameRules {
		if strings.EqualFold(r.typ, typ) {
			return r, true
		}
	}
	return nameRule{}, false
}

// breaks says how name breaks the rule; "" when it keeps it.
func (r nameRule) breaks(name string) string {
	n := utf8.RuneCountInString(name)
	ok := n >= r.min && n <= r.max && r.pattern.MatchString(name)
	for _, f := range r.forbidden {
		ok = ok && !strings.Contains(strings.ToLower(name), f)
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("'%s' is not a valid %s name: it must be %s.", name, r.typ, r.says)
}

// nameRulesCheck refuses the create of a resource (or resource group) whose name
// breaks its type's published rule, as ARM does before the provider acts.
type nameRulesCheck struct{}

// ValidateWrite refuses a new resource whose name breaks its type's rule;
// an existing one was named under the rule already.
func (nameRulesCheck) ValidateWrite(_ armcore.Tx, _ *http.Request, t armpath.Target, _ map[string]any, exists bool) error {
	if exists {
		return nil
	}
	rule, ok := nameRuleFor(t.Type)
	if !ok {
		return nil
	}
	why := rule.breaks(t.Name)
	if why == "" {
		return nil
	}
	code := rule.code
	if code == "" {
		code = "InvalidResourceName"
	}
	return armcore.Errorf(http.StatusBadRequest, code, "%s", why)
}
