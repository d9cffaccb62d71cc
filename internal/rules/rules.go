// Package rules evaluates a team's own policies, written in Rego, over azk's
// plan with Open Policy Agent's engine (as a library: no OPA server), the way
// conftest evaluates them over files: in each package named (main by
// default), the rules deny, violation and warn, and those whose names start
// with deny_, violation_ and warn_, each returning messages, or objects with
// a msg and other fields. deny and violation are errors, warn warnings.
//
// A package is evaluated over one kind of input document, so that a rule
// never sees a document it was not written for (a "not input.x" would hold
// on any other): the plan's namespaces over the whole plan (Input: azk plan
// -o json, each resource with Azure's body and its manifest), the manifest
// namespaces over each resource's manifest, as conftest evaluates Kubernetes
// objects. docs/policy.md documents both.
//
// The name says why it is not "policy": azk already has Azure Policy (the
// pre-flight) and the operator's reconcile-policy.
package rules

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/azkcli/azk/internal/planner"
)

// DefaultNamespace is the package evaluated when none is named: conftest's.
const DefaultNamespace = "main"

// ruleName matches the rules conftest evaluates: deny, violation, warn and
// their _suffixed kin.
var ruleName = regexp.MustCompile(`^(deny|violation|warn)(_[A-Za-z0-9_]+)?$`)

// Policies are compiled Rego policies, ready to evaluate.
type Policies struct {
	// Files are the Rego files loaded, sorted.
	Files []string
	// Namespaces are evaluated over the plan, ManifestNamespaces over each
	// resource's manifest.
	Namespaces, ManifestNamespaces []string
	plan, manifest                 []query
}

// query is one rule, prepared.
type query struct {
	// rule is "namespace.name".
	rule     string
	severity planner.Severity
	prepared rego.PreparedEvalQuery
}

// Load reads the Rego files at paths (files, or folders searched
// recursively; *_test.rego files are the policies' own tests and are left
// out) and prepares the rules of the namespaces named. A path holding no
// Rego file, a policy that does not compile, and a namespace no file
// declares are errors.
func Load(ctx context.Context, paths, namespaces, manifestNamespaces []string) (*Policies, error) {
	for _, ns := range namespaces {
		if slices.Contains(manifestNamespaces, ns) {
			return nil, fmt.Errorf("package %s cannot be evaluated both over the plan and over each manifest: a rule is written for one kind of input", ns)
		}
	}
	for _, p := range paths {
		found, err := regoFiles(p)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("--policy %s: no Rego policy (.rego file) there", p)
		}
	}
	res, err := loader.NewFileLoader().WithRegoVersion(ast.RegoV1).Filtered(paths, notAPolicy)
	if err != nil {
		return nil, fmt.Errorf("reading the policies: %w", err)
	}
	compiler := ast.NewCompiler().WithCapabilities(withoutNetwork())
	if compiler.Compile(res.ParsedModules()); compiler.Failed() {
		return nil, fmt.Errorf("compiling the policies: %w", compiler.Errors)
	}
	pol := &Policies{Namespaces: namespaces, ManifestNamespaces: manifestNamespaces}
	for _, m := range res.Modules {
		pol.Files = append(pol.Files, m.Name)
	}
	sort.Strings(pol.Files)
	if pol.plan, err = prepare(ctx, compiler, namespaces); err != nil {
		return nil, err
	}
	if pol.manifest, err = prepare(ctx, compiler, manifestNamespaces); err != nil {
		return nil, err
	}
	return pol, nil
}

// networkBuiltins reach the network: a policy runs inside the plan, which
// sends nothing but its own reads of Azure (and none offline), and whose
// input a rule could otherwise post anywhere.
var networkBuiltins = []string{"http.send", "net.lookup_ip_addr"}

// withoutNetwork is OPA's capabilities without networkBuiltins, and with no
// host a builtin may reach: a policy that calls one does not compile
// ("undefined function http.send"), naming its file and line.
func withoutNetwork() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	caps.Builtins = slices.DeleteFunc(caps.Builtins, func(b *ast.Builtin) bool {
		return slices.Contains(networkBuiltins, b.Name)
	})
	caps.AllowNet = []string{}
	return caps
}

