// Package planfile keeps a plan: the file azk plan -out writes and azk apply
// PLANFILE reads, each secret sealed as a salted digest, the whole file
// sealed by a digest of its own, and the check that the plan still
// stands (Stale) before it is applied.
package planfile

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"

	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
)

// In a saved plan's desired bodies, secrets and unknown values are objects
// with one of these keys, so that Load can tell them from ordinary values.
const (
	savedSensitiveKey = "$sensitive"
	savedUnknownKey   = "$unknown"
	// savedSensitiveUnknownKey marks a secret another resource exports:
	// unknown when planned, and never saved once fetched.
	savedSensitiveUnknownKey = "$sensitiveUnknown"
)

// planDigestKey holds, in a saved plan, the SHA-256 of everything else in
// the file (its JSON with keys sorted), so that an edit is refused before
// anything is applied.
const planDigestKey = "planDigest"

// Save writes p to path for a later `azk apply PLANFILE` or `azk show`:
// every decision, the desired bodies with each secret replaced by a salted
// argon2id digest (never the value) and each secret another resource
// exports by a marker (not even its digest), the fingerprint of each read
// resource, and a digest of the whole file. Nothing else is rewritten: names
// and IDs are saved as they are, and ARM's messages were scrubbed of secrets
// as the client read them (arm.Options.Redact). The file is written whole or
// not at all, readable by its owner only.
func Save(path string, p *planner.Plan) error {
	if p.Drift {
		return fmt.Errorf("a drift report cannot be saved as a plan: run azk plan without --drift")
	}
	salt := p.SecretSalt
	if salt == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		salt = hex.EncodeToString(b)
	}
	tree, err := jsonTree(sealedPlan(p, salt))
	if err != nil {
		return err
	}
	tree[planDigestKey] = digestOf(tree)
	data, err := json.MarshalIndent(tree, "", "  ")
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

// sealedPlan is p as saved: secrets as digests under salt, unknowns as markers.
func sealedPlan(p *planner.Plan, salt string) *planner.Plan {
	out := *p
	out.SecretSalt = salt
	out.Resources = make([]*planner.Resource, len(p.Resources))
	for i, r := range p.Resources {
		c := *r
		c.Desired, _ = sealed(r.Desired, salt).(map[string]any)
		out.Resources[i] = &c
	}
	return &out
}

// jsonTree is v as generic JSON (numbers kept as written), the form the
// digest and the staleness check work on, so that they cover every field
// the plan has, including fields added later.
func jsonTree(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeTree(data)
}

func decodeTree(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	if tree == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	return tree, nil
}

