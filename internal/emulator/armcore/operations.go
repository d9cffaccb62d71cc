package armcore

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// OperationURL is where a long-running operation is polled: an
// Azure-AsyncOperation status URL, or (for deletes) a Location that answers
// 202 until done.
func OperationURL(r *http.Request, rec *store.Record, op *store.Operation, result bool) string {
	t, _ := armpath.Parse(rec.ID)
	prefix := ""
	if t.Sub != "" {
		prefix = "/subscriptions/" + url.PathEscape(t.Sub)
	}
	loc := "global"
	// The location is read with the splicer's scanner: decoding the whole body
	// for it would cost every long-running write.
	if start, end, found, ok := memberSpan(rec.Body, "location"); ok && found {
		var l string
		if json.Unmarshal(rec.Body[start:end], &l) == nil && l != "" {
			loc = strings.ToLower(strings.ReplaceAll(l, " ", ""))
		}
	}
	kind := "operations"
	if result {
		kind = "operationResults"
	}
	return fmt.Sprintf("%s%s/providers/%s/locations/%s/%s/%s?api-version=%s",
		BaseURL(r), prefix, armpath.NamespaceOf(rec.Type), loc, kind, op.ID, url.QueryEscape(op.APIVersion))
}

func (c *Core) getOperation(w http.ResponseWriter, r *http.Request, id string, result bool) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	now := time.Now()
	op := c.st.Op(strings.ToLower(id))
	if op == nil {
		op = instantOperation(id, now)
	}
	if op == nil {
		return Errorf(http.StatusNotFound, "OperationNotFound", "The operation '%s' was not found.", id)
	}
	running := now.Before(op.Until)
	if result {
		switch {
		case running:
			w.Header().Set("Location", BaseURL(r)+r.URL.RequestURI())
			c.answerHint(w.Header(), op, now)
			w.WriteHeader(http.StatusAccepted)
		case op.Error != nil:
			WriteJSON(w, http.StatusBadRequest, map[string]any{"error": op.Error})
		case op.Result != nil:
			WriteRaw(w, http.StatusOK, op.Result)
		case op.Method == http.MethodPut && c.live(armpath.Key(op.Resource)) != nil:
			WriteRaw(w, http.StatusOK, c.render(c.live(armpath.Key(op.Resource)), now))
		default:
			w.WriteHeader(http.StatusNoContent)
		}
		return nil
	}
	status := map[string]any{"id": r.URL.Path, "name": op.ID, "startTime": op.Start.UTC().Format(time.RFC3339Nano)}
	switch {
	case running:
		status["status"] = "InProgress"
		c.answerHint(w.Header(), op, now)
	case op.Error != nil:
		status["status"] = StateFailed
		status["error"] = op.Error
		status["endTime"] = op.Until.UTC().Format(time.RFC3339Nano)
	default:
		status["status"] = StateSucceeded
		status["endTime"] = op.Until.UTC().Format(time.RFC3339Nano)
	}
	WriteJSON(w, http.StatusOK, status)
	return nil
}

// instantPrefix starts the IDs of operations that finished as they started.
const instantPrefix = "done-"

func instantOperationID(resourceID string) string {
	return instantPrefix + hex.EncodeToString([]byte(resourceID))
}

// instantOperation is the finished PUT an instant operation ID names, or nil.
func instantOperation(id string, now time.Time) *store.Operation {
	rest, ok := strings.CutPrefix(strings.ToLower(id), instantPrefix)
	if !ok {
		return nil
	}
	resource, err := hex.DecodeString(rest)
	if err != nil {
		return nil
	}
	return &store.Operation{ID: id, Resource: string(resource), Method: http.MethodPut, Start: now, Until: now}
}
