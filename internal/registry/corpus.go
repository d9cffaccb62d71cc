package registry

import "fmt"

// Corpus describes the ASO corpus the registry was generated from.
type Corpus struct {
	// ASOVersion is the Azure Service Operator release whose CRDs the
	// registry holds, as the CRDs' app.kubernetes.io/version label names it
	// (v2.20.0-rev.118).
	ASOVersion string `json:"asoVersion"`
}

// corpusFile is written by ./gen beside the index.
const corpusFile = "corpus.json.gz"

// Source describes the corpus the embedded registry was generated from.
func (r *Registry) Source() Corpus {
	r.corpusOnce.Do(func() {
		if err := readGzipJSON(r.fsys, corpusFile, &r.corpus); err != nil {
			// The data is embedded at build time; failing to read it is a build defect.
			panic(fmt.Sprintf("registry: embedded data: %v", err))
		}
	})
	return r.corpus
}
