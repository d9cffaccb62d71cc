package extensions

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/armjson"
)

// SecretExporter is a kind whose resources publish secrets through
// spec.operatorSpec.secrets, fetched from Azure the way the operator's
// KubernetesSecretExporter extension for the kind fetches them: from POST
// actions on the resource that answer with keys and change nothing
// (listKeys and its kin, reads in ARM's terms), from the resource's status,
// and from its ARM ID.
type SecretExporter interface {
	// SecretReads are the POST actions, as paths under the resource's ARM
	// ID ("listKeys", "authorizationRules/RootManageSharedAccessKey/listKeys"),
	// that fetching the requested secrets (by their operatorSpec.secrets
	// names) calls, in order. azk sends them at the resource's own
	// api-version, whose REST specification defines them; the operator's SDK
	// clients send their own (its recordings show storage listKeys at
	// 2024-01-01, for one), which ARM answers alike.
	SecretReads(requested []string) []string
	// ExportSecrets computes the requested secrets. Values are those the
	// operator writes for operatorSpec.secrets; Raw are those it hands to
	// secretExpressions as secret.<name>, which for some kinds differ (see
	// each kind's file). A requested secret Azure does not give is an error,
	// as for the operator.
	ExportSecrets(in SecretInputs) (values, raw map[string]string, err error)
}

// SecretInputs are what an exporter computes secrets from.
type SecretInputs struct {
	// ID is the resource's ARM ID.
	ID string
	// Requested are the secret names asked for.
	Requested []string
	// Status is the resource's status (JSON names, as convert.Status maps
	// an ARM body); nil when it was not read.
	Status map[string]any
	// Answers are the answers of SecretReads, by action.
	Answers map[string]map[string]any
}

// SecretExporterFor returns the secret exporter of an ARM type, or nil.
func SecretExporterFor(armType string) SecretExporter {
	e, _ := extensionOf[SecretExporter](armType)
	return e
}

// IsSecretRead reports whether action (the path under a resource's ARM ID)
// is one the secret exporter of armType calls to fetch secrets: a POST
// that reads, and changes nothing in Azure.
func IsSecretRead(armType, action string) bool {
	e, ok := extensionOf[keyed](armType)
	if !ok {
		return false
	}
	for _, r := range e.keys().reads {
		if strings.EqualFold(r.action, action) {
			return true
		}
	}
	return false
}

// FetchSecrets fetches the requested secrets of a resource of armType with
// its exporter: post sends POST {id}/{action} and returns the answer; only
// the actions the requested secrets need are sent.
func FetchSecrets(armType string, in SecretInputs, post func(path string) (map[string]any, error)) (values, raw map[string]string, err error) {
	e := SecretExporterFor(armType)
	if e == nil {
		return nil, nil, fmt.Errorf("azk does not know how the operator fetches the secrets of %s resources", armType)
	}
	in.Answers = map[string]map[string]any{}
	for _, action := range e.SecretReads(in.Requested) {
		answer, err := post(in.ID + "/" + action)
		if err != nil {
			return nil, nil, err
		}
		in.Answers[action] = answer
	}
	return e.ExportSecrets(in)
}

// keyed is implemented by the exporters built on keyExporter.
type keyed interface{ keys() *keyExporter }

// keyExporter is the shape every secret exporter of the operator has: POST
// actions whose answers hold some secrets, the status holding others, and
// the subscription of the resource's ARM ID.
type keyExporter struct {
	reads []keyRead
	// status are the secrets read from the resource's status: the status
	// path, in JSON names, by secret name.
	status map[string][]string
	// rawStatus are the status secrets the operator also hands to
	// secretExpressions (most hand over only what the actions answer).
	rawStatus []string
	// subscription names the secret that is the resource's subscription ID.
	subscription string
	// rawAs overrides what secretExpressions see for a name: the value of
	// another secret, where the operator hands over that one.
	rawAs map[string]string
	// notRaw are secrets the operator writes but never hands to
	// secretExpressions.
	notRaw []string
}

// sameNames reads secrets named as the fields of the action's answer.
func sameNames(action string, names ...string) keyRead {
	r := keyRead{action: action, values: map[string]string{}}
	for _, n := range names {
		r.values[n] = n
	}
	return r
}

