package manifestedit

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// NotWrittenError is a write that failed before the file was replaced:
// the file is as it was.
type NotWrittenError struct {
	Path string
	Err  error
}

func (e *NotWrittenError) Error() string {
	return fmt.Sprintf("%s: %v: nothing was written, the file is as it was", e.Path, e.Err)
}

func (e *NotWrittenError) Unwrap() error { return e.Err }

// WriteFile replaces the file at path with data atomically: data goes to a
// new file in the same folder, is synced to disk, and is renamed over the
// file, so that a full disk or a crash leaves the file whole, as it was or
// as written. The file keeps its mode (and its owner where azk may set it);
// a symbolic link stays a link, its target is replaced. A read-only file is
// refused. Every error is a *NotWrittenError.
func WriteFile(path string, data []byte) error {
	return writeFile(path, data, func(w io.Writer) io.Writer { return w })
}

// writeFile is WriteFile writing through wrap (tests make it fail).
func writeFile(path string, data []byte, wrap func(io.Writer) io.Writer) error {
	target, info, err := writable(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".azk-*")
	if err != nil {
		return &NotWrittenError{path, err}
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := wrap(tmp).Write(data); err != nil {
		return &NotWrittenError{path, err}
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		return &NotWrittenError{path, err}
	}
	keepOwner(tmp, info)
	if err := tmp.Sync(); err != nil {
		return &NotWrittenError{path, err}
	}
	if err := tmp.Close(); err != nil {
		return &NotWrittenError{path, err}
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return &NotWrittenError{path, err}
	}
	done = true
	if dir, err := os.Open(filepath.Dir(target)); err == nil {
		_ = dir.Sync() // the rename itself reaches the disk
		dir.Close()
	}
	return nil
}

// Writable checks, without writing, that WriteFile may replace the file at
// path: a regular file, not read-only. Its error is a *NotWrittenError.
func Writable(path string) error {
	_, _, err := writable(path)
	return err
}

// writable is the file a write to path replaces (a link's target), and its
// information.
func writable(path string) (string, os.FileInfo, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, &NotWrittenError{path, err}
	}
	info, err := os.Stat(target)
	if err != nil {
		return "", nil, &NotWrittenError{path, err}
	}
	if !info.Mode().IsRegular() {
		return "", nil, &NotWrittenError{path, fmt.Errorf("not a regular file")}
	}
	// The owner's write bit is checked too: root may write any file, but a
	// file its owner made read-only is not azk's to change.
	if info.Mode().Perm()&0o200 == 0 || !mayWrite(target) {
		return "", nil, &NotWrittenError{path, fmt.Errorf("the file is read-only")}
	}
	return target, info, nil
}

// generatedHeader is Go's convention for generated files, in any comment style.
var generatedHeader = regexp.MustCompile(`^\s*(#|//)\s*Code generated .*DO NOT EDIT\.?\s*$`)

// headerLines is how many lines at the top of a file may say it was generated.
const headerLines = 10

// Generated says, for a file azk must not edit because a tool writes it,
// why and where its source is to be edited instead; "" for a source file.
// A file is generated when its first lines say so ("# Code generated ...
// DO NOT EDIT.") or when an object in it carries the origin annotation
// `kustomize build` writes (buildMetadata: [originAnnotations]), which names
// the file the object came from.
func Generated(data []byte) string {
	data = bytes.TrimPrefix(data, bom)
	for i, line := range bytes.SplitN(data, []byte("\n"), headerLines+1) {
		if i == headerLines {
			break
		}
		l := strings.TrimRight(string(line), "\r")
		if generatedHeader.MatchString(l) {
			return fmt.Sprintf("the file says it is generated (%q): edit what it is generated from and generate it again", strings.TrimSpace(l))
		}
	}
	s, err := parse(data)
	if err != nil {
		return ""
	}
	for _, d := range s.docs {
		if origin := originOf(d); origin != "" {
			return fmt.Sprintf("the file is `kustomize build` output (annotation %s): edit %s, where it comes from, and build it again", originAnnotation, origin)
		}
	}
	return ""
}

const originAnnotation = "config.kubernetes.io/origin"

// originOf is the path the origin annotation of object n (or of an item of
// a List) names, or "".
func originOf(n *yaml.Node) string {
	if _, items := child(n, Step{Key: "items"}); items != nil && items.Kind == yaml.SequenceNode {
		for _, item := range items.Content {
			if o := originOf(item); o != "" {
				return o
			}
		}
	}
	_, meta := child(n, Step{Key: "metadata"})
	if meta == nil {
		return ""
	}
	_, annotations := child(meta, Step{Key: "annotations"})
	if annotations == nil {
		return ""
	}
	origin := scalarAt(annotations, originAnnotation)
	if origin == "" {
		return ""
	}
	var o struct {
		Path string `yaml:"path"`
		Repo string `yaml:"repo"`
	}
	if err := yaml.Unmarshal([]byte(origin), &o); err != nil || o.Path == "" {
		return "the kustomization it was built from"
	}
	if o.Repo != "" {
		return o.Path + " in " + o.Repo
	}
	return o.Path
}
