// Package redact scrubs the secret values a run knows of from free text that
// azk does not write itself: ARM's error messages (a resource provider can
// quote the request body that carried a password), the --debug log, and the
// errors and diagnostics that carry them.
//
// It is not how secrets are kept out of plans, bodies and IDs: there a secret
// is marked where it enters (convert.Sensitive) and prints as (sensitive).
// Text matching cannot tell a secret from a name that happens to be equal, so
// it is kept to the text azk cannot mark, and it never touches a value the
// output shows as it is: a Set knows those values (Show), and a secret equal
// to one of them, or inside one (a resource group's name in an ARM ID, a host
// in a URL), is not redacted at all (Hides reports it, so that azk can warn).
//
// A Set's Writer redacts a stream as it passes, even when a value is split
// across writes.
package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Text replaces every secret value.
const Text = "(redacted)"

// MinLength is the shortest value redacted. Shorter values are too common in
// ordinary text ("1", "yes") to be told apart from it; no Azure secret is that short.
const MinLength = 4

// Set is the secret values of a run and the values its output shows as they
// are. The zero Set is empty and ready to use; it is safe for concurrent use.
type Set struct {
	mu sync.RWMutex
	// sources are the secret values and the lines of multi-line ones, at
	// least MinLength long: true while hidden, false once found in shown.
	sources map[string]bool
	// shown is every shown value, each followed by a NUL, so that one
	// search finds a secret inside any of them.
	shown    strings.Builder
	patterns map[string]bool
	replacer *strings.Replacer
}

// Add registers secret values: text is redacted of each, in every form it
// takes there (see variants), unless the output shows it (see Show).
func (s *Set) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sources == nil {
		s.sources = map[string]bool{}
	}
	shown := s.shown.String()
	changed := false
	for _, v := range values {
		for _, src := range sources(v) {
			if _, seen := s.sources[src]; !seen {
				hidden := !strings.Contains(shown, src)
				s.sources[src] = hidden
				changed = changed || hidden
			}
		}
	}
	if changed {
		s.rebuild()
	}
}

// Show registers values the output shows as they are: names, locations,
// ARM IDs, URLs and every other plain value of the manifests. Text is never
// redacted of them: a secret equal to one, or inside one, is not redacted
// anywhere, since hiding it in one place while printing it in another hides
// nothing and garbles the names.
func (s *Set) Show(values ...string) {
	if len(values) == 0 {
		return
	}
	size := 0
	for _, v := range values {
		size += len(v) + 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.shown.Len()
	s.shown.Grow(size)
	for _, v := range values {
		s.shown.WriteString(v)
		s.shown.WriteByte(0)
	}
	added := s.shown.String()[start:]
	changed := false
	for src, hidden := range s.sources {
		if hidden && strings.Contains(added, src) {
			s.sources[src] = false
			changed = true
		}
	}
	if changed {
		s.rebuild()
	}
}

// Hides reports whether text is redacted of the secret value v: false when
// v is shorter than MinLength or the output shows it (see Show).
func (s *Set) Hides(v string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(v) < MinLength {
		return false
	}
	if hidden, ok := s.sources[v]; ok {
		return hidden
	}
	return !strings.Contains(s.shown.String(), v)
}

// rebuild makes the replacer of the hidden sources' variants; s.mu is held.
func (s *Set) rebuild() {
	s.patterns = map[string]bool{}
	for src, hidden := range s.sources {
		if !hidden {
			continue
		}
		for _, p := range variants(src) {
			if len(p) >= MinLength {
				s.patterns[p] = true
			}
		}
	}
	// Longer patterns first, so a value is never half-replaced by a shorter one inside it.
	all := make([]string, 0, len(s.patterns))
	for p := range s.patterns {
		all = append(all, p)
	}
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) || len(all[i]) == len(all[j]) && all[i] < all[j] })
	pairs := make([]string, 0, 2*len(all))
	for _, p := range all {
		pairs = append(pairs, p, Text)
	}
	s.replacer = nil
	if len(pairs) > 0 {
		s.replacer = strings.NewReplacer(pairs...)
	}
}