// keyRead is one action and the secrets in its answer: the path of each in
// the answer (see pick), by secret name.
type keyRead struct {
	action string
	values map[string]string
	// base64 says the values are base64 in the answer (the SDK decodes
	// them into bytes, which the operator writes as they are).
	base64 bool
}

func (k *keyExporter) keys() *keyExporter { return k }

func (k *keyExporter) SecretReads(requested []string) []string {
	var out []string
	for _, r := range k.reads {
		for name := range r.values {
			if slices.Contains(requested, name) {
				out = append(out, r.action)
				break
			}
		}
	}
	return out
}

func (k *keyExporter) ExportSecrets(in SecretInputs) (map[string]string, map[string]string, error) {
	values, raw := map[string]string{}, map[string]string{}
	for _, r := range k.reads {
		answer, ok := in.Answers[r.action]
		if !ok {
			continue
		}
		for name, path := range r.values {
			v := pick(answer, path)
			if r.base64 && v != "" {
				b, err := base64.StdEncoding.DecodeString(v)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %s is not base64: %v", r.action, path, err)
				}
				v = string(b)
			}
			if v != "" {
				values[name], raw[name] = v, v
			}
		}
	}
	for name, path := range k.status {
		if v := statusString(in.Status, path); v != "" {
			values[name] = v
			if slices.Contains(k.rawStatus, name) {
				raw[name] = v
			}
		}
	}
	if k.subscription != "" {
		if sub := armid.SubscriptionOf(in.ID); sub != "" {
			values[k.subscription] = sub
		}
	}
	for name, from := range k.rawAs {
		if v, ok := values[from]; ok {
			raw[name] = v
		}
	}
	for _, name := range k.notRaw {
		delete(raw, name)
	}
	for _, name := range in.Requested {
		if values[name] == "" && k.gives(name) {
			// The operator's secret collector refuses an empty value.
			return nil, nil, fmt.Errorf("could not find secret %s: Azure did not give it", name)
		}
	}
	return values, raw, nil
}

// gives reports whether name is a secret this exporter writes.
func (k *keyExporter) gives(name string) bool {
	if _, ok := k.status[name]; ok || name == k.subscription {
		return true
	}
	for _, r := range k.reads {
		if _, ok := r.values[name]; ok {
			return true
		}
	}
	return false
}

// pick reads a string in an answer at a dotted path whose steps are keys,
// list indexes ("[0]"), list items chosen by a field ("[keyName=key1]") or
// the item without a field ("[!name]").
func pick(v any, path string) string {
	for _, step := range strings.Split(path, ".") {
		key, sel, _ := strings.Cut(step, "[")
		if key != "" {
			m, _ := v.(map[string]any)
			v = m[key]
		}
		if sel == "" {
			continue
		}
		sel = strings.TrimSuffix(sel, "]")
		list, _ := v.([]any)
		v = nil
		if field, ok := strings.CutPrefix(sel, "!"); ok {
			for _, item := range list {
				if m, _ := item.(map[string]any); m != nil && m[field] == nil {
					v = m
					break
				}
			}
		} else if field, want, ok := strings.Cut(sel, "="); ok {
			for _, item := range list {
				if m, _ := item.(map[string]any); m != nil && fmt.Sprint(m[field]) == want {
					v = m
					break
				}
			}
		} else if i, err := strconv.Atoi(sel); err == nil && i >= 0 && i < len(list) {
			v = list[i]
		}
	}
	s, _ := v.(string)
	return s
}

// statusString reads a status value as the operator writes it: strings as
// they are, numbers in decimal.
func statusString(status map[string]any, path []string) string {
	v, _ := armjson.Lookup(status, path)
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case int, int64:
		return fmt.Sprint(t)
	}
	return ""
}

// SecretSource says where the exporter of armType takes secret name from,
// for plans: "POST listKeys", "status.primaryEndpoints.blob", "the
// subscription of its ARM ID"; "" when it writes no such secret.
func SecretSource(armType, name string) string {
	e, ok := extensionOf[keyed](armType)
	if !ok {
		return ""
	}
	k := e.keys()
	for _, r := range k.reads {
		if _, ok := r.values[name]; ok {
			return "POST " + r.action
		}
	}
	if path, ok := k.status[name]; ok {
		return "status." + strings.Join(path, ".")
	}
	if name == k.subscription {
		return "the subscription of its ARM ID"
	}
	return ""
}
