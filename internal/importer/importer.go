// Package importer reads existing Azure resources and writes them as ASO
// manifests (azk import), as the operator's asoctl import azure-resource
// does: each resource at the newest served version of its kind, children
// found by listing, owners linked, read-only and unset values left out,
// secrets as Secret references (never their values).
package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/redact"
	"github.com/azkcli/azk/internal/registry"
)

// Reader reads Azure. *arm.Client satisfies it, and paces and bounds the
// reads (its rate budget and Parallelism), so Import reads freely.
type Reader interface {
	Get(ctx context.Context, id, apiVersion string) (*arm.Response, error)
	List(ctx context.Context, path, apiVersion string) ([]json.RawMessage, error)
}

// Options configure Import. Reader is required.
type Options struct {
	Reader Reader
	// Recursive imports, below each resource, its children and extension
	// resources, and the resources of a resource group, found by listing.
	Recursive bool
	// Policy is the serviceoperator.azure.com/reconcile-policy written on
	// every resource; "" means manage.
	Policy string
	// Namespace is written as metadata.namespace unless "" or "default".
	Namespace string
	// Secrets are the run's secret values: each string of Azure's bodies
	// that holds one is written as redact.Text (Azure's values are free
	// text azk does not mark). nil scrubs nothing.
	Secrets *redact.Set
}

// Resource is one imported resource.
type Resource struct {
	// ID is its ARM ID, as Azure gave it.
	ID   string
	Kind *registry.Kind
	// Name is metadata.name: the Azure name made a valid Kubernetes name,
	// unique within its kind.
	Name string
	// Manifest is the YAML document, with comments.
	Manifest string
	// Notes say what the manifest needs before it can be applied (the
	// Secrets its secret references name) and what was left out.
	Notes []string

	body   map[string]any
	parent string // the ARM ID of what contains it
	depth  int
}

// LeftOut is an Azure resource found that azk could not import: one it
// refuses (an ARM ID it does not accept, a type no ASO kind manages) or one
// it could not read. Unlike Omitted, each is a resource the output lacks
// that the user meant to import.
type LeftOut struct {
	ID     string
	Reason string
	// Unsupported is true when azk refuses the resource; false when it
	// could not be read.
	Unsupported bool
}

// Result is what Import found, parents before their children.
type Result struct {
	Resources []*Resource
	// Omitted are the resources left out by design (see Omitted).
	Omitted []Omitted
	LeftOut []LeftOut
	// Warnings are listings that failed: what is below may be incomplete.
	Warnings []string
}

// resourcesAPIVersion lists the resources of a resource group.
const resourcesAPIVersion = "2021-04-01"

// Import reads the resources ids name (and, with Recursive, what is below
// them) and builds their manifests. An ID that does not parse, names a type
// no ASO kind manages, or cannot be read is an error.
func Import(ctx context.Context, ids []string, opts Options) (*Result, error) {
	if opts.Reader == nil {
		return nil, fmt.Errorf("importing needs a reader of Azure")
	}
	switch opts.Policy {
	case "":
		opts.Policy = graph.PolicyManage
	case graph.PolicyManage, graph.PolicyDetachOnDelete, graph.PolicySkip:
	default:
		return nil, fmt.Errorf("--policy %q: use manage, detach-on-delete or skip", opts.Policy)
	}
	im := &importer{ctx: ctx, opts: opts, reg: registry.Default(), seen: map[string]bool{}, result: &Result{}}
	for _, id := range ids {
		parsed, err := armid.Parse(id)
		if err != nil {
			return nil, err
		}
		k, err := im.kindOf(parsed.Type())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		body, err := im.get(parsed.String(), k)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", id, err)
		}
		im.add(parsed.String(), k, body, 0)
	}
	im.wg.Wait()
	r := im.result
	r.Omitted = im.omitted.list
	sort.SliceStable(r.Resources, func(i, j int) bool {
		a, b := r.Resources[i], r.Resources[j]
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		return strings.ToLower(a.ID) < strings.ToLower(b.ID)
	})
	sort.Slice(r.LeftOut, func(i, j int) bool { return r.LeftOut[i].ID < r.LeftOut[j].ID })
	sort.Strings(r.Warnings)
	if err := manifests(r, opts); err != nil {
		return nil, err
	}
	return r, nil
}

type importer struct {
	ctx  context.Context
	opts Options
	reg  *registry.Registry
	wg   sync.WaitGroup

	mu     sync.Mutex
	seen   map[string]bool // lower-cased ARM IDs found
	result *Result

	omitted omissions
}

// kindOf is the kind resources of armType are imported as: its newest
// served version.
func (im *importer) kindOf(armType string) (*registry.Kind, error) {
	gk, ok := im.reg.KindForARMType(armType)
	if !ok {
		return nil, fmt.Errorf("no ASO kind manages %s resources", armType)
	}
	return im.newest(gk), nil
}

// newest is a kind at its newest served version, by api-version date.
func (im *importer) newest(gk registry.GroupKind) *registry.Kind {
	k, _ := im.reg.Lookup(gk.Group, registry.Newest(im.reg.Versions(gk.Group, gk.Kind)), gk.Kind)
	return k
}

