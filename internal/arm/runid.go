package arm

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// azkRunIDPrefix is the first group of every run ID azk makes. ARM keeps a
// client-supplied x-ms-correlation-request-id and shows it as the
// correlationId of the Activity Log's events and Resource Graph's change
// records, so a record whose correlation ID starts with it is azk's write.
const azkRunIDPrefix = "a2c0a2c0"

// NewRunID is a fresh run ID: a UUID in the version-8 layout (RFC 9562, the
// custom-content version) whose first group is azkRunIDPrefix and the rest
// random.
func NewRunID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("arm: no randomness for a run ID: " + err.Error())
	}
	copy(b[:4], []byte{0xa2, 0xc0, 0xa2, 0xc0})
	b[6] = b[6]&0x0f | 0x80 // version 8
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// IsAzkCorrelationID reports whether a correlation ID seen in Azure's records
// (an Activity Log event, a change record) is one of azk's run IDs: a
// well-formed UUID whose first group is azk's, in any letter case.
func IsAzkCorrelationID(id string) bool {
	if len(id) != 36 || !strings.EqualFold(id[:8], azkRunIDPrefix) {
		return false
	}
	for i, c := range id {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

// RunID is this process's run ID: every request azk sends carries it as
// x-ms-correlation-request-id, so all of one run's writes share it in
// Azure's records.
var RunID = sync.OnceValue(NewRunID)

// correlationPolicy puts the run ID on every request that carries no
// correlation ID of its own. (Each request also gets its own
// x-ms-client-request-id, azcore's request ID policy, which the Activity
// Log shows as its httpRequest's clientRequestId.)
type correlationPolicy struct{ id string }

func (p correlationPolicy) Do(req *policy.Request) (*http.Response, error) {
	if req.Raw().Header.Get(headerCorrelationID) == "" {
		req.Raw().Header.Set(headerCorrelationID, p.id)
	}
	return req.Next()
}

// userAgentID is the application ID azcore puts first in the User-Agent,
// "azk/<version>", within azcore's 24 characters.
func userAgentID(version string) string {
	if version == "" {
		version = "dev"
	}
	id := "azk/" + strings.ReplaceAll(version, " ", "-")
	if len(id) > 24 {
		id = id[:24]
	}
	return id
}
