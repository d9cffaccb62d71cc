// Package exported reads from Azure, now, the values resources publish into
// config maps and Secrets, as the operator writes them into the cluster:
// operatorSpec.configMaps (status values) and configMapExpressions (CEL),
// operatorSpec.secrets (fetched the way the operator's exporter for the
// kind fetches them, internal/extensions) and secretExpressions (CEL over
// the resource and those secrets). Apply hands them to the resources that
// consume them; azk output prints them for applications.
//
// Secret values are handed to Options.Redact as soon as they are fetched,
// so that the run's redaction knows them before anything could print them.
package exported

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/graph"
)

// Object is a config map or Secret as the operator writes it: its keys and
// values, annotations and labels, in the resource's namespace.
type Object struct {
	// Kind is "ConfigMap" or "Secret".
	Kind      string
	Namespace string
	Name      string
	Data      map[string]string
	// Annotations and Labels are those the destinations name.
	Annotations, Labels map[string]string
	// From is the address of the resource that exports it.
	From string
}

// Options configure a Fetcher. Client is required.
type Options struct {
	Client *arm.Client
	// Status returns a resource's status as already read (see
	// convert.Status), or nil to have the Fetcher read it.
	Status func(n *graph.Node) map[string]any
	// Redact receives every secret value fetched; nil discards them.
	Redact func(values ...string)
}

// Fetcher reads exported values, each resource's once per Fetcher. It is
// safe for concurrent use.
type Fetcher struct {
	opts Options

	mu       sync.Mutex
	fetches  map[*graph.Node]*nodeFetch
	statuses map[*graph.Node]map[string]any
}

// nodeFetch is what a Fetcher reads of one resource beyond its status, once.
type nodeFetch struct {
	secretsOnce sync.Once
	secrets     []Object
	secretsErr  error

	// config is what the resource's kind fills into config maps by hand,
	// fetched once the resource exists.
	configOnce sync.Once
	config     map[string]string
	configErr  error
}

// New returns a Fetcher.
func New(opts Options) *Fetcher {
	return &Fetcher{opts: opts, fetches: map[*graph.Node]*nodeFetch{}, statuses: map[*graph.Node]map[string]any{}}
}

// fetch is n's nodeFetch.
func (f *Fetcher) fetch(n *graph.Node) *nodeFetch {
	f.mu.Lock()
	defer f.mu.Unlock()
	nf := f.fetches[n]
	if nf == nil {
		nf = &nodeFetch{}
		f.fetches[n] = nf
	}
	return nf
}

// status is n's status: as already read, else from a GET; nil, and no
// error, when n does not exist.
func (f *Fetcher) status(ctx context.Context, n *graph.Node) (map[string]any, error) {
	if f.opts.Status != nil {
		if s := f.opts.Status(n); s != nil {
			return s, nil
		}
	}
	f.mu.Lock()
	s, read := f.statuses[n]
	f.mu.Unlock()
	if read {
		return s, nil
	}
	body, err := ReadBody(ctx, f.opts.Client, n.ID, n.Kind.APIVersion)
	if err != nil || body == nil {
		return nil, err
	}
	s = convert.Status(n.Kind, body)
	f.mu.Lock()
	f.statuses[n] = s
	f.mu.Unlock()
	return s, nil
}

// Exists reports whether n exists in Azure: a resource that does not
// exports nothing.
func (f *Fetcher) Exists(ctx context.Context, n *graph.Node) (bool, error) {
	status, err := f.status(ctx, n)
	return status != nil, err
}

