package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestEmulatorCommand serves `azk emulator`, trusts it through the PEM file
// it prints, and checks that a second emulator on its state folder (as an
// apply --emulator would start) is refused naming this process.
func TestEmulatorCommand(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	out := serveEmulatorCommand(t, state, "clients need")
	certFile := regexp.MustCompile(`certificate \(PEM\): (\S+)`).FindStringSubmatch(out)
	endpoint := regexp.MustCompile(`AZK_ENDPOINT=(\S+)`).FindStringSubmatch(out)
	token := regexp.MustCompile(`admin API token \(.*\): (\S+)`).FindStringSubmatch(out)
	if certFile == nil || endpoint == nil || token == nil {
		t.Fatalf("start-up message lacks the certificate file, endpoint or admin token:\n%s", out)
	}
	if filepath.Dir(certFile[1]) != state {
		t.Errorf("certificate %s is not beside the state in %s", certFile[1], state)
	}
	pemBytes, err := os.ReadFile(certFile[1])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("%s holds no PEM certificate", certFile[1])
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	req, _ := http.NewRequest(http.MethodGet, endpoint[1]+"/_emulator/faults", nil)
	req.Header.Set("Authorization", "Bearer "+token[1])
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("a client trusting only the PEM file: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("admin API with the printed token: %s", resp.Status)
	}

	var second lockedBuffer
	again := newRootCommand(strings.NewReader(""), &second, &second)
	again.SetArgs([]string{"emulator", "--addr", "127.0.0.1:0", "--state", state})
	err = again.ExecuteContext(context.Background())
	if err == nil || !strings.Contains(err.Error(), "in use by process "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second emulator on the same state: %v", err)
	}
}
