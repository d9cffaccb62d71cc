// Package deployment hands a plan to ARM's own deployment engine. It turns
// the plan's writes into ARM deployment templates, one per scope and split at
// ARM's limits, submits them as deployments or a deployment stack, follows
// their operations resource by resource, and asks ARM's what-if about the
// same templates to cross-check the plan.
//
// A template carries exactly the plan's creates and updates, each with its
// exact body and api-version. Resources the plan leaves alone are not in it:
// ARM deploys every resource a template names again (what-if calls that
// "NoChange", yet sends the PUT), while an incremental deployment leaves
// what it does not name untouched. The exception is a deployment stack,
// which must name every resource it manages, or it would detach or delete
// the rest (see Options.Unchanged).
package deployment

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// ARM's limits on one template.
const (
	maxResources  = 800
	maxParameters = 256
	maxOutputs    = 64
	// maxBytes is ARM's 4 MB per template, less room for the deployment
	// request around it.
	maxBytes = 4<<20 - 64<<10
)

// APIVersion is the Microsoft.Resources api-version azk uses for
// deployments, their operations and what-if, and for nested deployments.
const APIVersion = "2022-09-01"

// Options shape the templates.
type Options struct {
	// Unchanged puts the plan's no-change resources in the templates too, for
	// a deployment stack (which detaches or deletes what its template no
	// longer names) and for what-if (to hear ARM's verdict on them). ARM
	// deploys them again, with the body Azure already holds.
	Unchanged bool
	// MaxResources and MaxBytes lower ARM's limits per template (tests).
	MaxResources, MaxBytes int
	// Validation builds templates only for ARM's validation, never
	// deployed: a value known only after apply that a template cannot
	// compute (a secret another resource exports, not a status field)
	// stands as reference() to the resource it comes from, which validation
	// takes as known only after deployment, as it does the values a
	// template computes; so the property is there, as apply will send it.
	Validation bool
}

// Set is the plan as deployments.
type Set struct {
	Templates []*Template
	// Held are the plan's writes left out because a resource they depend on
	// cannot be applied (blocked, or not created): address -> that resource.
	Held map[string]string
}

// Template is one deployment: an ARM template at its scope, with the plan's
// resources it deploys.
type Template struct {
	// File is the template's file name in an export.
	File  string
	Scope Scope
	// Location is where ARM keeps a subscription or tenant deployment's
	// metadata; empty for a resource group.
	Location string
	// Resources are the plan's resources it deploys, nested deployments'
	// included, in plan order.
	Resources []*planner.Resource
	// After are the templates that must succeed before this one starts.
	After []*Template

	doc     object
	secrets []secret
	// namedLater maps the resources named after apply to the start of the
	// ARM ID they will have (all but the name), to find them in the
	// deployment's operations.
	namedLater map[*planner.Resource]string
}

// JSON is the template as written to its file.
func (t *Template) JSON() ([]byte, error) { return marshalIndent(t.doc) }

// Parameters are the values of the template's secureString parameters, for
// the deployment request only: they are never written anywhere.
func (t *Template) Parameters() map[string]any {
	out := make(map[string]any, len(t.secrets))
	for _, s := range t.secrets {
		out[s.name] = map[string]any{"value": convert.RevealSecrets(s.value)}
	}
	return out
}

// Document is the template as a decoded JSON value (for requests).
func (t *Template) Document() any { return t.doc }

// ParameterNames lists the secureString parameters with what each carries.
func (t *Template) ParameterNames() [][2]string {
	out := make([][2]string, len(t.secrets))
	for i, s := range t.secrets {
		out[i] = [2]string{s.name, s.description}
	}
	return out
}

// item is one plan resource on its way into a template.
type item struct {
	r          *planner.Resource
	id         armid.ID
	scope      Scope
	apiVersion string
	pos        int
	deps       []*item
	rank       int
	body       map[string]any // the template body: secrets as parameters, late values as references
	secrets    []secret
	size       int
	chunk      *chunk
	// late is set for a resource whose Azure name another resource's status
	// gives (azureNameFromConfig); id then holds a placeholder name.
	late *lateName
}

// lateName is where a resource named after apply takes its name from.
type lateName struct {
	param, description string
	node               *graph.Node // the resource exporting the name
	from               *item
	path               []string // where that resource's ARM body holds it
}

// latePlaceholder stands for a name known only after apply in the ID azk
// keeps for the resource until the deployment names it.
const latePlaceholder = "azk-named-after-apply"

// chunk is the resources of one scope that go into one template.
type chunk struct {
	scope   Scope
	items   []*item
	deps    []*chunk
	bytes   int
	secrets int
	root    *root
	nested  bool
	suffix  int // the nested deployment's name is the root's, then "-suffix"
}

