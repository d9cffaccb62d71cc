//go:build unix

package arm

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCertificatePathIsARegularFile: a credential Secret (from the
// manifests) naming a FIFO or a device as its certificate file is refused
// at once: a FIFO blocked azk, /dev/zero filled its memory (issue 22, item 4).
func TestCertificatePathIsARegularFile(t *testing.T) {
	noAmbientCredentials(t)
	c, err := New(Options{Credential: &explainedCredential{inner: EmulatorCredential}, Transport: &offline{}, Retry: fastRetry})
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "cert.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		done := make(chan error, 1)
		go func() {
			_, err := c.ForSecret("creds", map[string]string{SecretSubscriptionID: otherSub, SecretTenantID: "t", SecretClientID: "c", SecretClientCertificatePath: path})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.HasPrefix(err.Error(), `credential secret "creds": AZURE_CLIENT_CERTIFICATE_PATH: cannot read the certificate file`) {
				t.Errorf("%s: %v", path, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: reading the certificate did not return", path)
		}
	}
}