// ConfigMaps are the config maps n exports, as the operator writes them.
// A resource that does not exist exports none.
func (f *Fetcher) ConfigMaps(ctx context.Context, n *graph.Node) ([]Object, error) {
	if len(n.Exports) == 0 {
		return nil, nil
	}
	status, err := f.status(ctx, n)
	if err != nil || status == nil {
		return nil, err
	}
	c := newCollector("ConfigMap", n)
	for _, e := range n.Exports {
		if e.Manual {
			values, err := f.manualConfigs(ctx, n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.Field, err)
			}
			v, ok := values[e.Name]
			if !ok {
				return nil, fmt.Errorf("%s: Azure holds no value for it yet", e.Field)
			}
			c.add(e.Field, e.ConfigMap, e.Key, v, nil, nil, nil)
			continue
		}
		if e.Program != nil {
			s, m, err := e.Program.Eval(n.Self(status), nil)
			if err != nil {
				return nil, fmt.Errorf("%s: CEL expression %q: %v", e.Field, e.Program.Source, err)
			}
			c.add(e.Field, e.ConfigMap, e.Key, s, m, nil, nil)
			continue
		}
		v, ok, err := e.Value(n, e.Key, status)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%s: Azure holds no value for it (status.%s)", e.Field, joinPath(e.Status))
		}
		c.add(e.Field, e.ConfigMap, e.Key, v, nil, nil, nil)
	}
	return c.objects()
}

// Secrets are the Secrets n exports, as the operator writes them, their
// values fetched from Azure (and handed to Options.Redact). A resource that
// does not exist exports none.
func (f *Fetcher) Secrets(ctx context.Context, n *graph.Node) ([]Object, error) {
	if len(n.SecretExports) == 0 {
		return nil, nil
	}
	nf := f.fetch(n)
	nf.secretsOnce.Do(func() { nf.secrets, nf.secretsErr = f.fetchSecrets(ctx, n) })
	return nf.secrets, nf.secretsErr
}

// Secret is the keys and values n exports into Secret name, for
// convert.Sources.Secrets: false while n does not exist.
func (f *Fetcher) Secret(ctx context.Context, n *graph.Node, name string) (map[string]string, bool, error) {
	objs, err := f.Secrets(ctx, n)
	if err != nil {
		return nil, true, err
	}
	for _, o := range objs {
		if o.Name == name {
			return o.Data, true, nil
		}
	}
	return nil, false, nil
}

func (f *Fetcher) fetchSecrets(ctx context.Context, n *graph.Node) ([]Object, error) {
	status, err := f.status(ctx, n)
	if err != nil || status == nil {
		return nil, err
	}
	var values, raw map[string]string
	if requested := n.SecretsRequested(); len(requested) > 0 {
		client := f.opts.Client.For(n.ID)
		values, raw, err = extensions.FetchSecrets(n.Kind.ARMType, extensions.SecretInputs{ID: n.ID, Requested: requested, Status: status},
			func(path string) (map[string]any, error) {
				op, err := client.Post(ctx, path, n.Kind.APIVersion, nil)
				if err != nil {
					return nil, err
				}
				resp, err := op.Wait(ctx)
				if err != nil {
					return nil, err
				}
				var answer map[string]any
				if err := json.Unmarshal(resp.Body, &answer); err != nil {
					return nil, fmt.Errorf("POST %s: reading the answer: %w", path, err)
				}
				return answer, nil
			})
		if err != nil {
			return nil, fmt.Errorf("fetching the secrets %s exports: %w", n.Address(), err)
		}
		// What the actions answer is secret; what the status and the ARM ID
		// give (endpoints, identity IDs, the subscription) is shown by any
		// GET and stays readable.
		for name, v := range values {
			if strings.HasPrefix(extensions.SecretSource(n.Kind.ARMType, name), "POST ") {
				f.redact(v)
			}
		}
		for _, v := range raw {
			f.redact(v)
		}
	}
	c := newCollector("Secret", n)
	for _, e := range n.SecretExports {
		if e.Program == nil {
			c.add(e.Field, e.Secret, e.Key, values[e.Name], nil, e.Annotations, e.Labels)
			continue
		}
		s, m, err := e.Program.Eval(n.Self(status), selected(raw, e.Program.Secrets))
		if err != nil {
			return nil, fmt.Errorf("%s: CEL expression %q: %v", e.Field, e.Program.Source, err)
		}
		if len(e.Program.Secrets) > 0 {
			// Built from secrets: a connection string holding a key.
			f.redact(s)
			for _, v := range m {
				f.redact(v)
			}
		}
		c.add(e.Field, e.Secret, e.Key, s, m, nil, nil)
	}
	return c.objects()
}

