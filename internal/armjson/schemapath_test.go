package armjson

import (
	"strings"
	"testing"
)

func TestSchemaSteps(t *testing.T) {
	for path, want := range map[string]string{
		"properties.adminPassword":        "properties|adminPassword",
		"properties.secrets[].value":      "properties|secrets|[]|value",
		"tags{}":                          "tags|{}",
		"properties.matrix[][].cells{}[]": "properties|matrix|[]|[]|cells|{}|[]",
	} {
		if got := strings.Join(SchemaSteps(path), "|"); got != want {
			t.Errorf("SchemaSteps(%q) = %s, want %s", path, got, want)
		}
	}
}
