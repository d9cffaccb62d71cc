package providers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/registry"
)

// Global names: the name check operations of extensions.NameChecks, each at
// its path and in its answer's shape, and checkNameAvailability on any
// other provider in the common shape. A name is taken when a resource of
// the type holds it in any subscription of the emulator (or a soft-deleted
// vault does), or when the admin API says another customer holds it
// (/_emulator/names); it is invalid when it breaks the naming rule the
// type's ASO kinds carry from the REST specs (azureName's pattern and
// length). A create whose name is taken elsewhere is refused, as ARM does.

type names struct {
	c     *armcore.Core
	seeds *Seeds
}

// Route answers the name checks.
func (n names) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) (bool, error) {
	if t.Kind == armpath.Resource && t.Parent == "" && strings.EqualFold(t.Type, "Microsoft.DocumentDB/databaseAccountNames") {
		if r.Method != http.MethodHead && r.Method != http.MethodGet {
			return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "databaseAccountNames answers HEAD.")
		}
		check, _ := extensions.NameCheckFor("Microsoft.DocumentDB/databaseAccounts")
		if n.taken(check, t.Name) {
			w.WriteHeader(http.StatusOK)
		} else {
			w.WriteHeader(http.StatusNotFound)
		}
		return true, nil
	}
	if t.Kind != armpath.Collection || r.Method != http.MethodPost || t.ParentIsResource && !strings.HasSuffix(strings.ToLower(t.Parent), "/locations/"+strings.ToLower(lastSegment(t.Parent))) {
		return false, nil
	}
	op := lastSegment(t.Type)
	ns := armpath.NamespaceOf(t.Type)
	checks := extensions.NameChecksAt(ns, op)
	if len(checks) == 0 {
		if !strings.EqualFold(op, "checkNameAvailability") {
			return false, nil
		}
		// A provider the table does not list: ARM's common shape.
		checks = []extensions.NameCheck{{Type: ns, Operation: op, Answer: extensions.AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"}}
	}
	return true, n.check(w, checks, body)
}

func lastSegment(s string) string { return s[strings.LastIndexByte(s, '/')+1:] }

func (n names) check(w http.ResponseWriter, checks []extensions.NameCheck, body []byte) error {
	req, err := armcore.DecodeObject(body)
	if err != nil {
		return err
	}
	check := checks[0]
	if typ, _ := req["type"].(string); typ != "" {
		for _, c := range checks {
			if strings.EqualFold(c.RequestType, typ) || strings.EqualFold(c.Type, typ) {
				check = c
			}
		}
		if !strings.Contains(check.Type, "/") && strings.Contains(typ, "/") {
			check.Type = typ // a provider the table does not list: the type asked about
		}
	}
	field := check.NameField
	if field == "" {
		field = "name"
	}
	name, _ := req[field].(string)
	if name == "" {
		return armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The request needs a '%s'.", field)
	}
	invalid := invalidName(check, name)
	taken := invalid == "" && n.taken(check, name)
	available := invalid == "" && !taken
	reason, message := "", ""
	switch {
	case invalid != "":
		reason, message = check.InvalidReason, invalid
	case taken:
		reason, message = check.TakenReason, fmt.Sprintf("The name '%s' is already in use.", name)
	}
	var answer map[string]any
	switch check.Answer {
	case extensions.AnswerEmpty:
		if available {
			w.WriteHeader(http.StatusOK)
			return nil
		}
		code := "NameNotAvailable"
		if invalid != "" {
			code = "InvalidName"
		}
		return armcore.Errorf(http.StatusConflict, code, "%s", message)
	case extensions.AnswerAvailable:
		answer = map[string]any{"name": name, "available": available}
	case extensions.AnswerSubdomain:
		answer = map[string]any{"subdomainName": name, "type": check.RequestType, "isSubdomainAvailable": available}
	case extensions.AnswerIsAvailiable:
		answer = map[string]any{"name": name, "isAvailiable": available}
	case extensions.AnswerNameAvailability:
		state := "Available"
		if !available {
			state = "Unavailable"
		}
		answer = map[string]any{"nameAvailability": state}
	default:
		answer = map[string]any{"nameAvailable": available}
	}
	if !available {
		if check.Answer == extensions.AnswerSubdomain {
			answer["reason"] = message
		} else {
			if reason != "" {
				answer["reason"] = reason
			}
			answer["message"] = message
		}
	}
	armcore.WriteJSON(w, http.StatusOK, answer)
	return nil
}

// taken reports whether name is held by a resource of check's type
// anywhere in the emulator, a soft-deleted vault, or another customer.
func (n names) taken(check extensions.NameCheck, name string) bool {
	if n.seeds.isTaken(check.Type, name) {
		return true
	}
	found := false
	_ = n.c.Read(func(tx armcore.Tx) error {
		found = holder(tx, check, name, "") != nil
		if !found && isVault(check.Type) {
			for _, rec := range tx.Store().DeletedRecords() {
				if strings.EqualFold(lastSegment(rec.ID), name) {
					found = true
				}
			}
		}
		return nil
	})
	return found
}

// holder is a live resource other than except holding name for check.
func holder(tx armcore.Tx, check extensions.NameCheck, name, except string) *store.Record {
	typed := strings.Contains(check.Type, "/")
	candidates := tx.Store().OfNamespace(check.Type)
	if typed {
		candidates = tx.Store().OfType(check.Type)
	}
	for k, rec := range candidates {
		if k == armpath.Key(except) || tx.Live(k) == nil {
			continue
		}
		held := lastSegment(rec.ID)
		if len(check.FromBody) > 0 {
			var body map[string]any
			_ = json.Unmarshal(rec.Body, &body)
			v, _ := armjson.Lookup(body, check.FromBody)
			held, _ = v.(string)
		}
		if strings.EqualFold(held, name) {
			return rec
		}
	}
	return nil
}

// invalidName says why name breaks the naming rule of check's type: its
// published rule (namerules.go), else the REST specs' as given to the
// type's ASO kinds (azureName's pattern and length); "" when it keeps it or
// no rule is known.
func invalidName(check extensions.NameCheck, name string) string {
	if len(check.FromBody) > 0 {
		return ""
	}
	if rule, ok := nameRuleFor(check.Type); ok {
		return rule.breaks(name)
	}
	reg := registry.Default()
	for _, gvk := range reg.KindsOfARMType(check.Type) {
		k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if !ok || k.Spec == nil {
			continue
		}
		f := k.Spec.Child("azureName")
		if f == nil {
			continue
		}
		if f.MinLength != nil && len(name) < *f.MinLength || f.MaxLength != nil && len(name) > *f.MaxLength {
			return fmt.Sprintf("The name '%s' must be between %s and %s characters long.", name, bound(f.MinLength), bound(f.MaxLength))
		}
		if f.Pattern != "" {
			if re, err := regexp.Compile(f.Pattern); err == nil && !re.MatchString(name) {
				return fmt.Sprintf("The name '%s' is invalid: it must match %s.", name, f.Pattern)
			}
		}
		return ""
	}
	return ""
}

func bound(n *int) string {
	if n == nil {
		return "any"
	}
	return fmt.Sprint(*n)
}

// ValidateWrite refuses the create of a resource whose global name another
// resource holds (elsewhere in the emulator, or outside it).
func (n names) ValidateWrite(tx armcore.Tx, _ *http.Request, t armpath.Target, body map[string]any, exists bool) error {
	check, ok := extensions.NameCheckFor(t.Type)
	if !ok || exists {
		return nil
	}
	name := t.Name
	if len(check.FromBody) > 0 {
		v, _ := armjson.Lookup(body, check.FromBody)
		if name, _ = v.(string); name == "" {
			return nil
		}
	}
	if holder(tx, check, name, t.ID) == nil && !n.seeds.isTaken(check.Type, name) {
		return nil
	}
	code := "NameNotAvailable"
	switch strings.ToLower(t.Type) {
	case "microsoft.storage/storageaccounts":
		code = "StorageAccountAlreadyTaken"
	case "microsoft.keyvault/vaults":
		code = "VaultAlreadyExists"
	}
	return armcore.Errorf(http.StatusConflict, code, "The name '%s' of %s is already in use by another resource.", name, t.Type)
}
