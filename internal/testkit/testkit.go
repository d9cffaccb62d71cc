// Package testkit holds what tests need to fail cleanly, with a message
// naming what went wrong, instead of panicking (which aborts every other
// test of the package) or hanging until Go's test timeout kills them all.
package testkit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Timeout bounds one test's calls: far more than any of them needs, far
// less than Go's 10-minute package timeout.
const Timeout = 90 * time.Second

// margin is kept before the package's own deadline, so that a test that
// runs out of time still reports what it waited for.
const margin = 20 * time.Second

// Context is cancelled when the test ends and, at the latest, after Timeout
// or shortly before the package's -timeout, whichever comes first.
func Context(t testing.TB) context.Context {
	return Bound(t, context.Background())
}

// Bound is parent with Context's deadline.
func Bound(t testing.TB, parent context.Context) context.Context {
	deadline := time.Now().Add(Timeout)
	// A test knows the package's deadline; a benchmark does not.
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, ok := dt.Deadline(); ok && d.Add(-margin).Before(deadline) {
			deadline = d.Add(-margin)
		}
	}
	ctx, cancel := context.WithDeadline(parent, deadline)
	t.Cleanup(cancel)
	return ctx
}

// TimedOut reports, for a context from Context, that it ran out of time
// rather than being cancelled by the test: what it bounded waited for
// something that never came.
func TimedOut(ctx context.Context) bool {
	return ctx.Err() == context.DeadlineExceeded
}

// At reads the value at path inside v, JSON decoded into any: a string
// element is an object key, an int a list index. When the path is not there,
// or the value is not a T, the test fails with the path and what was found.
func At[T any](t testing.TB, v any, path ...any) T {
	t.Helper()
	cur := v
	for i, p := range path {
		var next any
		var ok bool
		switch k := p.(type) {
		case string:
			if m, isMap := cur.(map[string]any); isMap {
				next, ok = m[k]
			}
		case int:
			if l, isList := cur.([]any); isList && k >= 0 && k < len(l) {
				next, ok = l[k], true
			}
		default:
			t.Fatalf("testkit.At: path element %v is a %T, not a key or an index", p, p)
		}
		if !ok {
			t.Fatalf("%s is not there (%s is %s)", pathText(path[:i+1]), pathText(path[:i]), brief(cur))
		}
		cur = next
	}
	out, ok := cur.(T)
	if !ok {
		t.Fatalf("%s is %s, not a %T", pathText(path), brief(cur), out)
	}
	return out
}

func pathText(path []any) string {
	if len(path) == 0 {
		return "the value"
	}
	var b strings.Builder
	for _, p := range path {
		if i, ok := p.(int); ok {
			fmt.Fprintf(&b, "[%d]", i)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		fmt.Fprint(&b, p)
	}
	return b.String()
}

// brief shows a value in a failure message without flooding it.
func brief(v any) string {
	s := fmt.Sprintf("%T %v", v, v)
	if v == nil {
		s = "null"
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
