package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/graph"
)

// outputFormats are the -o values of each command, the default first.
var outputFormats = map[string][]string{
	"validate": {"text", "json", "yaml", "name"},
	"graph":    {"text", "dot", "mermaid", "json", "yaml", "name"},
	"render":   {"text", "json", "yaml", "name"},
	"plan":     {"text", "json", "yaml", "markdown", "name"},
	"show":     {"text", "json", "yaml", "markdown", "name"},
	"apply":    {"text", "json", "yaml", "name"},
	"destroy":  {"text", "json", "yaml", "name"},
	"import":   {"yaml", "json"},
	"output":   {"text", "json", "yaml", "name"},
	"explain":  {"text", "json", "yaml"},
	"version":  {"text", "json", "yaml"},
	// api-resources follows kubectl: wide adds columns, name lists kinds.
	"api-resources": {"text", "wide", "json", "yaml", "name"},
}

// checkOutput refuses an -o the command does not support, naming those it does.
func checkOutput(cmd *cobra.Command, g *globalOptions) error {
	formats := outputFormats[cmd.Name()]
	if slices.Contains(formats, g.output) {
		return nil
	}
	return fmt.Errorf("unknown output format %q for %s: use %s", g.output, cmd.Name(), orList(formats))
}

// orList is "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// completeOutput offers the -o values of the command being completed.
func completeOutput(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	return outputFormats[cmd.Name()], cobra.ShellCompDirectiveNoFileComp
}

// completeValues offers a fixed list of flag values.
func completeValues(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// policies are the reconcile policies, the default first.
var policies = []string{graph.PolicyManage, graph.PolicyDetachOnDelete, graph.PolicySkip}

// yamlWriter turns what is written to it, a stream of JSON values (one
// document or one event per line), into YAML documents separated by "---",
// keeping the order of keys. Close writes what remains.
type yamlWriter struct {
	w   io.Writer
	buf bytes.Buffer
	// stream starts every document with "---", so that the streams of
	// several writers (a plan, then the events of its apply) join up.
	stream bool
	docs   int
	err    error
}

func newYAMLWriter(w io.Writer) *yamlWriter { return &yamlWriter{w: w} }

// newYAMLStream is a yamlWriter for a stream of events.
func newYAMLStream(w io.Writer) *yamlWriter { return &yamlWriter{w: w, stream: true} }

func (y *yamlWriter) Write(p []byte) (int, error) {
	y.buf.Write(p)
	y.convert(false)
	return len(p), y.err
}

// Close converts the last value; an incomplete one is an error.
func (y *yamlWriter) Close() error {
	y.convert(true)
	return y.err
}

// convert writes every complete JSON value in the buffer as YAML.
func (y *yamlWriter) convert(final bool) {
	for y.err == nil {
		data := bytes.TrimLeft(y.buf.Bytes(), " \t\r\n")
		if len(data) == 0 {
			y.buf.Reset()
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if final {
				y.err = fmt.Errorf("converting output to YAML: %w", err)
			}
			return
		}
		rest := data[dec.InputOffset():]
		doc, err := jsonToYAML(raw)
		if err != nil {
			y.err = err
			return
		}
		if y.docs > 0 || y.stream {
			_, y.err = io.WriteString(y.w, "---\n")
		}
		if y.err == nil {
			_, y.err = y.w.Write(doc)
		}
		y.docs++
		remaining := append([]byte(nil), rest...)
		y.buf.Reset()
		y.buf.Write(remaining)
	}
}

// jsonToYAML is one JSON value as a YAML document in block style, keys in
// their JSON order.
func jsonToYAML(data []byte) ([]byte, error) {
	n, err := armjson.ToYAML(json.RawMessage(data))
	if err != nil {
		return nil, fmt.Errorf("converting output to YAML: %w", err)
	}
	s, err := yaml.NewRNode(n).String()
	return []byte(s), err
}

// asYAML runs write, which writes JSON, with its output turned into YAML
// documents on w.
func asYAML(w io.Writer, write func(io.Writer) error) error {
	y := newYAMLWriter(w)
	if err := write(y); err != nil {
		return err
	}
	return y.Close()
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeYAML writes v as one YAML document.
func writeYAML(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	doc, err := jsonToYAML(data)
	if err != nil {
		return err
	}
	_, err = w.Write(doc)
	return err
}

// writeNames writes one address per line (-o name).
func writeNames(w io.Writer, names []string) error {
	for _, n := range names {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}
