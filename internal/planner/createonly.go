package planner

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/graph"
)

// CreateOnlyChange is a difference at a property Azure accepts only when
// the resource is created: a PUT that changes it is refused, so the
// resource must be deleted and created again (-replace).
type CreateOnlyChange struct {
	// Path is the create-only property's ARM body path (list items as "[]",
	// map values as "{}"), e.g. "location", "properties.resource.partitionKey".
	Path string
	// Have is Azure's value, Want the one azk sends (convert.Unknown when it
	// is known only after a dependency is applied).
	Have, Want any
	// Source says where the fact that the property is create-only comes from.
	Source string
}

// Sources of create-only facts.
const (
	// CreateOnlyLocation: ARM never moves a resource to another region.
	CreateOnlyLocation = "location"
	// CreateOnlyIdentity: the property names what the resource is (a role
	// assignment's principal and role); ARM refuses to change it.
	CreateOnlyIdentity = "identity"
)

// createOnlyFact is one property of a kind that Azure accepts only at creation.
type createOnlyFact struct {
	path   string // ARM body path as bodydiff's schema paths write it
	source string
}

// identityFacts are the create-only properties that make up what a
// resource of an ARM type (lower case) is, beyond its ARM ID. A role
// assignment's scope is its owner, part of the ARM ID, so changing it names
// another resource rather than changing this one. A federated identity
// credential's issuer, subject and audiences are updated in place by ARM.
var identityFacts = map[string][]createOnlyFact{
	// ARM answers RoleAssignmentUpdateNotPermitted.
	"microsoft.authorization/roleassignments": {
		{path: "properties.principalId", source: CreateOnlyIdentity},
		{path: "properties.roleDefinitionId", source: CreateOnlyIdentity},
	},
}

// createOnlyFacts lists the create-only properties of n's kind.
func createOnlyFacts(n *graph.Node) []createOnlyFact {
	facts := []createOnlyFact{{path: "location", source: CreateOnlyLocation}}
	return append(facts, identityFacts[strings.ToLower(n.Kind.ARMType)]...)
}

// createOnlyChanges lists the create-only properties of n whose value in
// the body azk sends (desired) differs from Azure's (current), as the
// kind's comparison rules judge it (locations, IDs and enums compare as
// ARM does). Secrets are never compared, so never listed.
func (m *maker) createOnlyChanges(n *graph.Node, desired, current map[string]any) []CreateOnlyChange {
	if current == nil || n.Kind == nil {
		return nil
	}
	facts := createOnlyFacts(n)
	rules := bodydiff.For(n.Kind)
	var out []CreateOnlyChange
	seen := map[string]bool{}
	for _, c := range rules.Diff(desired, current) {
		if c.Sensitive {
			continue
		}
		p, err := armjson.ParsePath(c.Path)
		if err != nil {
			continue
		}
		schema := rules.SchemaOf(p)
		for _, f := range facts {
			if !within(schema, f.path) || seen[f.path] {
				continue
			}
			seen[f.path] = true
			have, want := c.Before, c.After
			if fp, err := armjson.ParsePath(f.path); err == nil && !strings.ContainsAny(f.path, "[]{}") {
				// The whole property, not only the item or key that differs.
				have, _ = fp.Get(current)
				want, _ = fp.Get(desired)
			}
			out = append(out, CreateOnlyChange{Path: f.path, Have: have, Want: want, Source: f.source})
		}
	}
	return out
}

// within reports whether the schema path is the property at fact or lies inside it.
func within(schema, fact string) bool {
	if !strings.HasPrefix(schema, fact) {
		return false
	}
	rest := schema[len(fact):]
	return rest == "" || rest[0] == '.' || rest[0] == '[' || rest[0] == '{'
}

// replaceReasons lists the changes Azure cannot make in place, each with
// where the fact comes from. azk deletes to create again only when asked
// (-replace=address), so each is an error.
func (m *maker) replaceReasons(n *graph.Node, desired, current map[string]any) []string {
	address := n.Address()
	var reasons []string
	for _, c := range m.createOnlyChanges(n, desired, current) {
		recipe := fmt.Sprintf("-replace=%s deletes it and creates it again (with what ARM deletes with it), --allow-partial applies the rest", address)
		if c.Source == CreateOnlyLocation {
			reasons = append(reasons, fmt.Sprintf("location: Azure has %q, the manifest says %q; Azure cannot move it in place: %s", c.Have, c.Want, recipe))
			continue
		}
		reasons = append(reasons, fmt.Sprintf("%s: Azure has %s, the manifest says %s; Azure accepts it only at creation (%s): %s",
			c.Path, bodydiff.Format(c.Have), bodydiff.Format(c.Want), c.Source, recipe))
	}
	return reasons
}
