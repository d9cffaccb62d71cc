package preflight

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/planner"
)

// ProvidersAPIVersion is the Microsoft.Resources api-version of the
// provider reads and registrations.
const ProvidersAPIVersion = "2021-04-01"

// providerInfo is what GET /subscriptions/{s}/providers/{namespace} says.
type providerInfo struct {
	Namespace         string `json:"namespace"`
	RegistrationState string `json:"registrationState"`
	ResourceTypes     []struct {
		ResourceType string   `json:"resourceType"`
		Locations    []string `json:"locations"`
		APIVersions  []string `json:"apiVersions"`
	} `json:"resourceTypes"`
}

// alwaysRegistered are ARM's own namespaces, registered in every subscription.
var alwaysRegistered = []string{"microsoft.resources", "microsoft.authorization"}

// provider reads a namespace's registration and resource types from the
// subscription's providers (GET /subscriptions/{s}/providers, one read for
// every namespace).
func (r *run) provider(sub, ns string) (*providerInfo, error) {
	items, err := r.providerList(sub)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		var p providerInfo
		if err := json.Unmarshal(it, &p); err != nil {
			return nil, fmt.Errorf("GET /subscriptions/%s/providers: %w", sub, err)
		}
		if strings.EqualFold(p.Namespace, ns) {
			return &p, nil
		}
	}
	return nil, fmt.Errorf("subscription %s has no resource provider %s", sub, ns)
}

// providerList reads a subscription's providers, once per run.
func (r *run) providerList(sub string) ([]json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if items, ok := r.providers[sub]; ok {
		return items, nil
	}
	items, err := r.client.List(r.ctx, "/subscriptions/"+sub+"/providers", ProvidersAPIVersion)
	if err == nil {
		if r.providers == nil {
			r.providers = map[string][]json.RawMessage{}
		}
		r.providers[sub] = items
	}
	return items, err
}

// providers checks, for each namespace the plan writes, that it is
// registered in the subscription, and for each resource that its type is
// offered in its location at its api-version.
func providers(r *run) []planner.Finding {
	var out []planner.Finding
	infos := map[string]*providerInfo{}
	failed := map[string]error{}
	reported := map[string]bool{}
	for _, res := range r.writes() {
		sub, _ := scopeOf(res.ARMID)
		ns, rest, _ := strings.Cut(res.ARMType, "/")
		if sub == "" || slices.Contains(alwaysRegistered, strings.ToLower(ns)) {
			continue
		}
		key := strings.ToLower(sub + "/" + ns)
		if _, seen := infos[key]; !seen && failed[key] == nil {
			p, err := r.provider(sub, ns)
			infos[key], failed[key] = p, err
		}
		p := infos[key]
		if p == nil {
			if !reported[key] {
				reported[key] = true
				out = append(out, checkFailed(res, "providers", failed[key]))
			}
			continue
		}
		if p.RegistrationState != "Registered" && !reported[key] {
			reported[key] = true
			affects := strings.Join(r.writesOf(sub, ns), ", ")
			if r.opts.RegisterProviders {
				out = append(out, finding(res, "providers", "ProviderWillBeRegistered", planner.SeverityWarning,
					"the resource provider %s is %s in subscription %s: azk apply registers it (--register-providers) before the first write; it affects %s", ns, strings.ToLower(p.RegistrationState), sub, affects))
			} else {
				out = append(out, finding(res, "providers", "ProviderNotRegistered", planner.SeverityError,
					"the resource provider %s is %s in subscription %s, so ARM refuses its types (MissingSubscriptionRegistration): register it (az provider register --namespace %s), or apply with --register-providers; it affects %s",
					ns, strings.ToLower(p.RegistrationState), sub, ns, affects))
			}
		}
		for _, rt := range p.ResourceTypes {
			if !strings.EqualFold(rt.ResourceType, rest) {
				continue
			}
			if loc := location(res); loc != "" && loc != "global" && len(rt.Locations) > 0 &&
				!slices.ContainsFunc(rt.Locations, func(l string) bool { return normLocation(l) == loc }) {
				shown := rt.Locations
				if len(shown) > 12 {
					shown = append(slices.Clone(shown[:12]), fmt.Sprintf("and %d more", len(rt.Locations)-12))
				}
				out = append(out, finding(res, "providers", "LocationNotOffered", planner.SeverityError,
					"%s is not offered in %s; it is in: %s", res.ARMType, loc, strings.Join(shown, ", ")))
			}
			if len(rt.APIVersions) > 0 && !slices.Contains(rt.APIVersions, res.APIVersion) {
				out = append(out, finding(res, "providers", "ApiVersionNotOffered", planner.SeverityError,
					"%s does not offer api-version %s (newest it offers: %s)", res.ARMType, res.APIVersion, rt.APIVersions[0]))
			}
		}
	}
	return out
}

