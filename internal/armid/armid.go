// Package armid parses Azure Resource Manager IDs into typed segments and
// builds request paths from them. Every ARM ID azk uses (an armId in a
// manifest, a credential Secret's subscription, an Azure name read from
// another resource's status, every path the ARM client requests) goes through
// it, so no value can add a query, a fragment or a path segment to a request:
// each segment must be a valid ARM name for its place, and paths are built by
// escaping each segment, never by concatenating text.
package armid

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SubscriptionPlaceholder stands for the subscription in the IDs azk shows
// when no subscription is known (offline commands). Only ParseOffline accepts
// it; a request path never holds it.
const SubscriptionPlaceholder = "{subscriptionId}"

// ID is a parsed ARM ID:
//
//	/subscriptions/{Subscription}/resourceGroups/{ResourceGroup}/providers/{Namespace}/{Type}/{Name}[/{Type}/{Name}]...[/providers/...]
//
// Subscription and ResourceGroup are empty above their scope. Each element of
// Providers is one /providers/ section: the first is a resource in the
// subscription or resource group scope (or at tenant scope), each later one an
// extension resource of the one before it.
type ID struct {
	Subscription  string
	ResourceGroup string
	Providers     []Provider
}

// Provider is one /providers/{Namespace}/{Type}/{Name}... section.
type Provider struct {
	Namespace string
	// Resources are the type and name pairs, top-level first ("virtualNetworks"
	// "vnet", then "subnets" "web").
	Resources []TypeName
}

// TypeName is one resource type segment and the name after it.
type TypeName struct{ Type, Name string }

// Error is a rejected ARM ID or segment.
type Error struct {
	// Input is the whole ID (or segment) checked.
	Input string
	// Reason says which segment is wrong and why.
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("ARM ID %q: %s", e.Input, e.Reason) }

// Parse parses an ARM ID and checks every segment. Keywords (subscriptions,
// resourceGroups, providers) match in any case, as ARM's do.
func Parse(s string) (ID, error) { return parse(s, false) }

// ParseOffline is Parse that also accepts SubscriptionPlaceholder as the
// subscription, for IDs azk built without a known subscription.
func ParseOffline(s string) (ID, error) { return parse(s, true) }

// ParsePath parses a request path: an ARM ID, or an ARM ID followed by a
// collection or an action: one more segment (".../resources", ".../subnets",
// ".../purge") or a provider's collection ("/providers/Microsoft.Authorization/roleDefinitions").
// tail holds those extra segments, each checked as a resource type.
func ParsePath(s string) (id ID, tail []string, err error) {
	id, err = Parse(s)
	if err == nil {
		return id, nil, nil
	}
	segs := strings.Split(s, "/")
	for _, n := range []int{1, 3} {
		if len(segs) < n+1 {
			continue
		}
		rest := segs[len(segs)-n:]
		if n == 3 && (!strings.EqualFold(rest[0], "providers") || checkNamespace(rest[1]) != "") {
			continue
		}
		if checkType(rest[n-1]) != "" {
			continue
		}
		if len(segs) == n+1 {
			if n == 3 && segs[0] == "" { // a tenant-level collection: /providers/{namespace}/{type}
				return ID{}, rest, nil
			}
			continue
		}
		if scopeID, perr := Parse(strings.Join(segs[:len(segs)-n], "/")); perr == nil {
			return scopeID, rest, nil
		}
	}
	return ID{}, nil, err
}

// PathWith is the URL path of id followed by tail (from ParsePath), every segment escaped.
func (id ID) PathWith(tail []string) string {
	p := id.Path()
	if p == "/" {
		p = ""
	}
	for _, t := range tail {
		p += "/" + url.PathEscape(t)
	}
	if p == "" {
		return "/"
	}
	return p
}

