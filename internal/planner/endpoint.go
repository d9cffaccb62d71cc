package planner

import (
	"fmt"
	"strings"
)

// Endpoint types: where a plan was made.
const (
	// EndpointAzure is Azure Resource Manager in one of Azure's clouds.
	EndpointAzure = "azure"
	// EndpointEmulator is azk's in-process emulator (--emulator), keeping its
	// state in a folder.
	EndpointEmulator = "emulator"
	// EndpointURL is an ARM emulator serving at a URL (--endpoint, azk emulator).
	EndpointURL = "url"
)

// Endpoint is where a plan was made, so that a saved plan is applied there
// and nowhere else. It describes the endpoint, and holds no token or secret.
type Endpoint struct {
	// Type is EndpointAzure, EndpointEmulator or EndpointURL.
	Type string `json:"type"`
	// Cloud is the Azure cloud's name (AzurePublic, AzureChinaCloud,
	// AzureUSGovernment), for EndpointAzure.
	Cloud string `json:"cloud,omitempty"`
	// State is the absolute path of the folder holding an in-process
	// emulator's state, for EndpointEmulator.
	State string `json:"state,omitempty"`
	// URL is the emulator's address, for EndpointURL.
	URL string `json:"url,omitempty"`
	// CertSHA256 is the SHA-256 of the certificate pinned for URL (lower-case
	// hex), empty when the system's roots are trusted.
	CertSHA256   string `json:"certSha256,omitempty"`
	Subscription string `json:"subscription"`
	// Tenant is the Microsoft Entra tenant signed in to, when one was named
	// (flag, environment or the Azure CLI's profile), for EndpointAzure.
	Tenant string `json:"tenant,omitempty"`
}

// String describes the endpoint for people.
func (e Endpoint) String() string {
	var s string
	switch e.Type {
	case EndpointAzure:
		s = "Azure (" + e.Cloud + ")"
	case EndpointEmulator:
		s = "the in-process emulator (--emulator) with its state in " + e.State
	case EndpointURL:
		s = "the emulator at " + e.URL
	default:
		s = "an endpoint of unknown type " + e.Type
	}
	s += ", subscription " + e.Subscription
	if e.Tenant != "" {
		s += ", tenant " + e.Tenant
	}
	return s
}

// Mismatch lists how other differs from e: the type, the cloud, the state
// folder, the URL, the pinned certificate, the subscription or the tenant
// (IDs compared case-insensitively). A field either leaves empty is not a
// difference: other may say only what flags named, and a plan made without
// a tenant or a pinned certificate took whichever the sign-in gave.
func (e Endpoint) Mismatch(other Endpoint) []string {
	if other.Type != "" && other.Type != e.Type {
		return []string{fmt.Sprintf("%s, not %s", other, e)}
	}
	var out []string
	for _, f := range []struct {
		what, mine, theirs string
	}{
		{"cloud", e.Cloud, other.Cloud},
		{"emulator state in", e.State, other.State},
		{"URL", e.URL, other.URL},
		{"pinned certificate SHA-256", e.CertSHA256, other.CertSHA256},
		{"subscription", e.Subscription, other.Subscription},
		{"tenant", e.Tenant, other.Tenant},
	} {
		if f.mine != "" && f.theirs != "" && !strings.EqualFold(f.mine, f.theirs) {
			out = append(out, fmt.Sprintf("%s %s, not %s", f.what, f.theirs, f.mine))
		}
	}
	return out
}
