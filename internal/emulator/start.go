package emulator

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Running is an emulator serving on a listener.
type Running struct {
	// URL is the base URL clients use as the ARM endpoint, e.g. "https://127.0.0.1:8443".
	URL string
	// CertPool trusts the generated certificate; nil when serving plain HTTP.
	CertPool *x509.CertPool
	// Fingerprint is the SHA-256 of the certificate (hex, colon separated); empty for HTTP.
	Fingerprint string
	// CertPEM is the certificate in PEM form, for clients that trust a file; nil for HTTP.
	CertPEM []byte
	// Server is the emulator, for in-process fault control.
	Server *Server

	http *http.Server
	done chan error
	// closing makes Close run once; closed ends when it has flushed the
	// state, which Wait waits for, so that a process exiting when Wait
	// returns leaves its state complete.
	closing  sync.Once
	closed   chan struct{}
	closeErr error
}

// Start serves a new emulator on addr ("127.0.0.1:0" picks a port) until ctx
// ends or Close is called. With useTLS it serves HTTPS with a freshly
// generated self-signed certificate for the listening host.
func Start(ctx context.Context, opts Options, addr string, useTLS bool) (*Running, error) {
	srv, err := New(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		srv.Close()
		return nil, err
	}
	run := &Running{Server: srv, done: make(chan error, 1), closed: make(chan struct{})}
	run.http = &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: min(HeaderTimeout, opts.readTimeout())}
	scheme := "http"
	if useTLS {
		cert, der, err := selfSignedCert(ln.Addr().(*net.TCPAddr))
		if err != nil {
			ln.Close()
			srv.Close()
			return nil, err
		}
		leaf, err := x509.ParseCertificate(der)
		if err != nil {
			ln.Close()
			srv.Close()
			return nil, err
		}
		run.CertPool = x509.NewCertPool()
		run.CertPool.AddCert(leaf)
		run.CertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		sum := sha256.Sum256(der)
		run.Fingerprint = colonHex(sum[:])
		run.http.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, run.http.TLSConfig)
		scheme = "https"
	}
	run.URL = scheme + "://" + ln.Addr().String()
	go func() {
		err := run.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			<-run.closed
			err = run.closeErr
		}
		run.done <- err
	}()
	go func() {
		<-ctx.Done()
		run.Close()
	}()
	return run, nil
}

// Close stops serving and flushes the state. It is safe to call more than
// once. Requests in flight get a moment to finish; connections a client
// opened and never used (which net/http would wait five seconds for) are
// closed then.
func (r *Running) Close() error {
	r.closing.Do(func() {
		defer close(r.closed)
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		err := r.http.Shutdown(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = r.http.Close()
		}
		if cerr := r.Server.Close(); err == nil {
			err = cerr
		}
		r.closeErr = err
	})
	return r.closeErr
}

// Wait blocks until the server stops and returns why.
func (r *Running) Wait() error {
	err := <-r.done
	r.done <- err
	return err
}

// HTTPClient returns a client that trusts the emulator's certificate.
func (r *Running) HTTPClient() *http.Client {
	if r.CertPool == nil {
		return &http.Client{}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: r.CertPool, MinVersion: tls.VersionTLS12}}}
}

func selfSignedCert(addr *net.TCPAddr) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "azk emulator"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if !addr.IP.IsUnspecified() && !addr.IP.IsLoopback() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, addr.IP)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, der, nil
}

func colonHex(b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = strings.ToUpper(hex.EncodeToString([]byte{c}))
	}
	return strings.Join(parts, ":")
}