func parse(s string, offline bool) (ID, error) {
	fail := func(format string, args ...any) (ID, error) {
		return ID{}, &Error{Input: s, Reason: fmt.Sprintf(format, args...)}
	}
	if !strings.HasPrefix(s, "/") {
		return fail("must start with /subscriptions/ or /providers/")
	}
	if s == "/" {
		return fail("is the tenant root, not a resource")
	}
	segs := strings.Split(s[1:], "/")
	for i, seg := range segs {
		if seg == "" {
			return fail("segment %d is empty", i+1)
		}
	}
	var id ID
	i := 0
	if strings.EqualFold(segs[0], "subscriptions") {
		if len(segs) < 2 {
			return fail("subscriptions has no subscription ID after it")
		}
		if !(offline && segs[1] == SubscriptionPlaceholder) {
			if reason := checkSubscription(segs[1]); reason != "" {
				return fail("%s", reason)
			}
		}
		id.Subscription = segs[1]
		i = 2
		if i < len(segs) && strings.EqualFold(segs[i], "resourceGroups") {
			if i+1 >= len(segs) {
				return fail("resourceGroups has no name after it")
			}
			if reason := checkResourceGroup(segs[i+1]); reason != "" {
				return fail("%s", reason)
			}
			id.ResourceGroup = segs[i+1]
			i += 2
		}
	}
	for i < len(segs) {
		if !strings.EqualFold(segs[i], "providers") {
			return fail("segment %q: expected providers", segs[i])
		}
		if i+3 >= len(segs) {
			return fail("providers needs a namespace, a type and a name")
		}
		p := Provider{Namespace: segs[i+1]}
		if reason := checkNamespace(p.Namespace); reason != "" {
			return fail("%s", reason)
		}
		i += 2
		for i < len(segs) && !strings.EqualFold(segs[i], "providers") {
			if i+1 >= len(segs) {
				return fail("type %q has no name after it", segs[i])
			}
			tn := TypeName{Type: segs[i], Name: segs[i+1]}
			if reason := checkType(tn.Type); reason != "" {
				return fail("%s", reason)
			}
			if reason := checkName(tn.Name); reason != "" {
				return fail("%s", reason)
			}
			p.Resources = append(p.Resources, tn)
			i += 2
		}
		id.Providers = append(id.Providers, p)
	}
	if id.Subscription == "" && len(id.Providers) == 0 {
		return fail("names no subscription, resource group or resource")
	}
	return id, nil
}

// SubscriptionOf is the subscription an ARM ID or path names, as written, or
// "" for none (a tenant's or a management group's resource). It reads the
// leading segments only, checking nothing: for IDs already known to be
// well formed, or where any subscription segment will do.
func SubscriptionOf(id string) string {
	first, rest, _ := strings.Cut(strings.TrimPrefix(id, "/"), "/")
	if !strings.EqualFold(first, "subscriptions") {
		return ""
	}
	sub, _, _ := strings.Cut(rest, "/")
	return sub
}

// ResourceGroupOf is the ID of the resource group that holds id, or "" when
// id is not one or is not in a resource group.
func ResourceGroupOf(id string) string {
	parsed, err := Parse(id)
	if err != nil {
		return ""
	}
	if rg, ok := parsed.ResourceGroupID(); ok {
		return rg.String()
	}
	return ""
}

// ResourceGroup is the ID of a resource group.
func ResourceGroup(subscription, name string) (ID, error) {
	id := ID{Subscription: subscription, ResourceGroup: name}
	return id, id.check(true)
}

// Subscription is the ID of a subscription.
func Subscription(subscription string) (ID, error) {
	id := ID{Subscription: subscription}
	return id, id.check(true)
}

// Tenant is the tenant scope, where tenant resources (Microsoft.Subscription/aliases) live.
func Tenant() ID { return ID{} }

