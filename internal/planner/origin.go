package planner

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

// A three-way plan (azk plan --base) compares the manifests before the
// change under review (the base, Terraform's prior state), the manifests
// (the configuration) and Azure (the refreshed state). The base's body for
// each resource is converted against the same Azure state as the
// manifests', so what differs between the two bodies is what the change
// does; a difference with Azure anywhere else is drift.

// baseDiff is how the base's body for one resource differs from the
// manifests' body.
type baseDiff struct {
	// inBase says the base holds the resource; when false, everything
	// about it is this change's.
	inBase bool
	// whole says the bodies could not be compared path by path (the base's
	// body could not be built), and whether the object differs at all.
	whole, differs bool
	// paths are where the bodies differ, in the differ's path form.
	paths []string
	// secrets are the paths of secrets whose values differ (by digest).
	secrets []string
}

// baseDiffOf compares the base's body for n with desired (nil when the
// manifests' body is unknown); st is n's state, nil when it was not read.
func (m *maker) baseDiffOf(n *graph.Node, st *nodeState, desired map[string]any) baseDiff {
	bn := m.baseOf(n)
	if bn == nil {
		return baseDiff{}
	}
	d := baseDiff{inBase: true}
	var body map[string]any
	if st != nil && bn.ID != "" && desired != nil {
		body = m.baseBody(st, bn)
	}
	if body == nil {
		d.whole = true
		d.differs = bn.Object.Node.MustString() != n.Object.Node.MustString()
		return d
	}
	walkDiff("", body, desired, &d)
	return d
}

// baseBody converts the base's object bn for the resource of st, with the
// statuses and bodies read for this plan; nil when it cannot be built.
func (m *maker) baseBody(st *nodeState, bn *graph.Node) map[string]any {
	src := m.sources(st, st.node)
	head := func(from *graph.Node) *nodeState {
		if h := m.headNodes[from.Address()]; h != nil {
			return m.states[h]
		}
		return nil
	}
	src.Status = func(from *graph.Node) map[string]any {
		if fs := head(from); fs != nil {
			return fs.convertedStatus()
		}
		return nil
	}
	src.ManualConfig = func(from *graph.Node, name string) (string, bool, error) {
		if fs := head(from); fs != nil {
			return m.manualConfig(fs.node, name)
		}
		return "", false, nil
	}
	req, diags := convert.Convert(m.opts.Base, bn, src)
	if diags.HasErrors() || req == nil {
		return nil
	}
	return req.Body
}

// walkDiff records where head differs from base: a map key either lacks,
// a value that differs, a list whose items differ (named items by name,
// others by position, a list of another length as a whole).
func walkDiff(path string, base, head any, d *baseDiff) {
	switch h := head.(type) {
	case map[string]any:
		b, ok := base.(map[string]any)
		if !ok {
			d.paths = append(d.paths, path)
			return
		}
		for k, hv := range h {
			walkDiff(armjson.JoinKey(path, k), b[k], hv, d)
		}
		for k := range b {
			if _, ok := h[k]; !ok {
				d.paths = append(d.paths, armjson.JoinKey(path, k))
			}
		}
	case []any:
		b, ok := base.([]any)
		switch {
		case !ok:
			d.paths = append(d.paths, path)
		case armjson.Named(h) && armjson.Named(b):
			seen := map[string]bool{}
			for _, item := range h {
				name := item.(map[string]any)["name"].(string)
				seen[name] = true
				var bv any
				if i := armjson.IndexByName(b, name); i >= 0 {
					bv = b[i]
				}
				walkDiff(fmt.Sprintf("%s[name=%s]", path, name), bv, item, d)
			}
			for _, item := range b {
				if name := item.(map[string]any)["name"].(string); !seen[name] {
					d.paths = append(d.paths, fmt.Sprintf("%s[name=%s]", path, name))
				}
			}
		case len(b) != len(h):
			d.paths = append(d.paths, path)
		default:
			for i := range h {
				walkDiff(fmt.Sprintf("%s[%d]", path, i), b[i], h[i], d)
			}
		}
	case convert.Sensitive:
		if b, ok := base.(convert.Sensitive); !ok || valueDigest(b) != valueDigest(h) {
			d.paths = append(d.paths, path)
			d.secrets = append(d.secrets, path)
		}
	default:
		if !reflect.DeepEqual(base, head) {
			d.paths = append(d.paths, path)
		}
	}
}

