package planfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/redact"
)

// maxPlanBytes bounds a saved plan read back: far more than the plan of
// thousands of resources.
const maxPlanBytes = 256 << 20

// describeRead names the file in an error reading it: loader.ReadFile's
// refusals do not.
func describeRead(path string, err error) error {
	var refused *loader.InputError
	if errors.As(err, &refused) {
		return fmt.Errorf("%s: %s", path, refused.Reason)
	}
	return err
}

// checkSavedContent refuses a saved plan whose content azk could not have
// written, whatever its digest says (the digest is unkeyed: anyone can
// recompute it): an ARM ID that does not parse, an identity redacted on
// saving (a secret's value inside a name: the plan no longer says what it
// acts on), an unmanaged entry that is no ARM ID within the plan's
// resource groups or below the resource it names (show would print
// whatever the file says).
func checkSavedContent(p *planner.Plan) error {
	groups := map[string]bool{}
	for _, r := range p.Resources {
		for field, v := range map[string]string{"address": r.Address, "armId": r.ARMID, "armType": r.ARMType, "apiVersion": r.APIVersion} {
			if strings.Contains(v, redact.Text) {
				return fmt.Errorf("%s: its %s holds %s: a secret's value is part of it, so the plan cannot say what it acts on", r.Address, field, redact.Text)
			}
		}
		if r.ARMID == "" {
			if r.Writes() && r.Reason != planner.ReasonNameAfterApply {
				return fmt.Errorf("%s: a write without an ARM ID, yet its name is not one known only after apply", r.Address)
			}
			continue
		}
		if _, err := armid.Parse(r.ARMID); err != nil {
			return fmt.Errorf("%s: %w", r.Address, err)
		}
		if rg := armid.ResourceGroupOf(r.ARMID); rg != "" {
			groups[strings.ToLower(rg)] = true
		}
	}
	for _, id := range p.Unmanaged {
		if _, err := armid.Parse(id); err != nil {
			return fmt.Errorf("unmanaged: %w", err)
		}
		if rg := armid.ResourceGroupOf(id); !groups[strings.ToLower(rg)] || strings.EqualFold(rg, id) {
			return fmt.Errorf("unmanaged: %s is not in a resource group of the plan's resources", id)
		}
	}
	return checkUnmanagedChildren(p)
}

// checkUnmanagedChildren refuses an unmanaged child that is no ARM ID below
// the resource of the plan it names as its parent.
func checkUnmanagedChildren(p *planner.Plan) error {
	parents := map[string]string{} // address -> lower-cased ARM ID
	for _, r := range p.Resources {
		parents[r.Address] = strings.ToLower(r.ARMID)
	}
	for _, c := range p.UnmanagedChildren {
		if _, err := armid.Parse(c.ID); err != nil {
			return fmt.Errorf("unmanagedChildren: %w", err)
		}
		parent, ok := parents[c.Parent]
		if !ok || parent == "" || parent != strings.ToLower(c.ParentID) || !strings.HasPrefix(strings.ToLower(c.ID), parent+"/") {
			return fmt.Errorf("unmanagedChildren: %s is not below the plan's resource %s", c.ID, c.Parent)
		}
	}
	return nil
}

// looksLikePlan reports whether data starts as a saved plan does: a JSON
// object whose top-level keys, as far as they can be read, include one
// only a saved plan has. A plan cut short still does; a manifest in JSON
// (apiVersion, kind, ...) never does.
func looksLikePlan(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		if name, _ := key.(string); name == "formatVersion" || name == planDigestKey {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
}