// selected are the raw secrets an expression reads.
func selected(raw map[string]string, names []string) map[string]string {
	out := map[string]string{}
	for _, name := range names {
		if v, ok := raw[name]; ok {
			out[name] = v
		}
	}
	return out
}

func (f *Fetcher) redact(values ...string) {
	if f.opts.Redact != nil {
		f.opts.Redact(values...)
	}
}

// collector gathers one resource's exports into objects, refusing what the
// operator's collectors refuse: an empty value, a key written twice.
type collector struct {
	kind string
	n    *graph.Node
	objs map[string]*Object
	err  error
}

func newCollector(kind string, n *graph.Node) *collector {
	return &collector{kind: kind, n: n, objs: map[string]*Object{}}
}

// add writes value under key, or each entry of values (an expression
// yielding a map) under its own key.
func (c *collector) add(field, name, key, value string, values, annotations, labels map[string]string) {
	if c.err != nil {
		return
	}
	o := c.objs[name]
	if o == nil {
		o = &Object{Kind: c.kind, Namespace: c.n.Object.Namespace, Name: name, Data: map[string]string{}, From: c.n.Address()}
		c.objs[name] = o
	}
	if values == nil {
		values = map[string]string{key: value}
	}
	for k, v := range values {
		if v == "" {
			c.err = fmt.Errorf("%s: %s %s key %s: no value to write (the operator refuses an empty one)", field, c.kind, name, k)
			return
		}
		if _, dup := o.Data[k]; dup {
			c.err = fmt.Errorf("%s: %s %s key %s is written twice", field, c.kind, name, k)
			return
		}
		o.Data[k] = v
	}
	o.Annotations = merged(o.Annotations, annotations)
	o.Labels = merged(o.Labels, labels)
}

func merged(into, from map[string]string) map[string]string {
	if len(from) == 0 {
		return into
	}
	if into == nil {
		into = map[string]string{}
	}
	maps.Copy(into, from)
	return into
}

// objects are the collected objects sorted by name.
func (c *collector) objects() ([]Object, error) {
	if c.err != nil {
		return nil, c.err
	}
	out := make([]Object, 0, len(c.objs))
	for _, o := range c.objs {
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func joinPath(p []string) string { return strings.Join(p, ".") }

// ManualConfig is the config-map value named name that n's kind fills by
// hand (extensions.ConfigExporter), read from Azure once however many
// resources ask; false while n does not exist or Azure does not hold it yet.
func (f *Fetcher) ManualConfig(ctx context.Context, n *graph.Node, name string) (string, bool, error) {
	values, err := f.manualConfigs(ctx, n)
	v, ok := values[name]
	return v, ok, err
}

func (f *Fetcher) manualConfigs(ctx context.Context, n *graph.Node) (map[string]string, error) {
	c := extensions.ConfigExporterFor(n.Kind.ARMType)
	if c == nil {
		return nil, fmt.Errorf("the operator's extension for %s fills its config maps; azk does not know how", n.Kind.Kind)
	}
	status, err := f.status(ctx, n)
	if err != nil || status == nil {
		return nil, err
	}
	// Read once for every export and every consumer: reading it may GET
	// other resources (a private endpoint's network interface).
	nf := f.fetch(n)
	nf.configOnce.Do(func() {
		nf.config, nf.configErr = c.ExportConfig(status, n.Kind.APIVersion, func(id, apiVersion string) (map[string]any, error) {
			return ReadBody(ctx, f.opts.Client, id, apiVersion)
		})
	})
	return nf.config, nf.configErr
}

// ReadBody reads a resource's ARM body; nil, and no error, when it does not exist.
func ReadBody(ctx context.Context, client *arm.Client, id, apiVersion string) (map[string]any, error) {
	resp, err := client.Get(ctx, id, apiVersion)
	if arm.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, fmt.Errorf("GET %s: reading the body: %w", id, err)
	}
	return body, nil
}
