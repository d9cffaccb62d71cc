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
// manifests) naming a FIFO or a device as its certificate or federated
// token file is refused at once: a FIFO blocked azk, /dev/zero filled its
// memory (issue 22, item 4).
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
	for _, key := range []string{SecretClientCertificatePath, SecretFederatedTokenFile} {
		for _, path := range []string{fifo, "/dev/zero"} {
			done := make(chan error, 1)
			go func() {
				_, err := c.ForSecret("creds", map[string]string{SecretSubscriptionID: otherSub, SecretTenantID: "t", SecretClientID: "c", key: path})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.HasPrefix(err.Error(), `credential secret "creds": `+key+`: cannot read the `) {
					t.Errorf("%s %s: %v", key, path, err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%s %s: reading the file did not return", key, path)
			}
		}
	}
}
