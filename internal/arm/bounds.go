package arm

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// RetryBounds are the client's retry bounds, for callers that retry what
// only they know to be transient for a kind (an error its provider gives
// while something it needs is still being provisioned): as many tries, the
// same backoff.
func (c *Client) RetryBounds() RetryOptions { return c.opts.Retry }

// Backoff is the wait before try number attempt+1.
func (o RetryOptions) Backoff(attempt int) time.Duration { return o.backoff(attempt) }

// PollFrequency is how often the client polls a long-running operation;
// callers waiting for a resource's state in Azure poll as often.
func (c *Client) PollFrequency() time.Duration { return c.opts.PollFrequency }

// DeleteWith deletes a resource with query parameters and headers besides
// the api-version, as some providers' deletions take (API Management's
// deleteSubscriptions and If-Match). The headers go with the DELETE only,
// not with the polling of its operation.
func (c *Client) DeleteWith(ctx context.Context, id, apiVersion string, query url.Values, header http.Header) (*Operation, error) {
	if len(header) > 0 {
		ctx = runtime.WithHTTPHeader(ctx, header)
	}
	return c.For(id).start(ctx, http.MethodDelete, id, apiVersion, query, nil, writeOptions{})
}