// Resource is the ID of a top-level resource of armType ("Microsoft.Network/virtualNetworks")
// named name in scope id: in a subscription or resource group, at tenant
// scope, or as an extension resource of the resource id.
func (id ID) Resource(armType, name string) (ID, error) {
	ns, typ, ok := strings.Cut(armType, "/")
	if !ok || strings.Contains(typ, "/") {
		return ID{}, &Error{Input: armType, Reason: "a top-level resource type is {namespace}/{type}"}
	}
	out := id.clone()
	out.Providers = append(out.Providers, Provider{Namespace: ns, Resources: []TypeName{{Type: typ, Name: name}}})
	return out, out.check(true)
}

// Child is the ID of the child resource of type typ ("subnets") named name.
func (id ID) Child(typ, name string) (ID, error) {
	if len(id.Providers) == 0 {
		return ID{}, &Error{Input: id.String(), Reason: "a subscription or resource group has no child resources of type " + typ}
	}
	out := id.clone()
	last := &out.Providers[len(out.Providers)-1]
	last.Resources = append(last.Resources, TypeName{Type: typ, Name: name})
	return out, out.check(true)
}

func (id ID) clone() ID {
	out := ID{Subscription: id.Subscription, ResourceGroup: id.ResourceGroup, Providers: make([]Provider, len(id.Providers))}
	for i, p := range id.Providers {
		out.Providers[i] = Provider{Namespace: p.Namespace, Resources: append([]TypeName(nil), p.Resources...)}
	}
	return out
}

// check validates every segment of an ID built from parts.
func (id ID) check(offline bool) error {
	reason := ""
	switch {
	case id.Subscription == "" && id.ResourceGroup != "":
		reason = "a resource group needs a subscription"
	case id.Subscription != "" && !(offline && id.Subscription == SubscriptionPlaceholder):
		reason = checkSubscription(id.Subscription)
	}
	if reason == "" && id.ResourceGroup != "" {
		reason = checkResourceGroup(id.ResourceGroup)
	}
	for _, p := range id.Providers {
		if reason == "" {
			reason = checkNamespace(p.Namespace)
		}
		for _, r := range p.Resources {
			if reason == "" {
				reason = checkType(r.Type)
			}
			if reason == "" {
				reason = checkName(r.Name)
			}
		}
	}
	if reason != "" {
		return &Error{Input: id.String(), Reason: reason}
	}
	return nil
}

// String is the ID as ARM writes it, segments unescaped.
func (id ID) String() string { return id.join(func(s string) string { return s }) }

// Path is the ID as a URL path, each segment escaped with url.PathEscape.
func (id ID) Path() string { return id.join(url.PathEscape) }

