package providers

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// tagNames is ARM's subscription tag names API (the SDKs' TagsClient, `az
// tag create|list|add-value`): GET /subscriptions/{s}/tagNames summarises
// the tags in use (on the subscription, its resource groups and resources)
// together with the predefined names and values, each with the count of
// what carries it; PUT and DELETE /tagNames/{name}[/tagValues/{value}]
// add and remove predefined names and values. A predefined name or value
// is kept as a record at its own ID.
type tagNames struct{ c *armcore.Core }

const (
	typeTagName  = "Microsoft.Resources/tagNames"
	typeTagValue = "Microsoft.Resources/tagNames/tagValues"
	// The tag names Azure keeps for itself, and the longest name and value.
	maxTagName  = 512
	maxTagValue = 256
)

var reservedTagPrefixes = []string{"microsoft", "azure", "windows"}

// Route answers every request on /subscriptions/{s}/tagNames[...].
func (tn tagNames) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	if t.Kind != armpath.TagNames {
		return false, nil
	}
	switch {
	case t.Name == "" && r.Method == http.MethodGet:
		return true, tn.list(w, t)
	case t.Name != "" && (r.Method == http.MethodPut || r.Method == http.MethodDelete):
		return true, tn.c.Write(func(tx armcore.Tx) error {
			if !tx.KnowsSubscription(t.Sub) {
				return armcore.SubscriptionNotFound(t.Sub)
			}
			if r.Method == http.MethodPut {
				return tn.put(tx, w, t)
			}
			return tn.delete(tx, w, t)
		})
	}
	return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on '%s'.", r.Method, r.URL.Path)
}

// tagUsage is one tag name's use in a subscription.
type tagUsage struct {
	name   string // as predefined, else as the oldest resource carrying it spells it
	count  int
	values map[string]*valueUsage // by lower-cased value
}

type valueUsage struct {
	value string
	count int
}

