// Package redact removes the secret values a run knows of from text before it
// is printed or saved: an ARM error can echo the request body that carried a
// password, and a debug log or an event can carry the error. A Set holds the
// values; its Writer redacts a stream as it passes, even when a value is
// split across writes.
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

// Set is the secret values of a run. The zero Set is empty and ready to use;
// it is safe for concurrent use.
type Set struct {
	mu       sync.RWMutex
	patterns map[string]bool
	replacer *strings.Replacer
}

// Add registers secret values, in every form they take in text (see variants)
// and each line of a multi-line value.
func (s *Set) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.patterns == nil {
		s.patterns = map[string]bool{}
	}
	changed := false
	for _, v := range values {
		for _, p := range variants(v) {
			if len(p) >= MinLength && !s.patterns[p] {
				s.patterns[p] = true
				changed = true
			}
		}
	}
	if !changed {
		return
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
	s.replacer = strings.NewReplacer(pairs...)
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
	if strings.ContainsAny(v, "\r\n") {
		for _, line := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' }) {
			out = append(out, strings.TrimSpace(line))
		}
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

// String returns s with every secret value replaced by Text.
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
