package redact

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
)

// TestURLEscapedSecretsAreRedacted: a base64 key (+ / =) quoted in a URL,
// query-escaped (a SAS signature, a form) or path-escaped (a path segment),
// is redacted in that form too, by String and by a Writer fed a byte at a
// time; the rest of the URL stays.
func TestURLEscapedSecretsAreRedacted(t *testing.T) {
	const key = "q9X+Lm/Zt0Rw+8Ab/Cd=="
	query, path := url.QueryEscape(key), url.PathEscape(key)
	if query == key || path == key || query == path {
		t.Fatalf("the key escapes to %q and %q: the test proves nothing", query, path)
	}
	for _, tc := range []struct{ text, want string }{
		{"GET https://acct.blob.core.windows.net/c?sig=" + query + "&sv=2021-08-06: 403",
			"GET https://acct.blob.core.windows.net/c?sig=" + Text + "&sv=2021-08-06: 403"},
		{"POST " + url.Values{"key": {key}, "x": {"1"}}.Encode(),
			"POST key=" + Text + "&x=1"},
		{"PUT /vaults/v/secrets/" + path + "/versions: 400",
			"PUT /vaults/v/secrets/" + Text + "/versions: 400"},
	} {
		var s Set
		s.Add(key)
		if got := s.String(tc.text); got != tc.want {
			t.Errorf("String:\n got  %q\n want %q", got, tc.want)
		}
		var out bytes.Buffer
		w := s.Writer(&out)
		for i := range len(tc.text) {
			_, _ = w.Write([]byte{tc.text[i]})
		}
		_ = w.Flush()
		if out.String() != tc.want {
			t.Errorf("Writer:\n got  %q\n want %q", out.String(), tc.want)
		}
		for _, form := range []string{key, query, path, "q9X%2BLm", "Zt0Rw"} {
			if strings.Contains(out.String(), form) {
				t.Errorf("the Writer let %q through: %q", form, out.String())
			}
		}
	}
}
