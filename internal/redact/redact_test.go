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

// TestShownValuesAreNeverRedacted: a secret value that the output also shows
// as a name, an ID or inside a URL is not redacted anywhere, so that names
// and IDs stay whole; other secrets still are, and Hides tells them apart.
func TestShownValuesAreNeverRedacted(t *testing.T) {
	const (
		group    = "asodemo-rg"
		sub      = "8f6b6269-84f2-4d09-9e31-1127efcd1e40"
		host     = "www.contoso.com"
		password = "hunter2-is-weak"
	)
	id := "/subscriptions/" + sub + "/resourceGroups/" + group
	text := "PUT " + id + ": InvalidParameter: password " + password + " for http://" + host + " is weak"
	want := "PUT " + id + ": InvalidParameter: password " + Text + " for http://" + host + " is weak"
	for name, register := range map[string]func(s *Set){
		"shown first":  func(s *Set) { s.Show(id, "http://"+host+"/api"); s.Add(group, sub, host, password) },
		"secret first": func(s *Set) { s.Add(group, sub, host, password); s.Show(id, "http://"+host+"/api") },
	} {
		t.Run(name, func(t *testing.T) {
			var s Set
			register(&s)
			if got := s.String(text); got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
			for v, hidden := range map[string]bool{group: false, sub: false, host: false, password: true, "abc": false} {
				if s.Hides(v) != hidden {
					t.Errorf("Hides(%q) = %v, want %v", v, !hidden, hidden)
				}
			}
			var out bytes.Buffer
			w := s.Writer(&out)
			w.Write([]byte(text))
			w.Flush()
			if out.String() != want {
				t.Errorf("Writer: got %q", out.String())
			}
		})
	}
}

// TestShownLineOfASecret: a multi-line secret one of whose lines is shown
// keeps its other lines hidden.
func TestShownLineOfASecret(t *testing.T) {
	var s Set
	s.Add("-----BEGIN KEY-----\nMIIEvQIBADANBg\n-----END KEY-----")
	s.Show("-----BEGIN KEY-----")
	if got := s.String("key: -----BEGIN KEY----- MIIEvQIBADANBg"); got != "key: -----BEGIN KEY----- "+Text {
		t.Errorf("got %q", got)
	}
}
