package armcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// Error is ARM's error body content, and the HTTP status it is answered with.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Status is the answer's HTTP status; 0 for an error that is only
	// reported inside a body (a failed operation's).
	Status int `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns ARM's error code with a formatted message, answered with status.
func Errorf(status int, code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Status: status}
}

// WriteRaw answers status with a JSON body.
func WriteRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteJSON answers status with v encoded as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, "InternalServerError", "encoding response: %v", err)
		return
	}
	WriteRaw(w, status, body)
}

// WriteError answers status with ARM's error body.
func WriteError(w http.ResponseWriter, status int, code, format string, args ...any) {
	WriteJSON(w, status, map[string]any{"error": Error{Code: code, Message: fmt.Sprintf(format, args...)}})
}

// WriteARMError answers err: an *Error with its status, anything else as 500.
func WriteARMError(w http.ResponseWriter, err error) {
	var ae *Error
	if errors.As(err, &ae) && ae.Status != 0 {
		WriteJSON(w, ae.Status, map[string]any{"error": ae})
		return
	}
	WriteError(w, http.StatusInternalServerError, "InternalServerError", "%v", err)
}

// BaseURL is the scheme and host a request was sent to.
func BaseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
