package arm

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// failFast stops retries of requests that cannot succeed by trying again:
// an untrusted server certificate, a refused connection, an unknown host.
// Retrying them made a missing emulator pin or a stopped emulator look like a hang.
type failFast struct{}

func (failFast) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil {
		return resp, nil
	}
	if hint := unreachable(err); hint != "" {
		return nil, &finalError{err: err, hint: hint}
	}
	return resp, err
}

// unreachable says why err cannot be cured by retrying, or "" when it might be.
func unreachable(err error) string {
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		verify   *tls.CertificateVerificationError
		dns      *net.DNSError
	)
	switch {
	case errors.As(err, &unknown), errors.As(err, &invalid), errors.As(err, &hostname), errors.As(err, &verify):
		return "the server's TLS certificate is not trusted; for an azk emulator, set AZK_ENDPOINT_CERT_SHA256 to the fingerprint it prints"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing is listening there; is the endpoint (or azk emulator) running?"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "the host name does not resolve"
	}
	return ""
}

// finalError is not retried (azcore's retry policy honours NonRetriable).
type finalError struct {
	err  error
	hint string
}

func (e *finalError) Error() string { return fmt.Sprintf("%v (%s)", e.err, e.hint) }

func (e *finalError) Unwrap() error { return e.err }

// NonRetriable marks the error as final for azcore's retry policy.
func (*finalError) NonRetriable() {}
