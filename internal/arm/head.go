package arm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// Exists asks ARM with HEAD whether id exists (an existence check such as
// Cosmos DB's databaseAccountNames): true for 2xx, false for 404.
func (c *Client) Exists(ctx context.Context, id, apiVersion string) (bool, error) {
	u, err := c.url(id, false, apiVersion, nil)
	if err != nil {
		return false, err
	}
	resp, err := c.send(ctx, http.MethodHead, id, u, nil, writeOptions{})
	if IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return true, nil
}

// ListFiltered is List with an OData $filter, such as "location eq 'westus'".
func (c *Client) ListFiltered(ctx context.Context, path, apiVersion, filter string) ([]json.RawMessage, error) {
	return c.list(ctx, path, apiVersion, url.Values{"$filter": {filter}})
}