// notAPolicy leaves out what is not a policy to evaluate: files other than
// .rego, and the policies' tests.
func notAPolicy(_ string, info fs.FileInfo, _ int) bool {
	if info.IsDir() {
		return false
	}
	name := info.Name()
	return filepath.Ext(name) != ".rego" || strings.HasSuffix(name, "_test.rego")
}

// regoFiles are the policies at path.
func regoFiles(path string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info, err := d.Info(); err == nil && !info.IsDir() && !notAPolicy(p, info, 0) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--policy %s: %w", path, err)
	}
	return out, nil
}

// prepare prepares a query for each rule conftest would evaluate in the
// namespaces, in the order of the namespaces, then of the rules' names.
func prepare(ctx context.Context, compiler *ast.Compiler, namespaces []string) ([]query, error) {
	var out []query
	for _, ns := range namespaces {
		pkg, err := ast.ParseRef("data." + ns)
		if err != nil {
			return nil, fmt.Errorf("namespace %q is not a Rego package name: %w", ns, err)
		}
		names := map[string]bool{}
		declared := false
		for _, m := range compiler.Modules {
			if !m.Package.Path.Equal(pkg) {
				continue
			}
			declared = true
			for _, r := range m.Rules {
				if name := r.Head.Ref()[0].Value.String(); ruleName.MatchString(name) {
					names[name] = true
				}
			}
		}
		if !declared {
			return nil, fmt.Errorf("no policy declares package %s (the namespace evaluated; --policy-namespace names another)", ns)
		}
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, name := range sorted {
			prepared, err := rego.New(rego.Compiler(compiler), rego.Query("data."+ns+"."+name)).PrepareForEval(ctx)
			if err != nil {
				return nil, fmt.Errorf("preparing %s.%s: %w", ns, name, err)
			}
			severity := planner.SeverityError
			if strings.HasPrefix(name, "warn") {
				severity = planner.SeverityWarning
			}
			out = append(out, query{rule: ns + "." + name, severity: severity, prepared: prepared})
		}
	}
	return out, nil
}

// result is one value a rule returned: its message and the rest of an object.
type result struct {
	message string
	details map[string]any
}

// eval evaluates q over input and returns its results: each message of a
// set or array, or true for a rule that is a condition (its name is then
// the message).
func (q query) eval(ctx context.Context, input any) ([]result, error) {
	rs, err := q.prepared.Eval(ctx, rego.EvalInput(input))
	if err != nil {
		return nil, fmt.Errorf("evaluating %s: %w", q.rule, err)
	}
	var out []result
	for _, r := range rs {
		for _, e := range r.Expressions {
			switch v := e.Value.(type) {
			case bool:
				if v {
					out = append(out, result{message: q.rule})
				}
			case []any:
				for _, item := range v {
					res, err := resultOf(q.rule, item)
					if err != nil {
						return nil, err
					}
					out = append(out, res)
				}
			default:
				res, err := resultOf(q.rule, v)
				if err != nil {
					return nil, err
				}
				out = append(out, res)
			}
		}
	}
	return out, nil
}

// resultOf reads one returned value: a string, or an object with a string msg.
func resultOf(rule string, v any) (result, error) {
	switch t := v.(type) {
	case string:
		return result{message: t}, nil
	case map[string]any:
		msg, ok := t["msg"].(string)
		if !ok {
			return result{}, fmt.Errorf("%s returned an object without a string msg (conftest's convention): %v", rule, t)
		}
		details := map[string]any{}
		for k, e := range t {
			if k != "msg" {
				details[k] = e
			}
		}
		if len(details) == 0 {
			details = nil
		}
		return result{message: msg, details: details}, nil
	}
	return result{}, fmt.Errorf("%s returned %v: a rule's results are messages, or objects with a msg", rule, v)
}
