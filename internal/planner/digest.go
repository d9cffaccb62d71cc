package planner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/azkcli/azk/internal/graph"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// inputsDigest identifies the resolved inputs: every object as parsed (and
// the base's resources), the subscription and the policy flag. Secrets are
// left out (their values are compared through the salted digests of the
// desired bodies instead).
func inputsDigest(g, base *graph.Graph, ifExists string) string {
	// Each object's tree goes into the hash one at a time, in the order of
	// its key (address and ID, unique, each ending in a newline, so none
	// starts another). The tree, not its YAML text: writing 20,000 objects
	// out as YAML cost more CPU than the rest of a plan's own work.
	type doc struct {
		key  string
		node *yaml.RNode
	}
	var docs []doc
	for _, n := range g.Nodes {
		docs = append(docs, doc{n.Address() + "\n" + n.ID + "\n", n.Object.Node})
	}
	if base != nil {
		for _, n := range base.Nodes {
			docs = append(docs, doc{"base " + n.Address() + "\n" + n.ID + "\n", n.Object.Node})
		}
	}
	for _, cm := range g.ConfigMaps {
		docs = append(docs, doc{cm.Address() + "\n", cm.Node})
	}
	for _, ns := range g.Namespaces {
		docs = append(docs, doc{ns.Address() + "\n", ns.Node})
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].key < docs[j].key })
	h := sha256.New()
	fmt.Fprintf(h, "subscription %s\nif-exists %s\ndefault-policy %s\n", g.Subscription, ifExists, g.DefaultPolicy)
	t := newTreeHasher(h)
	for _, d := range docs {
		t.buf = strconv.AppendInt(t.buf, int64(len(d.key)), 10)
		t.buf = append(t.buf, '\n')
		t.buf = append(t.buf, d.key...)
		t.node(d.node.YNode())
	}
	t.flush()
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// treeHasher writes YAML trees into a hash (through a buffer, without fmt:
// its writes for each node of 20,000 objects cost more than the hashing):
// each node's kind, tag and value, length-prefixed so that no two trees
// write the same bytes, then its children. Comments and styles are left out:
// they change no request.
type treeHasher struct {
	out io.Writer
	buf []byte
}

func newTreeHasher(out io.Writer) *treeHasher {
	return &treeHasher{out: out, buf: make([]byte, 0, 32<<10)}
}

func (t *treeHasher) flush() {
	t.out.Write(t.buf)
	t.buf = t.buf[:0]
}

func (t *treeHasher) node(n *yaml.Node) {
	if n == nil {
		t.buf = append(t.buf, '~')
		return
	}
	if n.Kind == yaml.AliasNode {
		t.node(n.Alias)
		return
	}
	if len(t.buf) > 16<<10 {
		t.flush()
	}
	tag := n.ShortTag()
	t.buf = strconv.AppendInt(t.buf, int64(n.Kind), 10)
	t.buf = append(t.buf, ' ')
	t.buf = strconv.AppendInt(t.buf, int64(len(tag)), 10)
	t.buf = append(t.buf, ':')
	t.buf = append(t.buf, tag...)
	t.buf = append(t.buf, ' ')
	t.buf = strconv.AppendInt(t.buf, int64(len(n.Value)), 10)
	t.buf = append(t.buf, ':')
	t.buf = append(t.buf, n.Value...)
	t.buf = append(t.buf, ' ')
	t.buf = strconv.AppendInt(t.buf, int64(len(n.Content)), 10)
	t.buf = append(t.buf, '[')
	for _, c := range n.Content {
		t.node(c)
	}
	t.buf = append(t.buf, ']')
}
