package deployment

// Request is the body of a deployment (or validate, or what-if) request for
// t: its template, and its secret parameters' values, which are sent and
// never written anywhere.
func (t *Template) Request() map[string]any { return deploymentRequest(t) }
