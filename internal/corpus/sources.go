package corpus

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

// Sources answers what converting the recording's samples needs the way Azure
// answered the operator in the recording: secrets as the recordings redact
// them, a resource's status from its last successful GET, reads as they were
// just before the resource's first PUT, and the built-in roles the samples use.
func (r *Recording) Sources() convert.Sources {
	return convert.Sources{
		LookupEnv: func(key string) (string, bool) {
			return "{PASSWORD}", strings.HasPrefix(key, "AZK_SECRET_")
		},
		Status: func(n *graph.Node) map[string]any {
			path, ok := r.Resolve(n.ID)
			if !ok {
				return nil
			}
			if body := r.LastGet(path); body != nil {
				return convert.Status(n.Kind, body)
			}
			return nil
		},
		Get: func(id, _ string) (map[string]any, error) {
			path, ok := r.Resolve(id)
			if !ok {
				return nil, nil
			}
			return r.StateBeforePut(path), nil
		},
		RoleDefinitionID: BuiltInRoleID,
	}
}

// BuiltInRoleID resolves a built-in role name as ARM did for the operator:
// from the table of every built-in role the recordings list (see BuiltInRoles).
func BuiltInRoleID(name string) (string, bool) {
	roles := builtInRoles()
	id, ok := roles[strings.ToLower(name)]
	if !ok {
		return "", false
	}
	return "/subscriptions/" + Subscription + "/providers/Microsoft.Authorization/roleDefinitions/" + id, true
}

var builtInRoles = sync.OnceValue(func() map[string]string {
	dir, err := locate()
	if err != nil {
		return nil
	}
	roles, _ := BuiltInRoles(dir)
	return roles
})

// BuiltInRoles reads the built-in role definitions (lower-cased role name to
// role definition GUID) from every listing of role definitions the
// recordings hold: the operator lists them to resolve wellKnownName.
func BuiltInRoles(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "recordings", "*.yaml"))
	if err != nil {
		return nil, err
	}
	roles := map[string]string{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if !bytes.Contains(data, []byte("/providers/Microsoft.Authorization/roleDefinitions?")) {
			continue
		}
		rec, err := parseRecording(file, data)
		if err != nil {
			return nil, err
		}
		for i := range rec.Interactions {
			in := &rec.Interactions[i]
			if in.Request.Method != "GET" || in.Response.Code != 200 || !strings.HasSuffix(in.Path(), "/providers/Microsoft.Authorization/roleDefinitions") {
				continue
			}
			var list struct {
				Value []struct {
					Name       string `json:"name"`
					Properties struct {
						RoleName string `json:"roleName"`
						Type     string `json:"type"`
					} `json:"properties"`
				} `json:"value"`
			}
			if json.Unmarshal([]byte(in.Response.Body), &list) != nil {
				continue
			}
			for _, d := range list.Value {
				if d.Properties.Type == "BuiltInRole" && d.Properties.RoleName != "" {
					roles[strings.ToLower(d.Properties.RoleName)] = d.Name
				}
			}
		}
	}
	return roles, nil
}

// APIVersion is the api-version query parameter of a URL.
func APIVersion(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Query().Get("api-version")
}
