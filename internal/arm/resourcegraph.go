package arm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Resource Graph's query API and the Activity Log's list, which azk reads
// the change history through (see package history).
const (
	resourceGraphPath       = "/providers/Microsoft.ResourceGraph/resources"
	resourceGraphAPIVersion = "2022-10-01"
	activityLogAPIVersion   = "2015-04-01"
)

// readingKey marks a request that reads though it is a POST (a Resource
// Graph query): it draws on the read budget, as the plan's reads do.
type readingKey struct{}

func asRead(ctx context.Context) context.Context { return context.WithValue(ctx, readingKey{}, true) }

// budgetMethod is the method whose bucket a request draws on.
func budgetMethod(ctx context.Context, method string) string {
	if reading, _ := ctx.Value(readingKey{}).(bool); reading {
		return http.MethodGet
	}
	return method
}

// QueryResourceGraph posts request (Resource Graph's query body, whose
// "subscriptions" name subscription alone) to Resource Graph's query API
// and returns the answer, with subscription's credentials and paced by its
// read budget.
func (c *Client) QueryResourceGraph(ctx context.Context, subscription string, request any) (json.RawMessage, error) {
	if r := c.For("/subscriptions/" + subscription); r != c {
		return r.QueryResourceGraph(ctx, subscription, request)
	}
	u, err := c.url(resourceGraphPath, true, resourceGraphAPIVersion, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(asRead(ctx), http.MethodPost, resourceGraphPath, u, request, writeOptions{})
	if err != nil {
		return nil, err
	}
	body, err := runtime.Payload(resp)
	if err != nil {
		return nil, fmt.Errorf("POST %s: reading the answer: %w", resourceGraphPath, err)
	}
	return body, nil
}

// ActivityLog lists the subscription's Activity Log events that match the
// OData filter, every page.
func (c *Client) ActivityLog(ctx context.Context, subscription, filter string) ([]json.RawMessage, error) {
	path := "/subscriptions/" + subscription + "/providers/Microsoft.Insights/eventtypes/management/values"
	return c.For("/subscriptions/"+subscription).list(ctx, path, activityLogAPIVersion, url.Values{"$filter": {filter}})
}
