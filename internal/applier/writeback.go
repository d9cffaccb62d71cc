package applier

import (
	"errors"
	"fmt"
	"os"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/manifestedit"
)

// ErrNotAFile is returned by WritePolicy for objects that were not read from
// a plain file (standard input, kustomize output): there is nowhere to write.
var ErrNotAFile = errors.New("not read from a plain file")

// WritePolicy records the reconcile policy decided for a resource in its
// source file, as the serviceoperator.azure.com/reconcile-policy annotation
// in place of reconcile-policy-if-exists: the operator's delayed
// defaulting, done in git. Only those lines change; every other byte of the
// file stays (see manifestedit), and the file is replaced atomically: on
// any error it is as it was. A file a tool generates is refused, naming
// its source.
func WritePolicy(o *loader.Object, policy string) error {
	if !o.InPlainFile() {
		return ErrNotAFile
	}
	path := o.Source.File
	in, err := os.ReadFile(path)
	if err != nil {
		return &manifestedit.NotWrittenError{Path: path, Err: err}
	}
	if why := manifestedit.Generated(in); why != "" {
		return &manifestedit.NotWrittenError{Path: path, Err: errors.New(why)}
	}
	object := manifestedit.Object{Group: o.Group(), Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
	annotation := func(key string) []manifestedit.Step {
		return []manifestedit.Step{{Key: "metadata"}, {Key: "annotations"}, {Key: key}}
	}
	out, skipped, err := manifestedit.Apply(in, []manifestedit.Edit{
		{Object: object, Path: annotation(graph.AnnotationReconcilePolicy), Value: policy},
		{Object: object, Path: annotation(graph.AnnotationReconcilePolicyIfExists), Remove: true},
	})
	if err != nil {
		return &manifestedit.NotWrittenError{Path: path, Err: err}
	}
	for _, why := range skipped {
		if why != "" {
			return &manifestedit.NotWrittenError{Path: path, Err: fmt.Errorf("%s: %s", o.Address(), why)}
		}
	}
	return manifestedit.WriteFile(path, out)
}