// get reads one resource at its kind's api-version.
func (im *importer) get(id string, k *registry.Kind) (map[string]any, error) {
	resp, err := im.opts.Reader.Get(im.ctx, id, k.APIVersion)
	if err != nil {
		return nil, err
	}
	body := map[string]any{}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, fmt.Errorf("GET %s: reading the body: %w", id, err)
	}
	return body, nil
}

// add records a resource read, once, and starts looking below it.
func (im *importer) add(id string, k *registry.Kind, body map[string]any, depth int) {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.seen[strings.ToLower(id)] {
		return
	}
	im.seen[strings.ToLower(id)] = true
	scrubbed, _ := im.opts.Secrets.Value(body)
	body = scrubbed.(map[string]any)
	im.result.Resources = append(im.result.Resources, &Resource{ID: id, Kind: k, body: body, parent: parentOf(id), depth: depth})
	if im.opts.Recursive {
		im.wg.Add(1)
		go func() {
			defer im.wg.Done()
			im.below(id, k, depth+1)
		}()
	}
}

// below lists what id holds (its child resources, its extension resources,
// a resource group's resources) and imports each.
func (im *importer) below(id string, k *registry.Kind, depth int) {
	type listing struct {
		path, apiVersion string
		// extension listings may fail where a provider does not offer the
		// type on this resource: that is no warning.
		extension bool
	}
	var lists []listing
	if strings.EqualFold(k.ARMType, "Microsoft.Resources/resourceGroups") {
		lists = append(lists, listing{path: id + "/resources", apiVersion: resourcesAPIVersion})
	}
	children, extensions := im.reg.ChildKinds(k.ARMType)
	for _, gk := range children {
		ck := im.newest(gk)
		lists = append(lists, listing{path: id + "/" + ck.ARMType[strings.LastIndexByte(ck.ARMType, '/')+1:], apiVersion: ck.APIVersion})
	}
	for _, gk := range extensions {
		ek := im.newest(gk)
		lists = append(lists, listing{path: id + "/providers/" + ek.ARMType, apiVersion: ek.APIVersion, extension: true})
	}
	for _, l := range lists {
		im.wg.Add(1)
		go func() {
			defer im.wg.Done()
			items, err := im.opts.Reader.List(im.ctx, l.path, l.apiVersion)
			if err != nil {
				if !l.extension && !arm.IsNotFound(err) {
					im.warn(fmt.Sprintf("listing %s: %v", l.path, err))
				}
				return
			}
			for _, raw := range items {
				var item map[string]any
				if json.Unmarshal(raw, &item) != nil {
					continue
				}
				itemID, _ := item["id"].(string)
				if _, err := armid.Parse(itemID); err != nil && strings.HasPrefix(strings.ToLower(itemID), strings.ToLower(id)+"/") {
					im.leaveOut(itemID, "azk refuses its ARM ID: "+err.Error(), true)
					continue
				}
				if itemID == "" || !strings.EqualFold(parentOf(itemID), id) {
					continue // a list may hold what is inherited from above (role assignments)
				}
				im.child(itemID, item, depth)
			}
		}()
	}
}

// child reads one resource found by listing (listed is what the list
// said of it: what decides a skip is there already for most providers).
func (im *importer) child(id string, listed map[string]any, depth int) {
	parsed, err := armid.Parse(id)
	if err != nil {
		im.leaveOut(id, "azk refuses its ARM ID: "+err.Error(), true)
		return
	}
	k, err := im.kindOf(parsed.Type())
	if err != nil {
		im.leaveOut(id, err.Error(), true)
		return
	}
	ext := extensions.ImporterFor(k.ARMType)
	if ext != nil {
		if reason := ext.SkipImport(listed, parentOf(id)); reason != nil {
			im.omitted.add(id, *reason)
			return
		}
	}
	body, err := im.get(id, k)
	if err != nil {
		im.leaveOut(id, "reading it: "+err.Error(), false)
		return
	}
	if ext != nil {
		if reason := ext.SkipImport(body, parentOf(id)); reason != nil {
			im.omitted.add(id, *reason)
			return
		}
	}
	im.add(id, k, body, depth)
}

func (im *importer) leaveOut(id, reason string, unsupported bool) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.result.LeftOut = append(im.result.LeftOut, LeftOut{ID: id, Reason: reason, Unsupported: unsupported})
}

func (im *importer) warn(w string) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.result.Warnings = append(im.result.Warnings, w)
}

// parentOf is the ARM ID of what contains id: the parent of a child
// resource, the resource an extension resource is on, the resource group
// (or subscription) of a top-level resource; "" for a subscription.
func parentOf(id string) string {
	parsed, err := armid.Parse(id)
	if err != nil {
		return ""
	}
	n := len(parsed.Providers)
	switch {
	case n == 0 && parsed.ResourceGroup != "":
		parsed.ResourceGroup = ""
		return parsed.String()
	case n == 0:
		return ""
	}
	last := &parsed.Providers[n-1]
	if len(last.Resources) > 1 {
		last.Resources = last.Resources[:len(last.Resources)-1]
	} else {
		parsed.Providers = parsed.Providers[:n-1]
	}
	return parsed.String()
}