func (id ID) join(escape func(string) string) string {
	var b strings.Builder
	if id.Subscription != "" {
		b.WriteString("/subscriptions/" + escape(id.Subscription))
	}
	if id.ResourceGroup != "" {
		b.WriteString("/resourceGroups/" + escape(id.ResourceGroup))
	}
	for _, p := range id.Providers {
		b.WriteString("/providers/" + escape(p.Namespace))
		for _, r := range p.Resources {
			b.WriteString("/" + escape(r.Type) + "/" + escape(r.Name))
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// Type is the ARM resource type: "Microsoft.Network/virtualNetworks/subnets",
// "Microsoft.Resources/resourceGroups" or "Microsoft.Resources/subscriptions".
func (id ID) Type() string {
	if n := len(id.Providers); n > 0 {
		p := id.Providers[n-1]
		t := p.Namespace
		for _, r := range p.Resources {
			t += "/" + r.Type
		}
		return t
	}
	if id.ResourceGroup != "" {
		return "Microsoft.Resources/resourceGroups"
	}
	if id.Subscription != "" {
		return "Microsoft.Resources/subscriptions"
	}
	return ""
}

// Name is the resource's own name (the resource group's, the subscription ID).
func (id ID) Name() string {
	if n := len(id.Providers); n > 0 {
		rs := id.Providers[n-1].Resources
		return rs[len(rs)-1].Name
	}
	if id.ResourceGroup != "" {
		return id.ResourceGroup
	}
	return id.Subscription
}

// ResourceGroupID is the resource group the resource is in, if any.
func (id ID) ResourceGroupID() (ID, bool) {
	if id.ResourceGroup == "" {
		return ID{}, false
	}
	return ID{Subscription: id.Subscription, ResourceGroup: id.ResourceGroup}, true
}

// CheckName reports why name cannot be the Azure name of a resource (a
// segment of its ARM ID), or nil.
func CheckName(name string) error {
	if reason := checkName(name); reason != "" {
		return errors.New(reason)
	}
	return nil
}

// CheckResourceGroupName reports why name cannot be a resource group's name, or nil.
func CheckResourceGroupName(name string) error {
	if reason := checkResourceGroup(name); reason != "" {
		return errors.New(reason)
	}
	return nil
}

// CheckSubscription reports why s is not a subscription ID, or nil.
func CheckSubscription(s string) error {
	if reason := checkSubscription(s); reason != "" {
		return errors.New(reason)
	}
	return nil
}

// checkSubscription: a subscription ID is a GUID in its 36-character form.
func checkSubscription(s string) string {
	if len(s) != 36 {
		return fmt.Sprintf("subscription %q is not a GUID", s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return fmt.Sprintf("subscription %q is not a GUID", s)
			}
		default:
			if !isHex(c) {
				return fmt.Sprintf("subscription %q is not a GUID", s)
			}
		}
	}
	return ""
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// checkResourceGroup follows ARM's rule for resource group names: 1 to 90
// letters, digits, underscores, hyphens, periods and parentheses, not ending
// in a period.
func checkResourceGroup(s string) string {
	if !utf8.ValidString(s) || s == "" || utf8.RuneCountInString(s) > 90 || strings.HasSuffix(s, ".") {
		return fmt.Sprintf("resource group name %q must be 1 to 90 characters and not end in a period", s)
	}
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-.()", r)) {
			return fmt.Sprintf("resource group name %q may hold only letters, digits, _ - . ( and ), not %q", s, r)
		}
	}
	return ""
}

// checkNamespace: a resource provider namespace is dot-separated words of
// ASCII letters and digits ("Microsoft.Network").
func checkNamespace(s string) string {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return fmt.Sprintf("resource provider namespace %q is not {company}.{provider}", s)
	}
	for _, p := range parts {
		if p == "" || !isWord(p) {
			return fmt.Sprintf("resource provider namespace %q may hold only letters, digits and dots", s)
		}
	}
	return ""
}

// checkType: a resource type segment is ASCII letters and digits ("virtualNetworks").
func checkType(s string) string {
	if s == "" || !isWord(s) || !isLetter(s[0]) {
		return fmt.Sprintf("resource type %q may hold only letters and digits, starting with a letter", s)
	}
	return ""
}

func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) && !('0' <= s[i] && s[i] <= '9') {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// checkName: a resource name is a whole path segment. ARM refuses names with
// / ? # % \ in them, and whitespace, control characters and the relative
// segments . and .. would change or hide which resource a path names.
func checkName(s string) string {
	switch {
	case s == "":
		return "a resource name is empty"
	case !utf8.ValidString(s):
		return fmt.Sprintf("resource name %q is not UTF-8", s)
	case s == "." || s == "..":
		return fmt.Sprintf("resource name %q is a relative path segment", s)
	}
	for _, r := range s {
		switch {
		case strings.ContainsRune(`/?#%\`, r):
			return fmt.Sprintf("resource name %q contains %q, which ARM does not allow in names", s, r)
		case unicode.IsSpace(r):
			return fmt.Sprintf("resource name %q contains whitespace", s)
		case unicode.IsControl(r) || r == utf8.RuneError:
			return fmt.Sprintf("resource name %q contains a control character", s)
		}
	}
	return ""
}
