package applier

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// ErrNotAFile is returned by WritePolicy for objects that were not read from
// a plain file (standard input, kustomize output): there is nowhere to write.
var ErrNotAFile = errors.New("not read from a plain file")

// WritePolicy records the reconcile policy decided for a resource in its
// source file, as the serviceoperator.azure.com/reconcile-policy annotation
// in place of reconcile-policy-if-exists: the operator's delayed
// defaulting, done in git. The rest of the file (comments, order,
// indentation, other documents) is kept as it was.
func WritePolicy(o *loader.Object, policy string) error {
	if !o.InPlainFile() {
		return ErrNotAFile
	}
	path := o.Source.File
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	in, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	rw := &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: &out, PreserveSeqIndent: true}
	docs, err := rw.Read()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	doc := find(docs, o)
	if doc == nil {
		return fmt.Errorf("%s: %s is no longer in the file", path, o.Address())
	}
	annotations, err := doc.Pipe(yaml.LookupCreate(yaml.MappingNode, yaml.MetadataField, yaml.AnnotationsField))
	if err != nil {
		return fmt.Errorf("%s: %s: %w", o.Source, o.Address(), err)
	}
	if err := annotations.PipeE(yaml.SetField(graph.AnnotationReconcilePolicy, yaml.NewScalarRNode(policy))); err != nil {
		return fmt.Errorf("%s: %s: %w", o.Source, o.Address(), err)
	}
	if _, err := annotations.Pipe(yaml.Clear(graph.AnnotationReconcilePolicyIfExists)); err != nil {
		return fmt.Errorf("%s: %s: %w", o.Source, o.Address(), err)
	}
	if err := rw.Write(docs); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out.Bytes(), info.Mode().Perm())
}

// find picks the document that is o: same apiVersion group, kind, name and
// namespace (an absent namespace is the one o was given).
func find(docs []*yaml.RNode, o *loader.Object) *yaml.RNode {
	for _, d := range docs {
		if d.GetKind() != o.Kind || d.GetName() != o.Name || groupOf(d.GetApiVersion()) != o.Group() {
			continue
		}
		if ns := d.GetNamespace(); ns != "" && ns != o.Namespace {
			continue
		}
		return d
	}
	return nil
}

func groupOf(apiVersion string) string {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return group
}