// sources are what of v is redacted: v, and each line of a multi-line value,
// those at least MinLength long.
func sources(v string) []string {
	var out []string
	if len(v) >= MinLength {
		out = append(out, v)
	}
	if strings.ContainsAny(v, "\r\n") {
		for _, line := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if line = strings.TrimSpace(line); len(line) >= MinLength {
				out = append(out, line)
			}
		}
	}
	return out
}

// variants are the forms v takes in text: as written, URL-escaped, and
// JSON-escaped once (a request body echoed in an error) or twice (that error
// in a JSON event), with and without HTML escaping.
func variants(v string) []string {
	out := []string{v, url.QueryEscape(v), url.PathEscape(v)}
	once := jsonEscaped(v)
	out = append(out, once...)
	for _, e := range once {
		out = append(out, jsonEscaped(e)...)
	}
	return out
}

func jsonEscaped(v string) []string {
	var out []string
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(v) == nil {
			quoted := strings.TrimSpace(b.String())
			out = append(out, quoted[1:len(quoted)-1])
		}
	}
	return out
}

// String returns text with every hidden secret value replaced by Text.
func (s *Set) String(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	r := s.replacer
	s.mu.RUnlock()
	if r == nil {
		return text
	}
	return r.Replace(text)
}

// Error returns err with its message redacted, or nil.
func (s *Set) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := s.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return redactedError(msg)
}

type redactedError string

func (e redactedError) Error() string { return string(e) }

// cut is where text may be split: everything before it can be redacted and
// written, the rest might be the beginning of a secret value, or a value that
// spans the cut, and must wait for more text.
func (s *Set) cut(text []byte) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := len(text)
	for p := range s.patterns {
		for i := max(0, len(text)-len(p)+1); i < c; i++ {
			if bytes.HasPrefix([]byte(p), text[i:]) {
				c = i
				break
			}
		}
	}
	for moved := true; moved; {
		moved = false
		for p := range s.patterns {
			lo := max(0, c-len(p)+1)
			if i := bytes.Index(text[lo:min(len(text), c+len(p)-1)], []byte(p)); i >= 0 && lo+i < c {
				c, moved = lo+i, true
			}
		}
	}
	return c
}

// Writer redacts what is written to it before passing it on. Text that may
// be the beginning of a secret value is held until the next write shows it
// is not, or until Flush.
type Writer struct {
	set  *Set
	mu   sync.Mutex
	next io.Writer
	held []byte
}

// Writer wraps w.
func (s *Set) Writer(w io.Writer) *Writer { return &Writer{set: s, next: w} }

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	text := append(w.held, p...)
	c := w.set.cut(text)
	w.held = append([]byte(nil), text[c:]...)
	if _, err := io.WriteString(w.next, w.set.String(string(text[:c]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what was held back.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.held) == 0 {
		return nil
	}
	_, err := io.WriteString(w.next, w.set.String(string(w.held)))
	w.held = nil
	return err
}

// Unwrap is the writer redacted text goes to.
func (w *Writer) Unwrap() io.Writer { return w.next }

// Value returns v, a decoded JSON value that Azure returned, with each string
// (and map key) that holds a hidden secret value replaced whole by Text, and
// whether it replaced any. Replacing the whole string keeps a scrubbed value
// from passing as a real one; v itself is never modified, and returned as it
// is when nothing holds a secret.
func (s *Set) Value(v any) (any, bool) {
	if s == nil {
		return v, false
	}
	s.mu.RLock()
	r := s.replacer
	s.mu.RUnlock()
	if r == nil {
		return v, false
	}
	return scrub(r, v)
}

func scrub(r *strings.Replacer, v any) (any, bool) {
	switch t := v.(type) {
	case string:
		if r.Replace(t) != t {
			return Text, true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range t {
			ke, kc := k, false
			if r.Replace(k) != k {
				ke, kc = Text, true
			}
			se, ec := scrub(r, e)
			if !kc && !ec {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(t))
				for k2, e2 := range t {
					out[k2] = e2
				}
			}
			delete(out, k)
			out[ke] = se
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range t {
			if se, c := scrub(r, e); c {
				if out == nil {
					out = append([]any(nil), t...)
				}
				out[i] = se
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}
