package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Interaction is one recorded HTTP exchange (go-vcr v2 format).
type Interaction struct {
	// ID is the interaction's number in the recording.
	ID      int `yaml:"id"`
	Request struct {
		Method  string              `yaml:"method"`
		URL     string              `yaml:"url"`
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
	} `yaml:"request"`
	Response struct {
		Code    int                 `yaml:"code"`
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
	} `yaml:"response"`
}

// Recording is one test's HTTP recording.
type Recording struct {
	Interactions []Interaction `yaml:"interactions"`
}

// ReadRecording parses a recording file.
func ReadRecording(path string) (*Recording, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseRecording(path, data)
}

// parseRecording parses the recording data read from path.
func parseRecording(path string, data []byte) (*Recording, error) {
	var r Recording
	if err := yaml.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Path returns the request URL's path (no scheme, host or query).
func (i *Interaction) Path() string {
	u := i.Request.URL
	if j := strings.Index(u, "://"); j >= 0 {
		u = u[j+3:]
		if k := strings.IndexByte(u, '/'); k >= 0 {
			u = u[k:]
		}
	}
	if j := strings.IndexByte(u, '?'); j >= 0 {
		u = u[:j]
	}
	return u
}

// Resolve finds the recorded ARM path that stands for id: the same path but
// for the resource group name (the harness made its own group), else the only
// recorded path of the same shape with names masked.
func (r *Recording) Resolve(id string) (string, bool) {
	want := strings.Split(strings.ToLower(strings.Trim(id, "/")), "/")
	masked := MaskID(id)
	var shaped []string
	seen := map[string]bool{}
	for i := range r.Interactions {
		path := r.Interactions[i].Path()
		if seen[path] {
			continue
		}
		seen[path] = true
		got := strings.Split(strings.ToLower(strings.Trim(path, "/")), "/")
		if sameButGroup(want, got) {
			return path, true
		}
		if MaskID(path) == masked {
			shaped = append(shaped, path)
		}
	}
	if len(shaped) == 1 {
		return shaped[0], true
	}
	return "", false
}

func sameButGroup(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(i == 3 && a[2] == "resourcegroups") {
			return false
		}
	}
	return true
}

// StateBeforePut is the resource at path as the operator saw it just before
// its first PUT: the body of the last successful GET before that PUT, or nil
// when it did not exist.
func (r *Recording) StateBeforePut(path string) map[string]any {
	var state map[string]any
	for i := range r.Interactions {
		in := &r.Interactions[i]
		if in.Path() != path {
			continue
		}
		if in.Request.Method == "PUT" {
			break
		}
		if in.Request.Method == "GET" {
			state = nil
			if in.Response.Code == 200 {
				_ = json.Unmarshal([]byte(in.Response.Body), &state)
			}
		}
	}
	return state
}

// LastGet is the body of the last successful GET of path, or nil.
func (r *Recording) LastGet(path string) map[string]any {
	var state map[string]any
	for i := range r.Interactions {
		in := &r.Interactions[i]
		if in.Path() == path && in.Request.Method == "GET" && in.Response.Code == 200 {
			var body map[string]any
			if json.Unmarshal([]byte(in.Response.Body), &body) == nil {
				state = body
			}
		}
	}
	return state
}