// Build turns the plan into deployments.
func Build(p *planner.Plan, opts Options) (*Set, error) {
	if opts.MaxResources <= 0 || opts.MaxResources > maxResources {
		opts.MaxResources = maxResources
	}
	if opts.MaxBytes <= 0 || opts.MaxBytes > maxBytes {
		opts.MaxBytes = maxBytes
	}
	if p.Drift {
		return nil, errors.New("a drift report proposes nothing to deploy")
	}
	set := &Set{Held: map[string]string{}}
	deps := planDependencies(p)
	byResource := map[*planner.Resource]*item{}
	var items []*item
	var errs []error
	names := map[string]int{}
	for _, r := range p.Resources {
		if !included(r, opts) {
			continue
		}
		if blocker := heldBy(r, deps, set.Held); blocker != "" {
			set.Held[r.Address] = blocker
			continue
		}
		it, err := newItem(r, len(items))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, d := range deps[r] {
			if di := byResource[d]; di != nil {
				it.deps = append(it.deps, di)
			}
		}
		byResource[r] = it
		items = append(items, it)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	byNode := map[*graph.Node]*item{}
	for _, it := range items {
		if it.r.Node != nil {
			byNode[it.r.Node] = it
		}
	}
	for _, it := range items {
		if err := it.convert(byNode, names, opts.Validation); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	chunks := chunkItems(items, opts)
	roots := pack(chunks, opts)
	for i, rt := range roots {
		t, err := rt.render()
		if err != nil {
			return nil, err
		}
		t.File = fmt.Sprintf("%02d-%s.json", i+1, slug(t.Scope))
		rt.template = t
		set.Templates = append(set.Templates, t)
	}
	for _, rt := range roots {
		for _, other := range roots {
			if rt.after[other] {
				rt.template.After = append(rt.template.After, other.template)
			}
		}
	}
	return set, nil
}

// included says whether r goes into a template: the plan's writes, and with
// Unchanged the resources that exist and match.
func included(r *planner.Resource, opts Options) bool {
	return r.Writes() || (opts.Unchanged && r.Action == planner.ActionNoChange)
}

// heldBy is the resource that keeps r from being applied: a dependency
// that is blocked, needs replacing, is skipped while missing, or is held
// itself.
func heldBy(r *planner.Resource, deps map[*planner.Resource][]*planner.Resource, held map[string]string) string {
	for _, d := range deps[r] {
		if b, ok := held[d.Address]; ok {
			return b
		}
		if d.Action == planner.ActionBlocked || d.Action == planner.ActionReplace || d.SkipMissing() {
			return d.Address
		}
	}
	return ""
}

// planDependencies maps each plan resource to the plan resources it waits
// for: its node's dependencies, else the addresses the plan lists.
func planDependencies(p *planner.Plan) map[*planner.Resource][]*planner.Resource {
	byNode := map[*graph.Node]*planner.Resource{}
	byAddress := map[string]*planner.Resource{}
	for _, r := range p.Resources {
		if r.Node != nil {
			byNode[r.Node] = r
		}
		byAddress[r.Address] = r
	}
	out := map[*planner.Resource][]*planner.Resource{}
	for _, r := range p.Resources {
		if r.Node != nil {
			for _, d := range r.Node.DependsOn() {
				if dr := byNode[d]; dr != nil {
					out[r] = append(out[r], dr)
				}
			}
			continue
		}
		for _, a := range r.DependsOn {
			if dr := byAddress[a]; dr != nil {
				out[r] = append(out[r], dr)
			}
		}
	}
	return out
}

func newItem(r *planner.Resource, pos int) (*item, error) {
	armID, late := r.ARMID, (*lateName)(nil)
	if armID == "" {
		var err error
		if armID, late, err = namedAfterApply(r); err != nil {
			return nil, err
		}
	}
	if r.Request != nil && len(r.Request.Before) > 0 {
		return nil, fmt.Errorf("%s: %s %s must be sent first (a soft-deleted vault's purge), which a template cannot do: apply with the default engine", r.Address, r.Request.Before[0].Method, r.Request.Before[0].Path)
	}
	id, err := armid.Parse(armID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Address, err)
	}
	scope, err := scopeOf(id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Address, err)
	}
	it := &item{r: r, id: id, scope: scope, apiVersion: r.APIVersion, pos: pos, late: late}
	if it.apiVersion == "" && r.Request != nil {
		_, q, _ := strings.Cut(r.Request.URL, "api-version=")
		it.apiVersion, _, _ = strings.Cut(q, "&")
	}
	if it.apiVersion == "" {
		return nil, fmt.Errorf("%s: the plan holds no api-version for it", r.Address)
	}
	return it, nil
}

// namedAfterApply prepares a resource whose Azure name is another
// resource's status value: its ID with a placeholder name, and where the
// name comes from, which its nested deployment reads with reference().
func namedAfterApply(r *planner.Resource) (string, *lateName, error) {
	n := r.Node
	cannot := fmt.Errorf("%s: its Azure name is known only after another resource is applied, and a template cannot name it from there: apply with the default engine", r.Address)
	if n == nil || n.Kind == nil || n.NameSource() == nil || n.NameSource().To == nil || n.OwnerID == "" {
		return "", nil, cannot
	}
	src := n.NameSource()
	name, key := src.ConfigMapKey()
	path, ok := exportedPath(src.To, name, key)
	if !ok {
		return "", nil, cannot
	}
	owner, err := armid.Parse(n.OwnerID)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", r.Address, err)
	}
	id, err := graph.IDFor(n.Kind, n.OwnerID, owner.Subscription, latePlaceholder)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", r.Address, err)
	}
	return id, &lateName{node: src.To, path: path,
		description: fmt.Sprintf("the Azure name of %s: config map %s key %s, exported by %s", r.Address, name, key, src.To.Address())}, nil
}

