// Package armtemplate holds the facts of ARM's template language that azk
// both writes (package deployment, for ARM's deployment engine) and reads
// (the emulator, which runs templates as ARM does), so that the two cannot
// disagree: which strings are expressions, how a literal is escaped, which
// keys of a template resource are not its body, and a deployment scope's ID.
// It imports nothing of azk's, so the emulator can read it without
// depending on the deployment package.
package armtemplate

import "strings"

// IsExpression reports whether ARM evaluates a template string: it starts
// with "[" and ends with "]", and does not start with "[[".
func IsExpression(s string) bool {
	return strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && !strings.HasPrefix(s, "[[")
}

// Escape is the template string for the literal s: one that ARM would
// evaluate or unescape (it starts with "[" and ends with "]") gets another
// "[" in front.
func Escape(s string) string {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		return "[" + s
	}
	return s
}

// Unescape is the literal a template string that is not an expression
// stands for: "[[" at the start of one ending in "]" reads as "[".
func Unescape(s string) string {
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]") {
		return s[1:]
	}
	return s
}

// templateKeys are the keys of a template resource that the template reads
// itself, lower-cased; the others are the body of the resource's PUT.
var templateKeys = map[string]bool{
	"type": true, "apiversion": true, "name": true, "dependson": true, "condition": true, "copy": true,
	"comments": true, "scope": true, "resourcegroup": true, "subscriptionid": true,
}

// TemplateKey reports whether key (in any case) of a template resource is
// the template's own and not part of the body the resource is PUT with.
func TemplateKey(key string) bool { return templateKeys[strings.ToLower(key)] }

// ScopeID is the ARM ID of a deployment's scope:
// "/subscriptions/{s}/resourceGroups/{rg}", "/subscriptions/{s}", or "" for
// the tenant.
func ScopeID(subscription, resourceGroup string) string {
	switch {
	case resourceGroup != "":
		return "/subscriptions/" + subscription + "/resourceGroups/" + resourceGroup
	case subscription != "":
		return "/subscriptions/" + subscription
	}
	return ""
}
