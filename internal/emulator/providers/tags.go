package providers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// tags is Microsoft.Resources/tags/default, ARM's tags at a scope: not a
// resource of its own but the tags of the scope it names (a resource, a
// resource group or a subscription). PUT replaces the scope's tags, PATCH
// merges, replaces or deletes some (its "operation"), GET reads them and
// DELETE removes them all; each answers the scope's tags as a TagsResource.
// A subscription has no record of its own, so its tags are kept in a record
// at the tags resource's ID (and shown on the subscription).
type tags struct{ c *armcore.Core }

// Route answers every request on {scope}/providers/Microsoft.Resources/tags/default.
func (tg tags) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) (bool, error) {
	if !isTagsDefault(t) {
		return false, nil
	}
	var req map[string]any
	switch r.Method {
	case http.MethodGet:
	case http.MethodPut, http.MethodPatch:
		var err error
		if req, err = armcore.DecodeObject(body); err != nil {
			return true, err
		}
	case http.MethodDelete:
	default:
		return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on '%s'.", r.Method, r.URL.Path)
	}
	return true, tg.c.Write(func(tx armcore.Tx) error {
		scope, err := tg.scope(tx, t)
		if err != nil {
			return err
		}
		cur := scope.tags()
		next := cur
		switch r.Method {
		case http.MethodPut:
			next = requestTags(req)
		case http.MethodPatch:
			if next, err = patchTags(cur, req); err != nil {
				return err
			}
		case http.MethodDelete:
			next = map[string]any{}
		}
		if r.Method != http.MethodGet {
			if err := scope.setTags(tx, next, time.Now()); err != nil {
				return err
			}
		}
		armcore.WriteJSON(w, http.StatusOK, map[string]any{
			"id": scope.id + tagsDefaultSuffix, "name": "default", "type": "Microsoft.Resources/tags",
			"properties": map[string]any{"tags": next},
		})
		return nil
	})
}

// tagScope is the scope a tags resource names: a stored record, or a
// subscription (rec nil, tagsRec its tags record if any).
type tagScope struct {
	id      string
	rec     *store.Record
	tagsRec *store.Record
}

func (tg tags) scope(tx armcore.Tx, t armpath.Target) (*tagScope, error) {
	pt, ok := armpath.Parse(t.Parent)
	if ok && pt.Kind == armpath.Subscription {
		if !tx.KnowsSubscription(pt.Sub) {
			return nil, armcore.SubscriptionNotFound(pt.Sub)
		}
		return &tagScope{id: pt.ID, tagsRec: tx.Live(armpath.Key(t.ID))}, nil
	}
	if !ok || pt.Kind != armpath.Resource {
		return nil, armcore.Errorf(http.StatusBadRequest, "InvalidScope", "The scope '%s' cannot have tags.", t.Parent)
	}
	if err := tx.Ancestors(pt, false); err != nil {
		return nil, err
	}
	rec := tx.Live(armpath.Key(pt.ID))
	if rec == nil {
		if strings.EqualFold(pt.Type, armpath.TypeResourceGroup) {
			return nil, armcore.Errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", pt.Name)
		}
		return nil, armcore.NotFound(pt, pt.RG)
	}
	return &tagScope{id: rec.ID, rec: rec}, nil
}

func (s *tagScope) tags() map[string]any {
	var m struct {
		Tags       map[string]any `json:"tags"`
		Properties struct {
			Tags map[string]any `json:"tags"`
		} `json:"properties"`
	}
	switch {
	case s.rec != nil:
		_ = json.Unmarshal(s.rec.Body, &m)
		return nonNil(m.Tags)
	case s.tagsRec != nil:
		_ = json.Unmarshal(s.tagsRec.Body, &m)
		return nonNil(m.Properties.Tags)
	}
	return map[string]any{}
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// setTags stores the scope's new tags: on its record, with a new ETag, as
// ARM changes the resource; for a subscription, in its tags record.
func (s *tagScope) setTags(tx armcore.Tx, tags map[string]any, now time.Time) error {
	if s.rec == nil {
		id := s.id + tagsDefaultSuffix
		body, err := json.Marshal(map[string]any{"id": id, "name": "default", "type": "Microsoft.Resources/tags", "properties": map[string]any{"tags": tags}})
		if err != nil {
			return err
		}
		rec := &store.Record{ID: id, Type: "Microsoft.Resources/tags", Parent: armpath.Key(s.id), Created: now, Body: body}
		if s.tagsRec != nil {
			rec.Created = s.tagsRec.Created
		}
		return tx.Store().PutResource(armpath.Key(id), rec)
	}
	var body map[string]any
	if err := json.Unmarshal(s.rec.Body, &body); err != nil {
		return err
	}
	next := *s.rec
	next.ETag = fmt.Sprintf(`W/"%s"`, tx.NewUUID())
	body["tags"] = tags
	body["etag"] = next.ETag
	if sd, ok := body["systemData"].(map[string]any); ok {
		sd["lastModifiedAt"] = now.UTC().Format(time.RFC3339Nano)
	}
	var err error
	if next.Body, err = json.Marshal(body); err != nil {
		return err
	}
	return tx.Store().PutResource(armpath.Key(s.rec.ID), &next)
}

// requestTags are the tags a TagsResource body names.
func requestTags(req map[string]any) map[string]any {
	props, _ := req["properties"].(map[string]any)
	tags, _ := props["tags"].(map[string]any)
	return nonNil(tags)
}

// patchTags applies a TagsPatchResource: Merge adds or replaces the named
// tags, Replace replaces them all, Delete removes the named ones (those
// whose value matches, when a value is given).
func patchTags(cur, req map[string]any) (map[string]any, error) {
	op, _ := req["operation"].(string)
	given := requestTags(req)
	next := map[string]any{}
	switch strings.ToLower(op) {
	case "merge":
		for k, v := range cur {
			next[k] = v
		}
		for k, v := range given {
			for old := range next {
				if strings.EqualFold(old, k) {
					delete(next, old) // tag names are case-insensitive
				}
			}
			next[k] = v
		}
	case "replace":
		next = given
	case "delete":
		for k, v := range cur {
			drop := false
			for gk, gv := range given {
				if strings.EqualFold(gk, k) && (gv == "" || gv == v) {
					drop = true
				}
			}
			if !drop {
				next[k] = v
			}
		}
	default:
		return nil, armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The tags patch operation '%s' is not one of Merge, Replace or Delete.", op)
	}
	return next, nil
}
