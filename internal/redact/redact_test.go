package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestStringRedactsEveryForm(t *testing.T) {
	var s Set
	secret := `p<a"ss&w0rd`
	s.Add(secret, "abc", "-----BEGIN KEY-----\nMIIEvQIBADANBg\n-----END KEY-----")
	echoed, _ := json.Marshal(map[string]string{"password": secret})
	for _, text := range []string{
		"ARM said: " + secret,
		"ARM said: " + string(echoed),
		`ARM said: {"password":"p<a\"ss&w0rd"}`,
		"key line MIIEvQIBADANBg leaked",
	} {
		got := s.String(text)
		if strings.Contains(got, "ss&w0rd") || strings.Contains(got, "w0rd") || strings.Contains(got, "MIIEvQIBADANBg") || !strings.Contains(got, Text) {
			t.Errorf("%q -> %q", text, got)
		}
	}
	if got := s.String("abc is too short to redact"); got != "abc is too short to redact" {
		t.Errorf("a value shorter than MinLength was redacted: %q", got)
	}
}

// TestWriterRedactsValuesSplitAcrossWrites: a value written in pieces, or one
// overlapping itself, never reaches the underlying writer.
func TestWriterRedactsValuesSplitAcrossWrites(t *testing.T) {
	for _, secret := range []string{"hunter22", "abab", "aaaa"} {
		var s Set
		s.Add(secret)
		var out bytes.Buffer
		w := s.Writer(&out)
		text := "x " + secret + " y " + secret[:2] + "-" + secret + secret + "\nprompt: "
		for i := 0; i < len(text); i++ {
			w.Write([]byte{text[i]})
			if strings.Contains(out.String(), secret) {
				t.Fatalf("%q leaked after byte %d: %q", secret, i, out.String())
			}
		}
		if !strings.HasSuffix(out.String(), "prompt: ") {
			t.Errorf("%q: text that is no secret is held back: %q", secret, out.String())
		}
		w.Flush()
		if got, want := out.String(), strings.ReplaceAll(text, secret, Text); got != want {
			t.Errorf("%q: got %q, want %q", secret, got, want)
		}
	}
}
