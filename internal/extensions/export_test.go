package extensions

import "slices"

// SecretNames are the operatorSpec.secrets names an exporter writes, for
// tests against the registry.
func SecretNames(armType string) []string {
	e, ok := extensionOf[keyed](armType)
	if !ok {
		return nil
	}
	k := e.keys()
	var out []string
	for _, r := range k.reads {
		for name := range r.values {
			out = append(out, name)
		}
	}
	for name := range k.status {
		out = append(out, name)
	}
	if k.subscription != "" {
		out = append(out, k.subscription)
	}
	slices.Sort(out)
	return out
}

// SecretStatusPaths are the status paths an exporter reads, by secret name,
// for tests against the registry.
func SecretStatusPaths(armType string) map[string][]string {
	if e, ok := extensionOf[keyed](armType); ok {
		return e.keys().status
	}
	return nil
}
