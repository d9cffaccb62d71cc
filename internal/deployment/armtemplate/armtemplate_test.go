package armtemplate

import "testing"

// TestEscapedLiteralsReadBack: every literal deployment writes reads back,
// as the emulator reads it, as the same literal and never as an expression.
func TestEscapedLiteralsReadBack(t *testing.T) {
	for _, s := range []string{"", "a", "[", "]", "[]", "[a]", "[[a]", "[[[a]]", "a[b]", "[a] b", "[concat('a', 'b')]"} {
		e := Escape(s)
		if IsExpression(e) {
			t.Errorf("Escape(%q) = %q, an expression", s, e)
		}
		if got := Unescape(e); got != s {
			t.Errorf("Unescape(Escape(%q)) = %q", s, got)
		}
	}
	for _, s := range []string{"[a]", "[concat('a', 'b')]", "[]"} {
		if !IsExpression(s) {
			t.Errorf("IsExpression(%q) = false", s)
		}
	}
}
