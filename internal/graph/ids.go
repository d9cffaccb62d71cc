package graph

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/validate"
	"github.com/azkcli/azk/internal/yamlnode"
)

const resourceGroupType = "Microsoft.Resources/resourceGroups"

// identify computes every node's ARM ID in dependency order (owners first)
// and reports resources that would share one.
func (b *builder) identify() {
	seen := map[string]*Node{}
	for _, n := range b.g.Nodes {
		if !n.Kind.IsARM() {
			continue
		}
		if n.Owner != nil {
			if n.Owner.ID == "" {
				if n.Owner.Pending != "" {
					n.Pending = "its owner's ARM ID is not known yet: " + n.Owner.Pending
				}
				continue // otherwise the owner could not be identified; its error is reported
			}
			n.OwnerID = n.Owner.ID
		} else if n.OwnerID == "" && hasOwnerField(n) {
			continue // the owner did not resolve; its error is reported
		}
		if hasStableUUIDName(n) && !b.stableName(n) {
			continue
		}
		if !b.nameFromConfig(n) {
			continue
		}
		if !b.checkName(n) {
			continue
		}
		id, err := IDFor(n.Kind, n.OwnerID, b.g.subscriptionFor(n), n.AzureName)
		if err != nil {
			b.errorf(n.Object, 0, "spec.owner", "%v", err)
			continue
		}
		n.ID = id
		key := strings.ToLower(id)
		if other := seen[key]; other != nil {
			b.errorf(n.Object, 0, "", "same ARM ID as %s (%s): %s", other.Address(), other.Object.Source, id)
			continue
		}
		seen[key] = n
	}
}

// IDFor builds the ARM ID of a resource of kind k owned by ownerID under the
// Azure name name, following the kind's ARM URI shape: for a node whose name
// is known only after apply (see Node.Pending), the ID it will have once
// named. Every segment is checked (see package armid), so no name or
// subscription can change which resource the ID names.
func IDFor(k *registry.Kind, ownerID, subscription, name string) (string, error) {
	id, err := buildARMID(k, ownerID, subscription, name)
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

func buildARMID(k *registry.Kind, ownerID, subscription, name string) (armid.ID, error) {
	if strings.EqualFold(k.ARMType, resourceGroupType) {
		return armid.ResourceGroup(subscription, name)
	}
	var owner armid.ID
	if ownerID != "" {
		var err error
		if owner, err = armid.ParseOffline(ownerID); err != nil {
			return armid.ID{}, err
		}
	}
	segments := strings.Split(k.ARMType, "/")
	if len(segments) > 2 && k.Scope != registry.ScopeExtension {
		// A child resource: {parentId}/{childType}/{name}.
		if ownerID == "" {
			return armid.ID{}, fmt.Errorf("%s is a child resource and needs an owner", k.Kind)
		}
		return owner.Child(segments[len(segments)-1], name)
	}
	switch k.Scope {
	case registry.ScopeResourceGroup, registry.ScopeExtension:
		if ownerID == "" {
			return armid.ID{}, fmt.Errorf("%s needs an owner", k.Kind)
		}
		return owner.Resource(k.ARMType, name)
	case registry.ScopeSubscription:
		scope, err := armid.Subscription(subscription)
		if err != nil {
			return armid.ID{}, err
		}
		return scope.Resource(k.ARMType, name)
	case registry.ScopeTenant:
		return armid.Tenant().Resource(k.ARMType, name)
	}
	return armid.ID{}, fmt.Errorf("azk cannot build ARM IDs for %s resources (scope %q)", k.Kind, k.Scope)
}

// checkARMID checks an armId given by the user: every segment valid for its
// place (see package armid).
func checkARMID(id string) error {
	if _, err := armid.Parse(id); err != nil {
		return fmt.Errorf("armId: %w", err)
	}
	return nil
}

// checkName reports Azure names that would break the resource's ARM path or
// the kind's own naming rules; it returns false when no ARM ID can be built.
func (b *builder) checkName(n *Node) bool {
	name := n.AzureName
	field, line := "metadata.name", loader.FieldLine(n.Object, "metadata", "name")
	if yamlnode.String(n.Object.Node.YNode(), "spec", "azureName") != "" {
		field, line = "spec.azureName", loader.FieldLine(n.Object, "spec", "azureName")
	}
	for _, e := range n.Edges {
		if e.Kind == EdgeConfigMap && e.Field == "spec.azureNameFromConfig" {
			field, line = e.Field, e.Ref.Line
		}
	}
	check := armid.CheckName
	if strings.EqualFold(n.Kind.ARMType, resourceGroupType) {
		check = armid.CheckResourceGroupName
	}
	switch err := check(name); {
	case name == "":
		b.errorf(n.Object, line, field, "the Azure name is empty")
	case err != nil:
		b.errorf(n.Object, line, field, "Azure name %q cannot be part of an ARM ID: %v", name, err)
	default:
		if field == "metadata.name" && name == n.Object.Name {
			// spec.azureName was checked against the schema already; a name
			// defaulted from metadata.name must meet the same rules.
			if rule := n.Kind.Spec.Child("azureName"); rule != nil {
				b.checkNameRule(n, rule, name, line)
			}
		}
		return true
	}
	return false
}

func (b *builder) checkNameRule(n *Node, rule *registry.Field, name string, line int) {
	length := len([]rune(name))
	if rule.MaxLength != nil && length > *rule.MaxLength {
		b.errorf(n.Object, line, "metadata.name", "%q is used as the Azure name and is %d characters, at most %d allowed for %s (set spec.azureName)",
			name, length, *rule.MaxLength, n.Kind.Kind)
	}
	if rule.MinLength != nil && length < *rule.MinLength {
		b.errorf(n.Object, line, "metadata.name", "%q is used as the Azure name and is %d characters, at least %d required for %s",
			name, length, *rule.MinLength, n.Kind.Kind)
	}
	if rule.Pattern != "" {
		if re := validate.Pattern(rule.Pattern); re != nil && !re.MatchString(name) {
			b.errorf(n.Object, line, "metadata.name", "%q is used as the Azure name and does not match %s's pattern %s (set spec.azureName)",
				name, n.Kind.Kind, rule.Pattern)
		}
	}
}

// ConfigMapKey is the config map name and key a config-map reference names.
func (e *Edge) ConfigMapKey() (name, key string) {
	return yamlnode.String(e.Ref.Node, "name"), yamlnode.String(e.Ref.Node, "key")
}
