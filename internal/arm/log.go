package arm

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	azlog "github.com/Azure/azure-sdk-for-go/sdk/azcore/log"
)

// LogRequestsTo turns on --debug logging: azcore's log of every request and
// response (method, URL, status, duration per try, correlation ID), retries and
// long-running operation polls, written to w. azcore redacts the
// Authorization header, every header and query parameter not allowed by the
// client, and bodies are never logged. A nil w turns logging off. The log
// listener is process-wide, as azcore's is.
func LogRequestsTo(w io.Writer) {
	if w == nil {
		azlog.SetListener(nil)
		return
	}
	var mu sync.Mutex
	azlog.SetEvents(azlog.EventRequest, azlog.EventResponse, azlog.EventRetryPolicy, azlog.EventLRO)
	azlog.SetListener(func(event azlog.Event, msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "%s [%s] %s\n", time.Now().Format("15:04:05.000"), event, strings.TrimRight(msg, "\n"))
	})
}
