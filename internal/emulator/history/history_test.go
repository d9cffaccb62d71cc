package history

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func render(changes map[string]PropertyChange) []string {
	var out []string
	for path, c := range changes {
		v := func(p *string) string {
			if p == nil {
				return "-"
			}
			return *p
		}
		out = append(out, fmt.Sprintf("%s %s %s -> %s", path, c.PropertyChangeType, v(c.PreviousValue), v(c.NewValue)))
	}
	slices.Sort(out)
	return out
}

// TestDiffLeafPaths: changes are leaf paths with [i] indexes, values as
// Azure renders them; identity, etag and systemData are not changes.
func TestDiffLeafPaths(t *testing.T) {
	before := `{"id":"/x","etag":"1","systemData":{"lastModifiedAt":"t1"},"tags":{"a":"1","gone":"x"},
		"properties":{"on":false,"n":3,"list":[{"name":"s1"},{"name":"s2"}],"nested":{"deep":{"v":"same"}},"nul":null}}`
	after := `{"id":"/x","etag":"2","systemData":{"lastModifiedAt":"t2"},"tags":{"a":"2","b":""},
		"properties":{"on":true,"n":3.5,"list":[{"name":"s1"}],"nested":{"deep":{"v":"same"}},"empty":{}}}`
	got := render(diff([]byte(before), []byte(after)))
	want := []string{
		"properties.list[1].name Remove s2 -> -",
		"properties.n Update 3 -> 3.5",
		"properties.on Update False -> True",
		"tags.a Update 1 -> 2",
		"tags.b Insert - -> ",
		"tags.gone Remove x -> -",
	}
	if !slices.Equal(got, want) {
		t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if created := render(diff(nil, []byte(after))); len(created) != 6 || !slices.Contains(created, "properties.nested.deep.v Insert - -> same") {
		t.Errorf("a create inserts every leaf: %q", created)
	}
}

func TestClientType(t *testing.T) {
	for ua, want := range map[string]string{
		"AZURECLI/2.67.0 (DEB) azsdk-python-core/1.31.0 Python/3.12.3":                         ClientCLI,
		"AzurePowershell/v12.0.0 PSVersion/v7.4.1 Az.Resources/7.1.0":                          ClientPowerShell,
		"azk/v1.0.0 azsdk-go-azk/v0.0.0 (go1.26.0; linux)":                                     ClientUnspecified,
		"azsdk-go-armresources/v1.2.0 (go1.22.0; linux)":                                       ClientUnspecified,
		"HashiCorp Terraform/1.9.0 (+https://www.terraform.io) terraform-provider-azapi/2.0.1": ClientUnspecified,
		"": ClientUnspecified,
	} {
		if got := ClientType(ua); got != want {
			t.Errorf("ClientType(%q) = %q, want %q", ua, got, want)
		}
	}
}

func TestActivityFilter(t *testing.T) {
	f, err := parseActivityFilter("eventTimestamp ge '2026-01-01T00:00:00Z' and eventTimestamp le '2026-01-02T00:00:00Z' and resourceUri eq '/subscriptions/s/resourceGroups/g'")
	if err != nil || f.field != "resourceuri" || f.from.Day() != 1 || f.to.Day() != 2 {
		t.Errorf("a full filter: %+v, %v", f, err)
	}
	for _, bad := range []string{"", "resourceUri eq '/x'", "eventTimestamp ge 'yesterday'", "eventTimestamp ge '2026-01-01T00:00:00Z' and status eq 'Failed'",
		"eventTimestamp ge '2026-01-01T00:00:00Z' and resourceUri eq '/a' and correlationId eq 'b'"} {
		if _, err := parseActivityFilter(bad); err == nil {
			t.Errorf("%q was taken", bad)
		}
	}
}

// TestRetentionByClock: entries older than the longer retention are
// dropped, from memory and the journal; each API reads within its own.
func TestRetentionByClock(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	open := func(r Retention) *Log {
		t.Helper()
		l, err := open(nil, dir, r, func() time.Time { return now })
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := open(Retention{Changes: 14 * 24 * time.Hour, Activity: 90 * 24 * time.Hour})
	for _, age := range []time.Duration{100 * 24 * time.Hour, 30 * 24 * time.Hour, time.Hour} {
		if err := l.add(&Entry{ChangeID: fmt.Sprint(age), TargetID: "/subscriptions/s/resourceGroups/g", At: now.Add(-age)}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(es []*Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.ChangeID)
		}
		return out
	}
	if got := ids(l.kept(l.Retention().Changes)); !slices.Equal(got, []string{"1h0m0s"}) {
		t.Errorf("changes within 14 days: %v", got)
	}
	if got := ids(l.kept(l.Retention().Activity)); !slices.Equal(got, []string{"720h0m0s", "1h0m0s"}) {
		t.Errorf("activity within 90 days: %v", got)
	}
	l.Close()
	// A damaged line is skipped; reopening drops what the retention no longer keeps.
	f, _ := os.OpenFile(filepath.Join(dir, JournalFile), os.O_WRONLY|os.O_APPEND, 0o600)
	f.WriteString("{not json\n")
	f.Close()
	l = open(Retention{Changes: time.Hour * 2, Activity: time.Hour * 2})
	defer l.Close()
	if len(l.Warnings()) != 1 {
		t.Errorf("warnings: %v", l.Warnings())
	}
	data, _ := os.ReadFile(filepath.Join(dir, JournalFile))
	if got := ids(l.kept(time.Hour * 2)); !slices.Equal(got, []string{"1h0m0s"}) || strings.Count(string(data), "\n") != 1 || strings.Contains(string(data), "720h") {
		t.Errorf("reopened with 2 hours' retention: kept %v, journal:\n%s", got, data)
	}
	// Retention 0 keeps nothing.
	if err := l.SetRetention(Retention{}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(filepath.Join(dir, JournalFile))
	if len(l.kept(time.Hour)) != 0 || len(data) != 0 {
		t.Errorf("retention 0 keeps %v, journal %q", ids(l.entries), data)
	}
}

// TestJournalCompactsAsEntriesExpire: a long-running emulator's journal is
// rewritten once the lines of dropped entries outnumber the kept ones by
// compactAfter, so it does not grow with every write ever made.
func TestJournalCompactsAsEntriesExpire(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	l, err := open(nil, dir, Retention{Changes: time.Hour, Activity: time.Hour}, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range compactAfter + 200 {
		now = now.Add(time.Minute)
		if err := l.add(&Entry{ChangeID: fmt.Sprint(i), TargetID: "/subscriptions/s/resourceGroups/g", At: now}); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, JournalFile))
	lines := strings.Count(string(data), "\n")
	if len(l.entries) != 60 || lines > 2*len(l.entries)+compactAfter || lines >= compactAfter {
		t.Errorf("%d entries kept within the hour, %d journal lines after %d writes", len(l.entries), lines, compactAfter+200)
	}
}