// desired is the body the plan says to PUT.
func desired(r *planner.Resource) map[string]any {
	if r.Desired != nil {
		return r.Desired
	}
	if r.Request != nil {
		return r.Request.Body
	}
	return map[string]any{}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// uniqueName makes base a template identifier unused in names.
func uniqueName(base string, names map[string]int) string {
	base = strings.Trim(unsafeName.ReplaceAllString(base, "_"), "_")
	if base == "" || (base[0] >= '0' && base[0] <= '9') {
		base = "p_" + base
	}
	names[strings.ToLower(base)]++
	if n := names[strings.ToLower(base)]; n > 1 {
		return fmt.Sprintf("%s_%d", base, n)
	}
	return base
}

// convert writes the item's template body.
func (it *item) convert(byNode map[*graph.Node]*item, names map[string]int, validation bool) error {
	if it.late != nil {
		if it.late.from = byNode[it.late.node]; it.late.from == nil {
			return fmt.Errorf("%s: its Azure name comes from %s, which the deployment does not create", it.r.Address, it.late.node.Address())
		}
		it.late.param = uniqueName(it.r.Name+"_name", names)
	}
	w := &bodyWriter{
		address:    it.r.Address,
		scope:      it.scope,
		validation: validation,
		exporter:   func(n *graph.Node) *item { return byNode[n] },
		newSecret: func(path string, v convert.Sensitive) string {
			name := uniqueName(it.r.Name+"_"+path, names)
			it.secrets = append(it.secrets, secret{name: name, value: v,
				description: fmt.Sprintf("the secret at %s of %s", path, it.r.Address)})
			return name
		},
		lookup: func(ref *convert.ExportRef) (*item, error) {
			from := byNode[ref.From]
			if from == nil {
				return nil, fmt.Errorf("%s: reads config map %s key %s from %s, which the deployment does not create", it.r.Address, ref.ConfigMap, ref.Key, ref.From.Address())
			}
			return from, nil
		},
	}
	d := desired(it.r)
	if it.late != nil {
		d = maps.Clone(d)
		delete(d, "name") // the template's name carries it
	}
	body, err := w.value(d, "")
	if err != nil {
		return err
	}
	it.body, _ = body.(map[string]any)
	entry, err := resourceEntry(it, it.scope, it.body, nil)
	if err != nil {
		return err
	}
	data, err := marshal(entry)
	if err != nil {
		return fmt.Errorf("%s: %w", it.r.Address, err)
	}
	it.size = len(data) + 64*len(it.deps) // room for its dependsOn
	return nil
}

// chunkItems groups the items by scope and splits the groups at ARM's
// limits. An item's rank is its dependencies' highest, plus one for a
// dependency in another scope; items of one scope and rank share chunks.
// So every dependency between chunks points to an earlier chunk, and the
// chunks form a DAG however scopes interleave.
func chunkItems(items []*item, opts Options) []*chunk {
	type groupKey struct {
		scope Scope
		rank  int
	}
	groups := map[groupKey][]*item{}
	var keys []groupKey
	for _, it := range items {
		for _, d := range it.deps {
			r := d.rank
			if d.scope != it.scope {
				r++
			}
			it.rank = max(it.rank, r)
		}
		k := groupKey{it.scope, it.rank}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], it)
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].rank < keys[j].rank })
	var chunks []*chunk
	for _, k := range keys {
		var c *chunk
		for _, it := range groups[k] {
			// A resource named after apply gets a nested deployment of its own.
			if c == nil || it.late != nil || c.late() || len(c.items)+1 > opts.MaxResources || c.bytes+it.size > opts.MaxBytes || c.secrets+len(it.secrets) > maxParameters {
				c = &chunk{scope: k.scope}
				chunks = append(chunks, c)
			}
			c.items = append(c.items, it)
			c.bytes += it.size
			c.secrets += len(it.secrets)
			it.chunk = c
		}
	}
	for _, c := range chunks {
		seen := map[*chunk]bool{}
		for _, it := range c.items {
			for _, d := range it.deps {
				if d.chunk != c && !seen[d.chunk] {
					seen[d.chunk] = true
					c.deps = append(c.deps, d.chunk)
				}
			}
		}
	}
	return chunks
}

func slug(s Scope) string {
	switch {
	case s.ResourceGroup != "":
		return "rg-" + strings.ToLower(unsafeFile.ReplaceAllString(s.ResourceGroup, "_"))
	case s.Subscription != "":
		return "subscription"
	}
	return "tenant"
}

var unsafeFile = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
