package store

import (
	"maps"
	"slices"
	"testing"
)

// TestOfTypeFollowsEveryChange: the records of a type and of a namespace
// are those stored now, whatever case the type is written in, through
// creates, deletes and a restart from the journal.
func TestOfTypeFollowsEveryChange(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	put := func(k, typ string) {
		t.Helper()
		if err := st.PutResource(k, &Record{ID: k, Type: typ, Parent: "/subscriptions/s"}); err != nil {
			t.Fatal(err)
		}
	}
	put("/a", "Microsoft.Storage/storageAccounts")
	put("/b", "microsoft.storage/STORAGEACCOUNTS")
	put("/c", "Microsoft.Storage/storageAccounts/blobServices")
	put("/d", "Microsoft.Network/virtualNetworks")
	if err := st.DeleteResource("/a"); err != nil {
		t.Fatal(err)
	}
	check := func(st *Store) {
		t.Helper()
		if got := slices.Sorted(maps.Keys(maps.Collect(st.OfType("Microsoft.Storage/storageAccounts")))); !slices.Equal(got, []string{"/b"}) {
			t.Errorf("OfType(storageAccounts) = %v, want [/b]", got)
		}
		if got := slices.Sorted(maps.Keys(maps.Collect(st.OfNamespace("MICROSOFT.STORAGE")))); !slices.Equal(got, []string{"/b", "/c"}) {
			t.Errorf("OfNamespace(Microsoft.Storage) = %v, want [/b /c]", got)
		}
		if got := slices.Collect(maps.Keys(maps.Collect(st.OfType("Microsoft.Compute/virtualMachines")))); len(got) != 0 {
			t.Errorf("OfType of a type never stored = %v", got)
		}
	}
	check(st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	check(st)
}
