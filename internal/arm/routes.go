package arm

import "strings"

// forCollection is the client that lists the collection at path: the one
// routed for the nearest resource above it (the resource group of a
// group's networks, the network of its subnets), else c. A collection is
// read as the identity its parent is read and written as: in a
// subscription of its own (serviceoperator.azure.com/credential-from),
// that is the identity with access to it, and the budget its reads draw on.
func (c *Client) forCollection(path string) *Client {
	p := strings.ToLower(strings.TrimSuffix(path, "/"))
	for {
		i := strings.LastIndexByte(p, '/')
		if i <= 0 {
			return c
		}
		p = p[:i]
		if r, ok := c.routes.Load(p); ok {
			return r.(*Client)
		}
	}
}