// usage sums the tags of the subscription sub: the subscription's own, its
// resource groups' and its resources', with the predefined names and values.
func usage(tx armcore.Tx, sub string) map[string]*tagUsage {
	prefix := armpath.Key("/subscriptions/" + sub + "/")
	out := map[string]*tagUsage{}
	name := func(n string) *tagUsage {
		u := out[strings.ToLower(n)]
		if u == nil {
			u = &tagUsage{name: n, values: map[string]*valueUsage{}}
			out[strings.ToLower(n)] = u
		}
		return u
	}
	value := func(u *tagUsage, v string) *valueUsage {
		vu := u.values[strings.ToLower(v)]
		if vu == nil {
			vu = &valueUsage{value: v}
			u.values[strings.ToLower(v)] = vu
		}
		return vu
	}
	var predefinedNames, predefinedValues, carriers []*store.Record
	for k, rec := range tx.Store().Resources() {
		if strings.HasPrefix(k, prefix) && tx.Live(k) != nil {
			carriers = append(carriers, rec)
		}
	}
	// Oldest first, so that a name or value is spelt as it was first given.
	sort.Slice(carriers, func(i, j int) bool {
		a, b := carriers[i], carriers[j]
		return a.Created.Before(b.Created) || a.Created.Equal(b.Created) && armpath.Key(a.ID) < armpath.Key(b.ID)
	})
	for _, rec := range carriers {
		switch {
		case strings.EqualFold(rec.Type, typeTagName):
			predefinedNames = append(predefinedNames, rec)
			continue
		case strings.EqualFold(rec.Type, typeTagValue):
			predefinedValues = append(predefinedValues, rec)
			continue
		}
		var body struct {
			Tags       map[string]any `json:"tags"`
			Properties struct {
				Tags map[string]any `json:"tags"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(rec.Body, &body)
		tags := body.Tags
		if strings.EqualFold(rec.Type, "Microsoft.Resources/tags") {
			tags = body.Properties.Tags // the subscription's own tags
		}
		for n, v := range tags {
			u := name(n)
			u.count++
			s, _ := v.(string)
			value(u, s).count++
		}
	}
	// A predefined name is spelt as it was predefined.
	for _, rec := range predefinedNames {
		n := lastSegment(rec.ID)
		if u := out[strings.ToLower(n)]; u != nil {
			u.name = n
		} else {
			name(n)
		}
	}
	for _, rec := range predefinedValues {
		parts := strings.Split(rec.ID, "/")
		value(name(parts[len(parts)-3]), parts[len(parts)-1])
	}
	return out
}

func tagNameID(sub, name string) string { return "/subscriptions/" + sub + "/tagNames/" + name }

// details is a TagDetails of the REST specification.
func details(sub string, u *tagUsage) map[string]any {
	keys := make([]string, 0, len(u.values))
	for k := range u.values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	values := []any{}
	for _, k := range keys {
		values = append(values, valueDetails(sub, u.name, u.values[k]))
	}
	return map[string]any{"id": tagNameID(sub, u.name), "tagName": u.name, "count": tagCount(u.count), "values": values}
}

// valueDetails is a TagValue of the REST specification.
func valueDetails(sub, name string, v *valueUsage) map[string]any {
	return map[string]any{"id": tagNameID(sub, name) + "/tagValues/" + v.value, "tagValue": v.value, "count": tagCount(v.count)}
}

func tagCount(n int) map[string]any { return map[string]any{"type": "Total", "value": n} }

func (tn tagNames) list(w http.ResponseWriter, t armpath.Target) error {
	return tn.c.Read(func(tx armcore.Tx) error {
		if !tx.KnowsSubscription(t.Sub) {
			return armcore.SubscriptionNotFound(t.Sub)
		}
		all := usage(tx, t.Sub)
		keys := make([]string, 0, len(all))
		for k := range all {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		value := []any{}
		for _, k := range keys {
			value = append(value, details(t.Sub, all[k]))
		}
		armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": value})
		return nil
	})
}

func (tn tagNames) put(tx armcore.Tx, w http.ResponseWriter, t armpath.Target) error {
	if err := checkTagName(t.Name); err != nil {
		return err
	}
	all := usage(tx, t.Sub)
	u := all[strings.ToLower(t.Name)]
	if t.TagValue == "" {
		status := http.StatusOK
		if tx.Live(armpath.Key(tagNameID(t.Sub, t.Name))) == nil {
			status = http.StatusCreated
			if err := putMarker(tx, tagNameID(t.Sub, t.Name), typeTagName, "/subscriptions/"+t.Sub); err != nil {
				return err
			}
		}
		if u == nil {
			u = &tagUsage{name: t.Name, values: map[string]*valueUsage{}}
		}
		armcore.WriteJSON(w, status, details(t.Sub, u))
		return nil
	}
	if utf8.RuneCountInString(t.TagValue) > maxTagValue {
		return armcore.Errorf(http.StatusBadRequest, "InvalidTagValueLength", "The tag value '%s' is longer than %d characters.", t.TagValue, maxTagValue)
	}
	if tx.Live(armpath.Key(tagNameID(t.Sub, t.Name))) == nil {
		return armcore.Errorf(http.StatusNotFound, "TagNameNotFound", "The tag name '%s' is not a predefined tag name of the subscription; create it first.", t.Name)
	}
	status := http.StatusOK
	if tx.Live(armpath.Key(t.ID)) == nil {
		status = http.StatusCreated
		if err := putMarker(tx, t.ID, typeTagValue, tagNameID(t.Sub, t.Name)); err != nil {
			return err
		}
	}
	v := &valueUsage{value: t.TagValue}
	if u != nil && u.values[strings.ToLower(t.TagValue)] != nil {
		v = u.values[strings.ToLower(t.TagValue)]
	}
	armcore.WriteJSON(w, status, valueDetails(t.Sub, t.Name, v))
	return nil
}

// checkTagName refuses what ARM refuses as a predefined tag name.
func checkTagName(name string) error {
	for _, p := range reservedTagPrefixes {
		if strings.HasPrefix(strings.ToLower(name), p) {
			return armcore.Errorf(http.StatusBadRequest, "InvalidTagName", "The tag name '%s' starts with '%s', which is reserved for Azure's use.", name, p)
		}
	}
	if utf8.RuneCountInString(name) > maxTagName {
		return armcore.Errorf(http.StatusBadRequest, "InvalidTagNameLength", "The tag name '%s' is longer than %d characters.", name, maxTagName)
	}
	return nil
}

// putMarker stores a predefined tag name or value.
func putMarker(tx armcore.Tx, id, typ, parent string) error {
	body, err := json.Marshal(map[string]any{"id": id, "type": typ})
	if err != nil {
		return err
	}
	return tx.Store().PutResource(armpath.Key(id), &store.Record{ID: id, Type: typ, Parent: armpath.Key(parent), Created: time.Now(), Body: body})
}

// delete removes a predefined name (no longer in use, its predefined values
// deleted first) or value (no longer in use): 200, or 204 when there was none.
func (tn tagNames) delete(tx armcore.Tx, w http.ResponseWriter, t armpath.Target) error {
	k := armpath.Key(t.ID)
	if tx.Live(k) == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	u := usage(tx, t.Sub)[strings.ToLower(t.Name)]
	if t.TagValue == "" {
		if u != nil && u.count > 0 {
			return armcore.Errorf(http.StatusConflict, "TagNameInUse", "The tag name '%s' is in use by %d resources.", t.Name, u.count)
		}
		for range tx.Store().Children(k) {
			return armcore.Errorf(http.StatusConflict, "TagNameHasValues", "The tag name '%s' has predefined values; delete them first.", t.Name)
		}
	} else if v := u.values[strings.ToLower(t.TagValue)]; v != nil && v.count > 0 {
		return armcore.Errorf(http.StatusConflict, "TagValueInUse", "The tag value '%s' of '%s' is in use by %d resources.", t.TagValue, t.Name, v.count)
	}
	if err := tx.Store().DeleteResource(k); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
