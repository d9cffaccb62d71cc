package emulator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// benchServer serves plain HTTP on loopback and returns a client for it.
func benchServer(b *testing.B, opts Options) (*Running, *http.Client) {
	run, err := Start(context.Background(), opts, "127.0.0.1:0", false)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { run.Close() })
	return run, &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

func send(b *testing.B, hc *http.Client, method, url, body string) {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer x")
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		b.Fatalf("%s %s: %d", method, url, resp.StatusCode)
	}
}

const vnetBody = `{"location":"westus2","tags":{"env":"bench"},"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16"]}}}`

// BenchmarkGET reads one resource over loopback HTTP from parallel clients.
func BenchmarkGET(b *testing.B) {
	run, hc := benchServer(b, Options{})
	send(b, hc, http.MethodPut, run.URL+rgID+rgAPI, `{"location":"westus2"}`)
	send(b, hc, http.MethodPut, run.URL+vnetID+api, vnetBody)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			send(b, hc, http.MethodGet, run.URL+vnetID+api, "")
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkPUT writes resources over loopback HTTP, journaled to disk.
func BenchmarkPUT(b *testing.B) {
	run, hc := benchServer(b, Options{StateDir: b.TempDir()})
	send(b, hc, http.MethodPut, run.URL+rgID+rgAPI, `{"location":"westus2"}`)
	b.ReportAllocs()
	b.ResetTimer()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			send(b, hc, http.MethodPut, fmt.Sprintf("%s%s/providers/Microsoft.Network/virtualNetworks/v%d%s", run.URL, rgID, i%1000, api), vnetBody)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkMemory100k stores 100,000 resources (in memory) and reports the
// live heap they take.
func BenchmarkMemory100k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		h := s.Handler()
		put := func(path, apiVersion, body string) {
			req := httptest.NewRequest(http.MethodPut, path+apiVersion, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer x")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 300 {
				b.Fatalf("PUT %s: %d %s", path, rec.Code, rec.Body)
			}
		}
		for g := 0; g < 100; g++ {
			put(fmt.Sprintf("%s/resourceGroups/rg%d", sub, g), rgAPI, `{"location":"westus2"}`)
		}
		for j := 0; j < 100000-100; j++ {
			put(fmt.Sprintf("%s/resourceGroups/rg%d/providers/Microsoft.Network/virtualNetworks/v%d", sub, j%100, j), api, vnetBody)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB/100k")
		runtime.KeepAlive(s)
		s.Close()
	}
}
