package corpus

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Interaction is one recorded HTTP exchange (go-vcr v2 format).
type Interaction struct {
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
	var r Recording
	if err := yaml.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// SamplesFolder names the samples folder a recording was made from:
// Test_Network_v1api20201101_CreationAndDeletion.yaml -> network/v1api20201101,
// Test_NetworkFrontdoor_v1api_... -> network.frontdoor/v1api.
func SamplesFolder(recordingFile string) (group, version string, ok bool) {
	name := strings.TrimSuffix(strings.TrimPrefix(recordingFile, "Test_"), "_CreationAndDeletion.yaml")
	i := strings.LastIndexByte(name, '_')
	if i <= 0 {
		return "", "", false
	}
	group, version = name[:i], name[i+1:]
	// Go test names join dotted groups in camel case: NetworkFrontdoor is network.frontdoor.
	var b strings.Builder
	for j, r := range group {
		if j > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('.')
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String()), version, true
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