// valueDigest is the SHA-256 of a secret's value, so that two values are
// compared without either being held beside the other.
func valueDigest(s convert.Sensitive) [32]byte {
	value, _ := convert.RevealSecrets(s).(string)
	return sha256.Sum256([]byte(value))
}

// origin is where a difference at path comes from.
func (d baseDiff) origin(path string) Origin {
	switch {
	case !d.inBase:
		return OriginChange
	case d.whole:
		if d.differs {
			return OriginChange
		}
		return OriginDrift
	}
	for _, p := range d.paths {
		if underPath(path, p) || underPath(p, path) {
			return OriginChange
		}
	}
	return OriginDrift
}

// rotated reports whether the value of the secret at path differs from the base's.
func (d baseDiff) rotated(path string) bool {
	for _, p := range d.secrets {
		if strings.EqualFold(p, path) {
			return true
		}
	}
	return false
}

// threeWay reports a three-way plan: a base, and not a drift report.
func (m *maker) threeWay() bool { return m.opts.Base != nil && !m.opts.Drift }

// markOrigins sets, in a three-way plan, the origin of each of r's changes.
// A secret is never compared with Azure: it differs from the base (a
// rotated value), or it is sent along with the resource's other changes and
// takes their origin.
func (m *maker) markOrigins(r *Resource, d baseDiff) {
	if !m.threeWay() {
		return
	}
	cause := OriginDrift
	if r.Reason == ReasonSecretChanged || r.Reason == ReasonSecretsRequested {
		cause = OriginChange
	}
	for i := range r.Changes {
		c := &r.Changes[i]
		switch {
		case c.Sensitive && d.inBase && !d.whole && !d.rotated(c.Path):
			continue // decided below
		default:
			c.Origin = d.origin(c.Path)
		}
		if c.Origin == OriginChange {
			cause = OriginChange
		}
	}
	for i := range r.Changes {
		if r.Changes[i].Origin == "" {
			r.Changes[i].Origin = cause
		}
	}
}

// Origins reports whether r belongs, in a three-way plan, with what this
// change does, with the drift Azure already has, or with both.
func (r *Resource) Origins() (change, drift bool) {
	if r.Removed() || r.Action == ActionRecreate {
		return true, false
	}
	if r.Adopt != nil {
		change = true // new in this change, found in Azure
	}
	if !r.Writes() && r.Action != ActionReplace {
		return change, false
	}
	for _, c := range r.Changes {
		switch c.Origin {
		case OriginChange:
			change = true
		case OriginDrift:
			drift = true
		}
	}
	if r.Reason == ReasonFailed {
		drift = true
	}
	return change, drift
}

// lackingChanges returns compared's changes, with each property Azure lacks
// (bodydiff.Comparison.Lacking) decided by what was sent before. Where the base set
// the property as the manifests do, it was sent then and Azure does not
// return it: it is not returned, not a change. Anywhere else (no base, a
// resource new in this change, a property this change sets) Azure may not
// have it yet, and only the PUT makes sure it does: it is a change, so that
// a property added to the manifests is never left unapplied for looking like
// one ARM withholds.
func (m *maker) lackingChanges(r *Resource, d baseDiff, compared bodydiff.Comparison) []Change {
	changes := compared.Changes
	var unsure []string
	for _, v := range compared.Lacking {
		if d.inBase && d.origin(v.Path) == OriginDrift {
			r.NotReturned = append(r.NotReturned, v)
			continue
		}
		changes = append(changes, Change{Path: v.Path, After: v.Value, Sensitive: v.Sensitive})
		if !d.inBase {
			unsure = append(unsure, v.Path)
		}
	}
	if len(unsure) > 0 && m.opts.Base == nil {
		r.Notes = append(r.Notes, fmt.Sprintf("Azure does not return %s: sent, as Azure may not have it yet; a plan with --base at the revision last applied tells a property ARM never returns from a new one", strings.Join(unsure, ", ")))
	}
	return changes
}
