package planner

import (
	"crypto/sha256"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestInputsTreeDigest: an object's digest changes with anything a request
// could be built from (a value, a scalar's type, a key, the nesting), and
// not with a comment.
func TestInputsTreeDigest(t *testing.T) {
	digest := func(text string) [32]byte {
		t.Helper()
		n, err := yaml.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		th := newTreeHasher(h)
		th.node(n.YNode())
		th.flush()
		var out [32]byte
		copy(out[:], h.Sum(nil))
		return out
	}
	base := "spec:\n  location: westus2\n  count: 1\n  tags: [a, b]\n"
	same := map[string]string{
		"a comment":  "# the stack\nspec:\n  location: westus2 # here\n  count: 1\n  tags: [a, b]\n",
		"flow style": "spec: {location: westus2, count: 1, tags: [a, b]}\n",
	}
	for name, text := range same {
		if digest(text) != digest(base) {
			t.Errorf("%s changed the digest", name)
		}
	}
	differ := map[string]string{
		"a value":         "spec:\n  location: westus3\n  count: 1\n  tags: [a, b]\n",
		"a scalar's type": "spec:\n  location: westus2\n  count: \"1\"\n  tags: [a, b]\n",
		"a key":           "spec:\n  region: westus2\n  count: 1\n  tags: [a, b]\n",
		"a list item":     "spec:\n  location: westus2\n  count: 1\n  tags: [a, b, c]\n",
		"the nesting":     "spec:\n  location: westus2\n  count: 1\n  tags: [[a, b]]\n",
		"a split value":   "spec:\n  location: westus2\n  count: 1\n  tags: [ab]\n",
	}
	for name, text := range differ {
		if digest(text) == digest(base) {
			t.Errorf("%s left the digest as it was", name)
		}
	}
}
