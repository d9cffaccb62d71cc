package registry

import (
	"fmt"
	"sync"
)

// Corpus describes the ASO corpus the registry was generated from.
type Corpus struct {
	// ASOVersion is the Azure Service Operator release whose CRDs the
	// registry holds, as the CRDs' app.kubernetes.io/version label names it
	// (v2.20.0-rev.118).
	ASOVersion string `json:"asoVersion"`
}

// Source describes the corpus the embedded registry was generated from. It
// reads only that description (written by ./gen as data/corpus.json.gz),
// not the registry.
var Source = sync.OnceValue(func() Corpus {
	var c Corpus
	if err := readGzipJSON(data, "data/corpus.json.gz", &c); err != nil {
		// The data is embedded at build time; failing to read it is a build defect.
		panic(fmt.Sprintf("registry: embedded data: %v", err))
	}
	return c
})
