// Command gen derives the registry data from the ASO corpus:
//
//	go run ./internal/registry/gen --corpus ../shared/aso
//
// The REST specifications' types are read from --arm-types (by default
// arm-types beside the corpus, ../shared/arm-types).
//
// It writes internal/registry/data (relative to the working directory unless
// --out says otherwise) and prints how many kinds it found.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/azkcli/azk/internal/registry/internal/corpusgen"
)

func main() {
	corpus := flag.String("corpus", "", "folder of the ASO corpus (holding crds/ and api/)")
	armTypes := flag.String("arm-types", "", "folder of the REST specifications' types (default: arm-types beside --corpus)")
	out := flag.String("out", "internal/registry/data", "folder to write the registry data into")
	flag.Parse()
	if *corpus == "" {
		fmt.Fprintln(os.Stderr, "gen: --corpus is required")
		os.Exit(2)
	}
	if *armTypes == "" {
		*armTypes = corpusgen.ARMTypesDir(*corpus)
	}
	res, err := corpusgen.Build(*corpus, *armTypes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := corpusgen.Write(res.Kinds, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := corpusgen.WriteARMTypes(res.ARMTypes, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := corpusgen.WriteCorpus(res.Corpus, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("gen: ASO %s, %d kinds, %d spec fields without an ARM pairing\n", res.Corpus.ASOVersion, len(res.Kinds), len(res.Unpaired))
}
