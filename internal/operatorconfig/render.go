package operatorconfig

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the configuration for people.
func (c *Config) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "crdPattern: %s\n", c.CRDPattern)
	fmt.Fprintf(bw, "\nCRDs the manifests use (%d):\n", len(c.Kinds))
	for _, k := range c.Kinds {
		fmt.Fprintf(bw, "  %s/%s (%s; %d %s)\n", k.Group, k.Kind, strings.Join(k.Versions, ", "), k.Resources, plural(k.Resources, "resource", "resources"))
	}
	fmt.Fprintf(bw, "\nNamespaces (%d):\n", len(c.Namespaces))
	for _, ns := range c.Namespaces {
		where := "its Namespace is not in the input: create it before the manifests"
		switch {
		case ns.InInput:
			where = "Namespace in the input (" + ns.Source + ")"
		case ns.Name == "default":
			where = "the cluster's default namespace"
		}
		fmt.Fprintf(bw, "  %s: %d %s; %s\n", ns.Name, ns.Resources, plural(ns.Resources, "resource", "resources"), where)
	}
	if len(c.Credentials) > 0 {
		fmt.Fprintf(bw, "\nCredentials the operator reads (Secrets holding AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID, AZURE_CLIENT_ID and a secret or workload identity):\n")
		for _, cr := range c.Credentials {
			fmt.Fprintf(bw, "  Secret %s/%s (%s): %s\n", cr.Namespace, cr.Name, describeScope(cr), presence(cr.InInput, cr.Source, cr.Scope == ScopeNamespace))
			if cr.Scope == ScopeNamespace {
				fmt.Fprintf(bw, "    for the %d %s in %s that name no credential of their own\n", len(cr.UsedBy), plural(len(cr.UsedBy), "resource", "resources"), cr.Namespace)
			} else {
				fmt.Fprintf(bw, "    for %s\n", strings.Join(cr.UsedBy, ", "))
			}
		}
	}
	for _, group := range []struct {
		kind    string
		objects []Object
	}{{"Secret", c.Secrets}, {"ConfigMap", c.ConfigMaps}} {
		if len(group.objects) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n%ss the resources consume or export:\n", group.kind)
		for _, o := range group.objects {
			fmt.Fprintf(bw, "  %s %s/%s: %s\n", group.kind, o.Namespace, o.Name, objectPresence(o))
			for _, u := range o.Exporters {
				fmt.Fprintf(bw, "    exported by %s (%s%s)\n", u.Address, u.Field, keyText(u.Key))
			}
			for _, u := range o.Consumers {
				fmt.Fprintf(bw, "    consumed by %s (%s%s)\n", u.Address, u.Field, keyText(u.Key))
			}
		}
	}
	fmt.Fprintln(bw, "\nInstall the operator with only these CRDs: the Helm chart's values are azk operator-config -o yaml; asoctl export template takes the crdPattern above as --crd-pattern.")
	return bw.Flush()
}

func describeScope(cr Credential) string {
	switch cr.Scope {
	case ScopeResource:
		return "named by the serviceoperator.azure.com/credential-from annotation of the resources"
	case ScopeNamespaceAnnotation:
		return "named by the serviceoperator.azure.com/credential-from annotation of Namespace " + cr.Namespace
	}
	return "the namespace's credential, for the resources naming none"
}

func presence(inInput bool, source string, fallback bool) string {
	switch {
	case inInput:
		return "in the input (" + source + ")"
	case fallback:
		return "not in the input: without it the operator uses its global credential (aso-controller-settings in its own namespace)"
	}
	return "not in the input: create it before the operator reconciles these resources"
}

func objectPresence(o Object) string {
	switch {
	case o.InInput:
		return "in the input (" + o.Source + ")"
	case len(o.Exporters) > 0:
		return "not in the input: the operator writes it"
	}
	return "not in the input: create it before the operator reconciles its consumers"
}

func keyText(key string) string {
	if key == "" {
		return ""
	}
	return ", key " + key
}

// WriteJSON writes the configuration as one JSON object.
func (c *Config) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(c)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
