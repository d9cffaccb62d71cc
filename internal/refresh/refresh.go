// Package refresh writes Azure's values into the manifests where a plan
// says the manifests are to follow Azure: the differences drift policy
// reflect keeps, and the paths of the ignore-changes annotation where Azure
// differs (planner.Resource.Follow). Each ARM body path is mapped back to
// the spec field it is sent from by the registry's facts (each spec field's
// ARM path), never by guessing from names, and the manifest files are edited
// in place by manifestedit: only the values written change, every other
// byte stays, so the change goes through review as a diff of those lines. A value the manifest takes from a Secret,
// a reference (armId or name) or a config map is never written back, nor one
// in a file azk did not read as a plain file (standard input, kustomize
// output) or one a tool generates; each says why.
package refresh

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/manifestedit"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/redact"
)

// Entry is one value to write into a manifest, or one that is not written.
type Entry struct {
	// Address and Source (file:line) are the resource's.
	Address string `json:"address"`
	Source  string `json:"source"`
	// Why is what makes the manifest follow Azure there: "reflect" (drift
	// policy reflect) or "ignore-changes".
	Why string `json:"why"`
	// Path is the ARM body path, as the plan prints it.
	Path string `json:"path"`
	// Field is the manifest's field written, as "spec.dhcpOptions.dnsServers".
	Field string `json:"field,omitempty"`
	// Value is written at Field (the spec's form of Azure's value); absent
	// with Remove, where Azure holds none and the field is taken out.
	Value  any  `json:"value,omitempty"`
	Remove bool `json:"remove,omitempty"`
	// Skipped says why it is not written; nothing is written then.
	Skipped string `json:"skipped,omitempty"`

	obj *loader.Object
	at  []step
}

// File is a manifest file as it is and as refreshed.
type File struct {
	Path          string `json:"path"`
	Before, After []byte `json:"-"`
}

// Result is what refreshing the manifests of a plan writes.
type Result struct {
	Entries []Entry `json:"entries"`
	Files   []File  `json:"files"`
}

// Written counts the entries written.
func (r *Result) Written() int {
	n := 0
	for _, e := range r.Entries {
		if e.Skipped == "" {
			n++
		}
	}
	return n
}

// Prepare maps each difference of p at which the manifests are to follow
// Azure to its manifest field and computes the files as refreshed; nothing
// is written (see Write). p must have been made from the inputs (its
// resources link to their nodes).
func Prepare(p *planner.Plan) (*Result, error) {
	res := &Result{}
	for _, r := range p.Resources {
		if r.Node == nil {
			continue
		}
		reflected := len(r.Reflected) // Follow lists them first, then the ignore-changes paths
		for i, c := range r.Follow() {
			why := "reflect"
			if i >= reflected {
				why = "ignore-changes"
			}
			res.Entries = append(res.Entries, entries(r, why, c)...)
		}
	}
	files, err := edit(res.Entries)
	if err != nil {
		return nil, err
	}
	res.Files = files
	return res, nil
}

// entries maps one difference of r to the manifest fields to write.
func entries(r *planner.Resource, why string, c planner.Change) []Entry {
	o := r.Node.Object
	base := Entry{Address: r.Address, Source: r.Source, Why: why, Path: c.Path, obj: o}
	p, err := armjson.ParsePath(c.Path)
	if err != nil {
		base.Skipped = err.Error()
		return []Entry{base}
	}
	if scrubbed(c.Before) {
		base.Skipped = "Azure's value holds a secret of this run, read as " + redact.Text + ": azk never writes a secret into a manifest"
		return []Entry{base}
	}
	if secretIn(r.Node.Kind, p, c.Before) {
		base.Skipped = "a secret (the REST specification calls it sensitive, or Azure masks it): azk never writes a secret into a manifest"
		return []Entry{base}
	}
	if o.Source.File == "-" {
		base.Skipped = "read from standard input, not from a file azk can edit: write it into the source yourself"
		return []Entry{base}
	}
	var out []Entry
	for _, t := range (mapper{obj: o.Node.YNode()}).targets(r.Node.Kind.Spec, p, c.Before, c.Before != nil) {
		e := base
		e.Field, e.at = fieldPath(t.steps), t.steps
		e.Value, e.Remove, e.Skipped = t.value, t.remove, t.skipped
		if e.Skipped == "" && !o.InPlainFile() {
			e.Skipped = editElsewhere(o, t.steps)
		}
		out = append(out, e)
	}
	return out
}

