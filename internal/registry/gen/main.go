// Command gen derives the registry data from the ASO corpus:
//
//	go run ./internal/registry/gen --corpus ../shared/aso
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
	out := flag.String("out", "internal/registry/data", "folder to write the registry data into")
	flag.Parse()
	if *corpus == "" {
		fmt.Fprintln(os.Stderr, "gen: --corpus is required")
		os.Exit(2)
	}
	res, err := corpusgen.Build(*corpus)
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
	fmt.Printf("gen: %d kinds, %d spec fields without an ARM pairing\n", len(res.Kinds), len(res.Unpaired))
}
