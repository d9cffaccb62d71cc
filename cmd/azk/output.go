package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/azkcli/azk/internal/exported"
	"github.com/azkcli/azk/internal/graph"
)

func init() { subcommands = append(subcommands, newOutputCommand) }

func newOutputCommand(g *globalOptions) *cobra.Command {
	var (
		in            inputFlags
		az            azureFlags
		showSensitive bool
	)
	cmd := &cobra.Command{
		Use:   "output PATH... [-k DIR] [ADDRESS...] [-o text|json|yaml|name] [--show-sensitive]",
		Short: "Print the values resources export, read from Azure now, as the operator writes them",
		Long: `Output prints the config maps and Secrets the resources of the manifests export
(operatorSpec.configMaps and configMapExpressions, operatorSpec.secrets and
secretExpressions), read from Azure now, as the operator would write them into
the cluster: names, keys, annotations and labels from the manifests, values
from Azure (status values, keys fetched the way the operator fetches them,
CEL over both). Resources that do not exist yet export nothing.

Arguments that are not files or folders are addresses: a resource
(group/Kind/namespace/name, Kind/namespace/name or Kind/name) prints what it
exports, ConfigMap/NAME or Secret/NAME one exported object.

Secret values are fetched and printed only with --show-sensitive; without it,
Secrets show their keys, their values as (sensitive).

  -o text   one block per config map or Secret (default)
  -o json   one JSON array of {kind, namespace, name, from, data, annotations, labels}
  -o yaml   v1 ConfigMap and Secret manifests an application's Deployment can use
            (Secret data base64); Secrets only with --show-sensitive
  -o name   the address of each config map and Secret (v1/Kind/namespace/name), one a line`,
		Example: `  azk output --emulator examples/storage-key-to-app
  azk output ./manifests StorageAccount/appdata --show-sensitive -o yaml | kubectl apply -f -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			paths, addresses := splitAddresses(args)
			if err := in.requireInputs(cmd, paths); err != nil {
				return err
			}
			ctx := cmd.Context()
			session, diags, err := openSession(ctx, g, &az, &in, paths, &selectFlags{}, graph.WithDependencies)
			if err != nil {
				return err
			}
			defer session.release()
			printDiagnostics(g.stderr, diags)
			f := exported.New(exported.Options{Client: session.client, Redact: g.secrets.Add})
			objs, err := f.Select(ctx, session.graph, addresses, showSensitive, func(n *graph.Node) {
				fmt.Fprintf(g.stderr, "%s does not exist in Azure: it exports nothing yet\n", n.Address())
			})
			if err != nil {
				return err
			}
			return writeExported(g.stdout, g.stderr, g.output, objs, showSensitive)
		},
	}
	in.register(cmd)
	az.register(cmd)
	cmd.Flags().BoolVar(&showSensitive, "show-sensitive", false, "fetch and print the values of Secrets")
	return cmd
}

// splitAddresses tells the inputs (files, folders, "-") from the addresses
// among the arguments.
func splitAddresses(args []string) (paths, addresses []string) {
	for _, a := range args {
		if _, err := os.Stat(a); err == nil || a == "-" || !strings.Contains(a, "/") {
			paths = append(paths, a)
		} else {
			addresses = append(addresses, a)
		}
	}
	return paths, addresses
}

// manifest is a v1 ConfigMap or Secret as kubectl reads it.
type manifest struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   manifestMetadata  `json:"metadata"`
	Type       string            `json:"type,omitempty"`
	Data       map[string]string `json:"data"`
}

type manifestMetadata struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
}

// jsonObject is one exported object in -o json.
type jsonObject struct {
	Kind        string            `json:"kind"`
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	From        string            `json:"from"`
	Data        map[string]string `json:"data"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
}

func writeExported(w, stderr io.Writer, format string, objs []exported.Object, reveal bool) error {
	shown := func(o exported.Object) map[string]string {
		if o.Kind != "Secret" || reveal {
			return o.Data
		}
		hidden := make(map[string]string, len(o.Data))
		for k := range o.Data {
			hidden[k] = "(sensitive)"
		}
		return hidden
	}
	switch format {
	case "json":
		out := make([]jsonObject, 0, len(objs))
		for _, o := range objs {
			out = append(out, jsonObject{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, From: o.From, Data: shown(o), Annotations: o.Annotations, Labels: o.Labels})
		}
		return writeJSON(w, out)
	case "name":
		// Addresses, as the other commands' -o name prints them, which output takes back as arguments.
		names := make([]string, 0, len(objs))
		for _, o := range objs {
			names = append(names, "v1/"+o.Kind+"/"+o.Namespace+"/"+o.Name)
		}
		return writeNames(w, names)
	case "yaml":
		hidden := 0
		for _, o := range objs {
			m := manifest{APIVersion: "v1", Kind: o.Kind, Data: o.Data,
				Metadata: manifestMetadata{Name: o.Name, Namespace: o.Namespace, Annotations: o.Annotations, Labels: o.Labels}}
			if o.Kind == "Secret" {
				if !reveal {
					hidden++
					continue
				}
				m.Type = "Opaque"
				m.Data = make(map[string]string, len(o.Data))
				for k, v := range o.Data {
					m.Data[k] = base64.StdEncoding.EncodeToString([]byte(v))
				}
			}
			doc, err := yaml.Marshal(m)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "---\n# exported by %s\n%s", o.From, doc)
		}
		if hidden > 0 {
			fmt.Fprintf(stderr, "%d Secret(s) not printed: --show-sensitive fetches and prints them\n", hidden)
		}
		return nil
	}
	if len(objs) == 0 {
		fmt.Fprintln(w, "Nothing exported: no resource of the inputs exists in Azure with operatorSpec.configMaps, secrets or their expressions.")
		return nil
	}
	for i, o := range objs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s %s/%s (exported by %s)\n", o.Kind, o.Namespace, o.Name, o.From)
		data := shown(o)
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %s = %s\n", k, data[k])
		}
	}
	return nil
}
