package registry

import (
	"io/fs"
	"testing"
)

// BenchmarkLoadAll measures a cold registry: the index plus every group's schemas.
func BenchmarkLoadAll(b *testing.B) {
	dir, err := fs.Sub(data, "data")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := load(dir)
		if err != nil {
			b.Fatal(err)
		}
		for group := range r.groups {
			if err := r.loadGroup(group); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLoadIndex measures what Default costs before any schema is needed.
func BenchmarkLoadIndex(b *testing.B) {
	dir, err := fs.Sub(data, "data")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := load(dir); err != nil {
			b.Fatal(err)
		}
	}
}
