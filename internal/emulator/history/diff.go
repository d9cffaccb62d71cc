package history

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// unrecorded are the top-level members no change record shows: the
// resource's identity and what ARM itself rewrites on every write.
var unrecorded = map[string]bool{"id": true, "name": true, "type": true, "etag": true, "systemData": true}

// diff is the property changes from before to after (either nil): every
// leaf path ("properties.subnets[0].name", "tags.owner") whose value was
// inserted, updated or removed.
func diff(before, after []byte) map[string]PropertyChange {
	was, is := leaves(before), leaves(after)
	out := map[string]PropertyChange{}
	for path, v := range was {
		if now, ok := is[path]; !ok {
			out[path] = PropertyChange{PreviousValue: &v, PropertyChangeType: "Remove"}
		} else if now != v {
			out[path] = PropertyChange{PreviousValue: &v, NewValue: &now, PropertyChangeType: "Update"}
		}
	}
	for path, v := range is {
		if _, ok := was[path]; !ok {
			out[path] = PropertyChange{NewValue: &v, PropertyChangeType: "Insert"}
		}
	}
	return out
}

// leaves flattens a JSON body to its leaf paths and their values as Azure
// renders them; null values and empty objects or arrays have none.
func leaves(body []byte) map[string]string {
	out := map[string]string{}
	if len(body) == 0 {
		return out
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return out
	}
	for k, v := range m {
		if !unrecorded[k] {
			flatten(k, v, out)
		}
	}
	return out
}

func flatten(path string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			flatten(path+"."+k, c, out)
		}
	case []any:
		for i, c := range t {
			flatten(path+"["+strconv.Itoa(i)+"]", c, out)
		}
	case string:
		out[path] = t
	case bool:
		out[path] = "False"
		if t {
			out[path] = "True"
		}
	case json.Number:
		out[path] = t.String()
	}
}
