package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// WriteReplicatedSamples writes at least n resources to file as one
// multi-document stream: every samples folder that resolves on its own (no
// harness fixups, no errors), copied into namespaces r0, r1, ... each with its
// own resource group, until n is reached. It returns how many resources it wrote.
func WriteReplicatedSamples(dir, file string, n int) (int, error) {
	folders, err := SampleFolders(dir)
	if err != nil {
		return 0, err
	}
	var units [][]string
	for _, folder := range folders {
		if docs, ok := cleanFolder(folder.Path); ok {
			units = append(units, docs)
		}
	}
	if len(units) == 0 {
		return 0, fmt.Errorf("no samples folder under %s resolves on its own", dir)
	}
	// Each copy of a folder gets its own namespace and resource group, so
	// names repeated across folders and copies stay distinct, as do ARM IDs.
	var out bytes.Buffer
	written := 0
	for copyN := 0; written < n; copyN++ {
		for j, docs := range units {
			ns := fmt.Sprintf("r%d-f%d", copyN, j)
			replace := strings.NewReplacer("aso-sample-rg", "rg-"+ns, "namespace: default", "namespace: "+ns, "{namespace}", ns)
			out.WriteString("---\n" + replace.Replace(sampleResourceGroupYAML))
			for _, d := range docs {
				out.WriteString("---\n" + replace.Replace(d))
			}
			written += 1 + len(docs)
		}
	}
	return written, os.WriteFile(file, out.Bytes(), 0o644)
}

// cleanFolder returns a folder's ASO documents (without its resource group)
// when they resolve with the harness resource group, without fixups, all
// inside that resource group.
func cleanFolder(folder string) ([]string, bool) {
	var files []string
	_ = filepath.Walk(folder, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return nil
	})
	res, diags := loader.Load(loader.Options{Paths: files})
	if diags.HasErrors() || len(res.Secrets)+len(res.ConfigMaps) > 0 {
		return nil, false
	}
	rg, _ := loader.Load(loader.Options{Stdin: strings.NewReader(strings.ReplaceAll(sampleResourceGroupYAML, "{namespace}", "default")), Paths: []string{"-"}})
	res.Resources = append(res.Resources, rg.Resources...)
	g, diags := graph.Build(res, graph.Options{Subscription: Subscription})
	if len(diags) > 0 {
		return nil, false
	}
	for _, n := range g.Nodes {
		// Copies must not collide: everything must live in the resource group.
		if !strings.Contains(strings.ToLower(n.ID), "/resourcegroups/aso-sample-rg") {
			return nil, false
		}
	}
	var docs []string
	for _, o := range res.Resources[:len(res.Resources)-1] {
		if o.Kind == "ResourceGroup" || !strings.Contains(o.Node.MustString(), "namespace: default") {
			return nil, false
		}
		docs = append(docs, o.Node.MustString())
	}
	return docs, true
}
