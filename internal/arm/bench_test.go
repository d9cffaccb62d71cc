package arm

import (
	"fmt"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
)

// BenchmarkGet measures a GET through the whole client (limiter, azcore
// pipeline, TLS) against the in-process emulator, with concurrent callers.
func BenchmarkGet(b *testing.B) {
	emu := startEmulator(b, emulator.Options{})
	c := emu.client(b, nil)
	put(b, c, rgID("bench"), rgAPI, map[string]any{"location": "westus2"})
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Get(ctx, rgID("bench"), rgAPI); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkPutAndWait measures a synchronous PUT and its Wait.
func BenchmarkPutAndWait(b *testing.B) {
	emu := startEmulator(b, emulator.Options{})
	c := emu.client(b, nil)
	put(b, c, rgID("bench"), rgAPI, map[string]any{"location": "westus2"})
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		op, err := c.Put(ctx, vnetID("bench", fmt.Sprintf("v%d", i)), networkAPI, vnetBody)
		if err == nil {
			_, err = op.Wait(ctx)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