// writesOf are the addresses of the plan's writes of namespace ns in
// subscription sub: what that provider's registration affects.
func (r *run) writesOf(sub, ns string) []string {
	var out []string
	for _, res := range r.writes() {
		if s, _ := scopeOf(res.ARMID); strings.EqualFold(s, sub) && strings.EqualFold(strings.SplitN(res.ARMType, "/", 2)[0], ns) {
			out = append(out, res.Address)
		}
	}
	return out
}

// registrationFindings are the providers check's findings of a provider
// that is not registered, by subscription/namespace (lower-cased): the
// cause validate's MissingSubscriptionRegistration refusals follow from.
func registrationFindings(fs []planner.Finding) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		if f.Code == "ProviderNotRegistered" || f.Code == "ProviderWillBeRegistered" {
			if key := providerKey(f.ARMID); key != "" {
				out[key] = true
			}
		}
	}
	return out
}

// followsFromRegistration tells whether a validate finding is ARM refusing
// a type of a provider registered (the key set of registrationFindings)
// says is not registered: by the namespace of the resource it is about, or,
// for one about a template's scope, the namespace its message names.
func followsFromRegistration(f planner.Finding, unregistered map[string]bool) bool {
	if f.Check != "validate" || f.Code != "MissingSubscriptionRegistration" {
		return false
	}
	if unregistered[providerKey(f.ARMID)] {
		return true
	}
	sub := strings.ToLower(armid.SubscriptionOf(f.ARMID))
	message := strings.ToLower(f.Message)
	for key := range unregistered {
		s, ns, _ := strings.Cut(key, "/")
		if s == sub && strings.Contains(message, ns) {
			return true
		}
	}
	return false
}

// providerKey is subscription/namespace (lower-cased) of the resource id
// names: its own type's namespace, an extension resource's included.
func providerKey(id string) string {
	parsed, err := armid.Parse(id)
	if err != nil || len(parsed.Providers) == 0 || parsed.Subscription == "" {
		return ""
	}
	return strings.ToLower(parsed.Subscription + "/" + parsed.Providers[len(parsed.Providers)-1].Namespace)
}

// RegisterProviders registers, in each subscription the plan writes to, the
// resource providers of its types that are not registered, and waits until
// ARM says they are (azk apply --register-providers, as Terraform's azurerm
// provider does). It returns the namespaces it registered.
func RegisterProviders(ctx context.Context, client *arm.Client, p *planner.Plan) ([]string, error) {
	r := &run{ctx: ctx, client: client, plan: p}
	var done []string
	seen := map[string]bool{}
	for _, res := range r.writes() {
		sub, _ := scopeOf(res.ARMID)
		ns := strings.SplitN(res.ARMType, "/", 2)[0]
		key := strings.ToLower(sub + "/" + ns)
		if sub == "" || seen[key] || slices.Contains(alwaysRegistered, strings.ToLower(ns)) {
			continue
		}
		seen[key] = true
		info, err := r.provider(sub, ns)
		if err != nil {
			return done, err
		}
		if info.RegistrationState == "Registered" {
			continue
		}
		op, err := client.Post(ctx, "/subscriptions/"+sub+"/providers/"+ns+"/register", ProvidersAPIVersion, nil)
		if err == nil {
			_, err = op.Wait(ctx)
		}
		if err != nil {
			return done, fmt.Errorf("registering %s: %w", ns, err)
		}
		for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
			r.providers = nil // read the state again
			info, err := r.provider(sub, ns)
			if err != nil {
				return done, err
			}
			if info.RegistrationState == "Registered" {
				break
			}
			select {
			case <-ctx.Done():
				return done, ctx.Err()
			case <-time.After(wait):
			}
		}
		done = append(done, ns+" (subscription "+sub+")")
	}
	return done, nil
}
