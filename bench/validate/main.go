// Command validate measures azk's offline path at scale: load + validate +
// graph of N resources (the corpus samples replicated across resource
// groups), reporting wall time and the process's peak memory.
//
//	go run ./bench/validate --corpus ../shared/aso --resources 10000
//
// The input is generated first; the measurement runs in a fresh child process
// so its peak resident memory counts only the work being measured.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

func main() {
	defaultCorpus := os.Getenv("AZK_CORPUS")
	if defaultCorpus == "" {
		defaultCorpus = "../shared/aso"
	}
	corpusDir := flag.String("corpus", defaultCorpus, "the ASO corpus (default $AZK_CORPUS, else ../shared/aso)")
	resources := flag.Int("resources", 10000, "how many resources to generate")
	measure := flag.String("measure", "", "internal: measure this input file in this process")
	flag.Parse()
	if *measure != "" {
		if err := run(*measure); err != nil {
			fmt.Fprintln(os.Stderr, "validate:", err)
			os.Exit(1)
		}
		return
	}
	dir, err := os.MkdirTemp("", "azk-bench-validate")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "input.yaml")
	n, err := corpus.WriteReplicatedSamples(*corpusDir, file, *resources)
	if err != nil {
		fail(err)
	}
	info, _ := os.Stat(file)
	fmt.Printf("input: %d resources, %.1f MB\n", n, float64(info.Size())/1e6)
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	cmd := exec.Command(self, "--measure", file)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fail(err)
	}
}

func run(file string) error {
	start := time.Now()
	res, diags := loader.Load(loader.Options{Paths: []string{file}})
	loaded := time.Since(start)
	g, more := graph.Build(res, graph.Options{Subscription: corpus.Subscription})
	total := time.Since(start)
	if err := append(diags, more...).Err(); err != nil {
		return err
	}
	fmt.Printf("load: %v, validate+graph: %v, total: %v for %d resources\n",
		loaded.Round(time.Millisecond), (total - loaded).Round(time.Millisecond), total.Round(time.Millisecond), len(g.Nodes))
	fmt.Printf("peak resident memory: %s\n", peakRSS())
	return nil
}

// peakRSS reads the process's high-water resident set size (Linux).
func peakRSS() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "validate:", err)
	os.Exit(1)
}