// digestOf is the SHA-256 of tree's JSON without the digest itself.
func digestOf(tree map[string]any) string {
	rest := make(map[string]any, len(tree))
	for k, v := range tree {
		if k != planDigestKey {
			rest[k] = v
		}
	}
	data, _ := json.Marshal(rest) // map keys sorted: one text per tree
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Load reads a plan written by Save. It refuses a file whose digest does not
// match (edited after azk wrote it) and one that lists a resource or an ARM
// ID twice. Resources have no Node or Request: a saved plan is applied by
// resolving its inputs again and checking Stale.
func Load(path string) (*planner.Plan, error) {
	data, err := loader.ReadFile(path, maxPlanBytes)
	if err != nil {
		return nil, describeRead(path, err)
	}
	return decodeSaved(path, data)
}

// LoadIfSaved is Load for a file that may hold manifests instead: nil, and
// no error, when it is not a plan Save wrote (or cannot be read). A file
// that starts as a plan but does not decode (cut short) is an error.
func LoadIfSaved(path string) (*planner.Plan, error) {
	data, err := loader.ReadFile(path, maxPlanBytes)
	if err != nil {
		return nil, nil
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil && looksLikePlan(data) {
		return nil, fmt.Errorf("%s: a saved plan that cannot be read (%v): is it cut short? make the plan again", path, err)
	}
	if probe["formatVersion"] == nil || probe["resources"] == nil {
		return nil, nil
	}
	return decodeSaved(path, data)
}

// decodeSaved is Load of data read from path.
func decodeSaved(path string, data []byte) (*planner.Plan, error) {
	tree, err := decodeTree(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a saved plan: %w", path, err)
	}
	var version struct {
		FormatVersion int `json:"formatVersion"`
	}
	if err := json.Unmarshal(data, &version); err != nil {
		return nil, fmt.Errorf("%s: not a saved plan: %w", path, err)
	}
	if version.FormatVersion != planner.FormatVersion {
		return nil, fmt.Errorf("%s: plan format version %d, this azk reads version %d: make the plan again", path, version.FormatVersion, planner.FormatVersion)
	}
	if got, ok := tree[planDigestKey].(string); !ok || got != digestOf(tree) {
		return nil, fmt.Errorf("%s: the file was changed after azk wrote it (its digest does not match): nothing in it can be trusted; make the plan again", path)
	}
	var p planner.Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	addresses, ids := map[string]bool{}, map[string]bool{}
	for _, r := range p.Resources {
		if r == nil {
			return nil, fmt.Errorf("%s: a resource entry is null", path)
		}
		id := strings.ToLower(r.ARMID)
		if addresses[r.Address] || id != "" && ids[id] {
			return nil, fmt.Errorf("%s: %s (%s) is in the plan twice: make the plan again", path, r.Address, r.ARMID)
		}
		addresses[r.Address], ids[id] = true, true
		r.Desired, _ = unsealed(r.Desired).(map[string]any)
	}
	if err := checkSavedContent(&p); err != nil {
		return nil, fmt.Errorf("%s: %w: azk did not write this; make the plan again", path, err)
	}
	if p.Rules != nil {
		p.SetRules(p.Rules) // the policies' findings beside their resources again
	}
	return &p, nil
}

// sealed copies v with secrets as salted digests and unknowns as markers.
func sealed(v any, salt string) any {
	switch t := v.(type) {
	case convert.Sensitive:
		if t.Fetched() {
			return map[string]any{savedSensitiveUnknownKey: "a secret another resource exports, fetched from Azure"}
		}
		return map[string]any{savedSensitiveKey: string(secretDigest(t, salt))}
	case bodydiff.SensitiveDigest:
		return map[string]any{savedSensitiveKey: string(t)}
	case convert.Unknown:
		if t.Sensitive {
			return map[string]any{savedSensitiveUnknownKey: t.Reason}
		}
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
				return bodydiff.SensitiveDigest(d)
			}
			if reason, ok := t[savedUnknownKey].(string); ok {
				return convert.Unknown{Reason: reason}
			}
			if reason, ok := t[savedSensitiveUnknownKey].(string); ok {
				return convert.Unknown{Reason: reason, Sensitive: true}
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

// Secret digests are argon2id (RFC 9106) with OWASP's recommended cost: about
// 0.1 s and 46 MiB each, so that guessing a secret from a plan file costs
// that much per guess, and the plan's random salt keeps one table from
// serving two plans. A digest is what lets apply notice that a secret changed
// since the plan was reviewed.
const (
	argonTime    = 1
	argonMemory  = 46 * 1024 // KiB
	argonThreads = 1
)

// digests caches each value's digest per salt for the process: a fresh plan
// is compared with a saved one under the saved salt.
var digests sync.Map // sha256(salt, value) -> bodydiff.SensitiveDigest

func secretDigest(s convert.Sensitive, salt string) bodydiff.SensitiveDigest {
	value, _ := convert.RevealSecrets(s).(string)
	k := sha256.Sum256([]byte(salt + "\x00" + value))
	if d, ok := digests.Load(k); ok {
		return d.(bodydiff.SensitiveDigest)
	}
	key := argon2.IDKey([]byte(value), []byte(salt), argonTime, argonMemory, argonThreads, 32)
	d := bodydiff.SensitiveDigest(fmt.Sprintf("argon2id:v=%d,m=%d,t=%d,p=%d:%s", argon2.Version, argonMemory, argonTime, argonThreads, hex.EncodeToString(key)))
	digests.Store(k, d)
	return d
}

// Stale lists what moved between a saved plan and a fresh plan of the same
// inputs: the inputs digest, any read resource's fingerprint, a decision, or a
// desired body (secrets compared by their salted digests). Empty means the
// saved plan still describes what applying would do. The context is accepted
// for callers that make the fresh plan under one; Stale itself does not read Azure.
func Stale(_ context.Context, saved, fresh *planner.Plan) []string {
	var moved []string
	if saved.Subscription != fresh.Subscription {
		moved = append(moved, fmt.Sprintf("subscription: the plan is for %s, now %s", saved.Subscription, fresh.Subscription))
	}
	if saved.InputsDigest != fresh.InputsDigest {
		moved = append(moved, "the manifests changed since the plan was made")
	}
	byAddress := map[string]*planner.Resource{}
	for _, r := range fresh.Resources {
		byAddress[r.Address] = r
	}
	seen := map[string]bool{}
	for _, s := range saved.Resources {
		seen[s.Address] = true
		f := byAddress[s.Address]
		switch {
		case f == nil && s.Removed():
			// Gone from Azure since (back in the manifests would change the
			// inputs' digest): what deleting it was for, so nothing moved;
			// apply reports it already gone.
			continue
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
		switch {
		case seen[f.Address]:
		case fresh.Destroy:
			moved = append(moved, f.Address+": to "+string(f.Action)+" now, which the plan does not list (it exists in Azure now, or is new in the inputs)")
		default:
			moved = append(moved, f.Address+": new in the inputs")
		}
	}
	return append(moved, differences(saved, fresh)...)
}

// Fields of the saved form the checks above report, or that explain rather
// than decide (reasons, notes, the unmanaged lists), or that apply checks
// before it connects (the endpoint, see Endpoint.Mismatch): differences()
// skips them.
var (
	reportedPlanFields     = map[string]bool{"resources": true, "subscription": true, "inputsDigest": true, "unmanaged": true, "unmanagedChildren": true, "secretSalt": true, planDigestKey: true, "endpoint": true}
	reportedResourceFields = map[string]bool{"address": true, "exists": true, "fingerprint": true, "action": true, "desired": true, "reasons": true, "notes": true}
)

// differences compares every other field of the saved and the fresh plan in
// their saved form, generically, so that whatever apply acts on (ARM ID,
// api-version, policy, changes, fields added later) is what the file says.
func differences(saved, fresh *planner.Plan) []string {
	s, err1 := jsonTree(sealedPlan(saved, saved.SecretSalt))
	f, err2 := jsonTree(sealedPlan(fresh, saved.SecretSalt))
	if err1 != nil || err2 != nil {
		return []string{"the plan cannot be compared with the inputs"}
	}
	var moved []string
	for _, k := range unionKeys(s, f) {
		if !reportedPlanFields[k] && !reflect.DeepEqual(s[k], f[k]) {
			moved = append(moved, fmt.Sprintf("%s: the plan says one thing, applying would do another", k))
		}
	}
	freshByAddress := map[string]map[string]any{}
	for _, r := range asList(f["resources"]) {
		freshByAddress[fmt.Sprint(r["address"])] = r
	}
	for _, sr := range asList(s["resources"]) {
		addr := fmt.Sprint(sr["address"])
		fr := freshByAddress[addr]
		if fr == nil {
			continue // reported above
		}
		for _, k := range unionKeys(sr, fr) {
			if !reportedResourceFields[k] && !reflect.DeepEqual(sr[k], fr[k]) {
				moved = append(moved, fmt.Sprintf("%s: %s in the plan differs from what applying would do", addr, k))
			}
		}
	}
	return moved
}

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func asList(v any) []map[string]any {
	items, _ := v.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
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
