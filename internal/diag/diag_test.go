package diag

import (
	"strings"
	"testing"
)

func TestErrorNamesFileLineResourceAndField(t *testing.T) {
	d := Errorf(Source{File: "a.yaml", Line: 7}, "network.azure.com/VirtualNetwork/default/v", "spec.owner", "owner %q missing", "rg")
	if got, want := d.Error(), `a.yaml:7: network.azure.com/VirtualNetwork/default/v: spec.owner: owner "rg" missing`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Errorf(Source{}, "", "", "plain").Error(); got != "plain" {
		t.Errorf("empty parts must be left out: %q", got)
	}
	if got := (Source{File: "-"}).String(); got != "-" {
		t.Errorf("source without a line: %q", got)
	}
}

func TestListReportsEveryErrorInOrder(t *testing.T) {
	var l List
	l.Add(nil)
	l.Add(Warningf(Source{File: "b.yaml", Line: 1}, "", "", "just a warning"))
	l.Add(Errorf(Source{File: "b.yaml", Line: 9}, "", "", "second"))
	l.Add(Errorf(Source{File: "a.yaml", Line: 3}, "", "", "first"))
	if !l.HasErrors() || len(l) != 3 {
		t.Fatalf("len %d, errors %v", len(l), l.HasErrors())
	}
	l.Sort()
	err := l.Err().Error()
	if !strings.HasPrefix(err, "2 errors:\n  a.yaml:3: first\n  b.yaml:9: second") || strings.Contains(err, "warning") {
		t.Errorf("Err() = %q", err)
	}
	var none List
	none.Add(Warningf(Source{}, "", "", "w"))
	if none.HasErrors() || none.Err() != nil {
		t.Error("warnings alone are not an error")
	}
}