// editElsewhere says where to write a value of an object kustomize built,
// which azk does not edit: the overlay's patch that sets it, or the file
// kustomize read it from.
func editElsewhere(o *loader.Object, steps []step) string {
	path := make([]string, len(steps))
	for i, s := range steps {
		path[i] = s.String()
	}
	src, byPatch := loader.FieldSetter(o, path)
	if byPatch {
		return fmt.Sprintf("kustomize output (of %s), which azk does not edit: the patch at %s sets it, write it there", o.Kustomization, src)
	}
	return fmt.Sprintf("kustomize output (of %s), which azk does not edit: no patch sets it, write it into %s", o.Kustomization, src)
}

// edit computes the refreshed content of each file the entries write into:
// only the values written change, every other byte of the file stays (see
// manifestedit). A file a tool generates is not edited: each entry says
// where its source is.
func edit(entries []Entry) ([]File, error) {
	byFile := map[string][]int{}
	var paths []string
	for i, e := range entries {
		if e.Skipped != "" {
			continue
		}
		f := e.obj.Source.File
		if byFile[f] == nil {
			paths = append(paths, f)
		}
		byFile[f] = append(byFile[f], i)
	}
	sort.Strings(paths)
	var files []File
	for _, path := range paths {
		before, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if why := manifestedit.Generated(before); why != "" {
			for _, i := range byFile[path] {
				entries[i].Skipped = why
			}
			continue
		}
		var edits []manifestedit.Edit
		for _, i := range byFile[path] {
			e := entries[i]
			edits = append(edits, manifestedit.Edit{Object: objectOf(e.obj), Path: editPath(e.at), Value: e.Value, Remove: e.Remove})
		}
		after, skipped, err := manifestedit.Apply(before, edits)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for k, why := range skipped {
			if why != "" {
				entries[byFile[path][k]].Skipped = why
			}
		}
		if !bytes.Equal(before, after) {
			files = append(files, File{Path: path, Before: before, After: after})
		}
	}
	return files, nil
}

func objectOf(o *loader.Object) manifestedit.Object {
	return manifestedit.Object{Group: o.Group(), Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

func editPath(steps []step) []manifestedit.Step {
	out := make([]manifestedit.Step, len(steps))
	for i, s := range steps {
		out[i] = manifestedit.Step{Key: s.Key, ItemField: s.ItemField}
	}
	return out
}

// Write writes the refreshed files, each replaced atomically with its mode
// kept (see manifestedit.WriteFile). Nothing is written unless every file
// is as it was read and may be written; a file that fails to be written
// is left as it was, and the error names the files written before it.
func (r *Result) Write() error {
	for _, f := range r.Files {
		if current, err := os.ReadFile(f.Path); err != nil || !bytes.Equal(current, f.Before) {
			return fmt.Errorf("%s changed since it was read: nothing was written; run azk refresh again", f.Path)
		}
		if err := manifestedit.Writable(f.Path); err != nil {
			return err
		}
	}
	var written []string
	for _, f := range r.Files {
		if err := manifestedit.WriteFile(f.Path, f.After); err != nil {
			if len(written) > 0 {
				return fmt.Errorf("%w; written before it: %s", err, strings.Join(written, ", "))
			}
			return err
		}
		written = append(written, f.Path)
	}
	return nil
}
