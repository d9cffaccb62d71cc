package planner

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/azkcli/azk/internal/convert"
)

// SensitiveDigest stands for a secret in a plan read from a file: "sha256:"
// and the hex digest of the plan's SecretSalt and the value. It prints as
// convert.SensitiveText.
type SensitiveDigest string

// MarshalJSON hides the digest as well: only saved plans carry it.
func (SensitiveDigest) MarshalJSON() ([]byte, error) { return json.Marshal(convert.SensitiveText) }

// In a saved plan's desired bodies, secrets and unknown values are objects
// with one of these keys, so that Load can tell them from ordinary values.
const (
	savedSensitiveKey = "$sensitive"
	savedUnknownKey   = "$unknown"
)

// Save writes p to path for a later `azk apply PLANFILE` or `azk show`:
// every decision, the desired bodies with each secret replaced by a salted
// SHA-256 digest (never the value), and the fingerprint of each read
// resource. The file is written whole or not at all, readable by its owner only.
func Save(path string, p *Plan) error {
	if p.Drift {
		return fmt.Errorf("a drift report cannot be saved as a plan: run azk plan without --drift")
	}
	out := *p
	if out.SecretSalt == "" {
		salt := make([]byte, 16)
		if _, err := rand.Read(salt); err != nil {
			return err
		}
		out.SecretSalt = hex.EncodeToString(salt)
	}
	out.Resources = make([]*Resource, len(p.Resources))
	for i, r := range p.Resources {
		c := *r
		c.Desired, _ = sealed(r.Desired, out.SecretSalt).(map[string]any)
		out.Resources[i] = &c
	}
	data, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Load reads a plan written by Save. Resources have no Node or Request: a
// saved plan is applied by resolving its inputs again and checking Stale.
func Load(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var version struct {
		FormatVersion int `json:"formatVersion"`
	}
	if err := json.Unmarshal(data, &version); err != nil {
		return nil, fmt.Errorf("%s: not a saved plan: %w", path, err)
	}
	if version.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("%s: plan format version %d, this azk reads version %d: make the plan again", path, version.FormatVersion, FormatVersion)
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, r := range p.Resources {
		if r == nil {
			return nil, fmt.Errorf("%s: a resource entry is null", path)
		}
		r.Desired, _ = unsealed(r.Desired).(map[string]any)
	}
	return &p, nil
}

// sealed copies v with secrets as salted digests and unknowns as markers.
func sealed(v any, salt string) any {
	switch t := v.(type) {
	case convert.Sensitive:
		return map[string]any{savedSensitiveKey: string(secretDigest(t, salt))}
	case SensitiveDigest:
		return map[string]any{savedSensitiveKey: string(t)}
	case convert.Unknown:
		return map[string]any{savedUnknownKey: t.Reason}
	case map[string]any:
		if t == nil {
			return nil
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = sealed(e, salt)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = sealed(e, salt)
		}
		return out
	}
	return v
}

func unsealed(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 1 {
			if d, ok := t[savedSensitiveKey].(string); ok {
				return SensitiveDigest(d)
			}
			if reason, ok := t[savedUnknownKey].(string); ok {
				return convert.Unknown{Reason: reason}
			}
		}
		for k, e := range t {
			t[k] = unsealed(e)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = unsealed(e)
		}
		return t
	}
	return v
}

func secretDigest(s convert.Sensitive, salt string) SensitiveDigest {
	value, _ := convert.RevealSecrets(s).(string)
	sum := sha256.Sum256([]byte(salt + "\x00" + value))
	return SensitiveDigest("sha256:" + hex.EncodeToString(sum[:]))
}

// Stale lists what moved between a saved plan and a fresh plan of the same
// inputs: the inputs digest, any read resource's fingerprint, a decision, or a
// desired body (secrets compared by their salted digests). Empty means the
// saved plan still describes what applying would do. The context is accepted
// for callers that make the fresh plan under one; Stale itself does not read Azure.
func Stale(_ context.Context, saved, fresh *Plan) []string {
	var moved []string
	if saved.Subscription != fresh.Subscription {
		moved = append(moved, fmt.Sprintf("subscription: the plan is for %s, now %s", saved.Subscription, fresh.Subscription))
	}
	if saved.InputsDigest != fresh.InputsDigest {
		moved = append(moved, "the manifests changed since the plan was made")
	}
	byAddress := map[string]*Resource{}
	for _, r := range fresh.Resources {
		byAddress[r.Address] = r
	}
	seen := map[string]bool{}
	for _, s := range saved.Resources {
		seen[s.Address] = true
		f := byAddress[s.Address]
		switch {
		case f == nil:
			moved = append(moved, s.Address+": no longer in the inputs")
			continue
		case s.Exists != f.Exists && f.Exists:
			moved = append(moved, s.Address+": now exists in Azure")
		case s.Exists != f.Exists:
			moved = append(moved, s.Address+": no longer exists in Azure")
		case s.Fingerprint != f.Fingerprint:
			moved = append(moved, s.Address+": changed in Azure since the plan was made")
		}
		if s.Action != f.Action {
			moved = append(moved, fmt.Sprintf("%s: was %s, now %s", s.Address, s.Action, f.Action))
		}
		if !reflect.DeepEqual(roundTrip(sealed(s.Desired, saved.SecretSalt)), roundTrip(sealed(f.Desired, saved.SecretSalt))) {
			moved = append(moved, s.Address+": the body to send changed (a secret, or a value read from Azure)")
		}
	}
	for _, f := range fresh.Resources {
		if !seen[f.Address] {
			moved = append(moved, f.Address+": new in the inputs")
		}
	}
	return moved
}

// roundTrip gives a value the types JSON decoding gives it (numbers as
// float64), so that in-memory and loaded bodies compare.
func roundTrip(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
