package providers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// Management locks (Microsoft.Authorization/locks), stored through ARM's
// own API at any scope like every extension resource, and enforced as ARM
// enforces them whether or not the client asked a pre-flight: a ReadOnly
// lock at or above a resource refuses its PUT, PATCH and DELETE and the POST
// actions on it (listKeys included, which ARM counts as a write); a
// CanNotDelete lock at or above refuses its DELETE; a resource group's
// DELETE is refused while anything in it is locked. A lock never blocks
// the locks themselves, or the lock could not be removed. The refusal is
// 409 ScopeLocked, naming the scope and the locked scopes, as ARM words it.

const typeLocks = "Microsoft.Authorization/locks"

// Lock levels, as ARM spells them.
const (
	LockCanNotDelete = "CanNotDelete"
	LockReadOnly     = "ReadOnly"
)

type locks struct{ c *armcore.Core }

// lock is a stored management lock.
type lock struct {
	id, scope, level string
}

func storedLocks(tx armcore.Tx) []lock {
	var out []lock
	for k, rec := range tx.Store().OfType(typeLocks) {
		if tx.Live(k) == nil {
			continue
		}
		var b struct {
			Properties struct {
				Level string `json:"level"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(rec.Body, &b)
		out = append(out, lock{id: rec.ID, scope: scopeOfExtension(rec.ID, typeLocks), level: b.Properties.Level})
	}
	return out
}

// scopeOfExtension is the scope an extension resource of type typ is at.
func scopeOfExtension(id, typ string) string {
	i := strings.LastIndex(strings.ToLower(id), "/providers/"+strings.ToLower(typ)+"/")
	return id[:max(i, 0)]
}

// Route lists the locks at a scope as ARM does: those at it and below it
// (a subscription's list holds every lock in the subscription, each with
// its scope in its ID), or with $filter=atScope() those at it and above.
func (l locks) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	if t.Kind != armpath.Collection || r.Method != http.MethodGet || !strings.EqualFold(t.Type, typeLocks) {
		return false, nil
	}
	keep := func(lk lock) bool { return covers(t.Parent, lk.scope) }
	switch filter := r.URL.Query().Get("$filter"); {
	case atScopeFilter.MatchString(filter):
		keep = func(lk lock) bool { return covers(lk.scope, t.Parent) }
	case filter != "":
		return true, armcore.Errorf(http.StatusBadRequest, "InvalidFilter", "The filter '%s' is not supported; use atScope().", filter)
	}
	items := []json.RawMessage{}
	err := l.c.Read(func(tx armcore.Tx) error {
		if err := tx.Ancestors(t, false); err != nil {
			return err
		}
		found := storedLocks(tx)
		sort.Slice(found, func(i, j int) bool { return found[i].id < found[j].id })
		for _, lk := range found {
			if keep(lk) {
				items = append(items, armcore.View(tx.Live(armpath.Key(lk.id)), time.Now()))
			}
		}
		return nil
	})
	if err != nil {
		return true, err
	}
	armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items})
	return true, nil
}

// FillBody keeps a lock's body to what ARM answers for one: a lock has no
// location (the generic path gives a child its parent's) and no tags.
func (locks) FillBody(_ armcore.Tx, b *armcore.Body) {
	if !strings.EqualFold(b.Record.Type, typeLocks) {
		return
	}
	delete(b.Out, "location")
	delete(b.Out, "tags")
}

// Check refuses a request a lock forbids: 409 ScopeLocked.
func (l locks) Check(r *http.Request, t armpath.Target) error {
	action, scope := RequiredAction(r, t)
	if action == "" || strings.HasPrefix(strings.ToLower(action), strings.ToLower(typeLocks)+"/") {
		return nil
	}
	deleting := r.Method == http.MethodDelete
	var locked []string
	_ = l.c.Read(func(tx armcore.Tx) error {
		for _, lk := range storedLocks(tx) {
			above := covers(lk.scope, scope)
			within := deleting && strings.EqualFold(t.Type, armpath.TypeResourceGroup) && covers(scope, lk.scope)
			if (above && (deleting || lk.level == LockReadOnly)) || within {
				locked = append(locked, lk.scope)
			}
		}
		return nil
	})
	if len(locked) == 0 {
		return nil
	}
	sort.Strings(locked)
	locked = compactFold(locked)
	operation := "write"
	if deleting {
		operation = "delete"
	}
	return armcore.Errorf(http.StatusConflict, "ScopeLocked",
		"The scope '%s' cannot perform %s operation because following scope(s) are locked: %s. Please remove the lock and try again.",
		scope, operation, quoteAll(locked))
}

// compactFold drops the repeats of a sorted list, case-insensitively.
func compactFold(s []string) []string {
	var out []string
	for _, v := range s {
		if len(out) == 0 || !strings.EqualFold(out[len(out)-1], v) {
			out = append(out, v)
		}
	}
	return out
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("'%s'", v)
	}
	return strings.Join(q, ",")
}
