package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// fatal records what a test would have failed with.
type fatal struct {
	testing.TB
	msg string
}

func (f *fatal) Helper() {}
func (f *fatal) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

func TestAtReadsAndFailsWithThePath(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(`{"properties":{"ips":[{"address":"10.0.0.4"}],"count":2}}`), &v); err != nil {
		t.Fatal(err)
	}
	if got := At[string](t, v, "properties", "ips", 0, "address"); got != "10.0.0.4" {
		t.Errorf("got %q", got)
	}
	for _, tc := range []struct {
		path []any
		want string
	}{
		{[]any{"properties", "missing"}, "properties.missing is not there (properties is map"},
		{[]any{"properties", "ips", 3}, "properties.ips[3] is not there"},
		{[]any{"properties", "count"}, "properties.count is float64 2, not a string"},
		{[]any{"tags", "owner"}, "tags is not there (the value is map"},
	} {
		f := &fatal{TB: t}
		func() {
			defer func() {
				if r := recover(); r != nil && r != f {
					panic(r)
				}
			}()
			At[string](f, v, tc.path...)
		}()
		if !strings.Contains(f.msg, tc.want) {
			t.Errorf("At(%v) failed with %q, want %q", tc.path, f.msg, tc.want)
		}
	}
}

func TestContextEndsBeforeThePackageTimeout(t *testing.T) {
	ctx := Context(t)
	d, ok := ctx.Deadline()
	if !ok {
		t.Fatal("no deadline")
	}
	if pkg, ok := t.Deadline(); ok && !d.Before(pkg) {
		t.Errorf("the context ends at %s, not before the package's deadline %s", d, pkg)
	}
	if TimedOut(ctx) {
		t.Error("timed out at once")
	}
	short, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	<-short.Done()
	if !TimedOut(short) {
		t.Error("a context past its deadline is not reported as timed out")
	}
}
