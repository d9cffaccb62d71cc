// Package history reads Azure's change history of the resources a plan
// reads and classifies what the manifests leave unsaid by it (issue 36):
// Resource Graph's resourcechanges table (14 days in Azure) and, for a
// resource whose change records do not reach back to azk's last write, the
// Activity Log (90 days). azk's own writes are the records whose correlation
// ID is one of azk's run IDs (arm.IsAzkCorrelationID).
//
// Reading is in reader.go; classifying, pure functions from the records,
// azk's last write, the values and the base, in classify.go.
package history

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Record is one change record of Resource Graph's resourcechanges table.
type Record struct {
	// TargetID is the ARM ID of the resource changed.
	TargetID string
	// ChangeType is Create, Update or Delete.
	ChangeType string
	Timestamp  time.Time
	// ChangedBy is the principal (a UPN, an app ID or an object ID).
	ChangedBy string
	// ClientType is what the write came through ("Azure Portal", "Azure CLI", …).
	ClientType string
	// Operation is the ARM operation, "Microsoft.Network/virtualNetworks/write".
	Operation     string
	CorrelationID string
	// Changes are the leaf paths the write changed, as Azure renders them
	// ("properties.dhcpOptions.dnsServers[0]").
	Changes map[string]PropertyChange
}

// PropertyChange is one leaf path's change: values as Azure renders them,
// strings ("True" for a boolean).
type PropertyChange struct {
	Previous string
	New      string
	// Kind is Insert, Update or Remove.
	Kind string
}

// Write is one write of the Activity Log: who wrote a resource and when,
// without the properties it changed.
type Write struct {
	// ResourceID is the resource written, as the event names it.
	ResourceID    string
	Timestamp     time.Time
	Caller        string
	Operation     string
	CorrelationID string
}

// changeRow is a resourcechanges row as Resource Graph serves it.
type changeRow struct {
	Properties struct {
		TargetResourceID string `json:"targetResourceId"`
		ChangeType       string `json:"changeType"`
		ChangeAttributes struct {
			Timestamp     string `json:"timestamp"`
			ChangedBy     string `json:"changedBy"`
			ClientType    string `json:"clientType"`
			Operation     string `json:"operation"`
			CorrelationID string `json:"correlationId"`
		} `json:"changeAttributes"`
		Changes map[string]struct {
			PreviousValue      any    `json:"previousValue"`
			NewValue           any    `json:"newValue"`
			PropertyChangeType string `json:"propertyChangeType"`
		} `json:"changes"`
	} `json:"properties"`
}

// parseRecord reads one resourcechanges row.
func parseRecord(raw json.RawMessage) (Record, error) {
	var row changeRow
	if err := json.Unmarshal(raw, &row); err != nil {
		return Record{}, fmt.Errorf("reading a change record: %w", err)
	}
	p := row.Properties
	if p.TargetResourceID == "" {
		return Record{}, fmt.Errorf("a change record without properties.targetResourceId")
	}
	at, err := time.Parse(time.RFC3339Nano, p.ChangeAttributes.Timestamp)
	if err != nil {
		return Record{}, fmt.Errorf("change record of %s: timestamp %q: %w", p.TargetResourceID, p.ChangeAttributes.Timestamp, err)
	}
	r := Record{
		TargetID:      p.TargetResourceID,
		ChangeType:    p.ChangeType,
		Timestamp:     at,
		ChangedBy:     p.ChangeAttributes.ChangedBy,
		ClientType:    p.ChangeAttributes.ClientType,
		Operation:     p.ChangeAttributes.Operation,
		CorrelationID: p.ChangeAttributes.CorrelationID,
		Changes:       map[string]PropertyChange{},
	}
	for path, c := range p.Changes {
		r.Changes[path] = PropertyChange{Previous: rendered(c.PreviousValue), New: rendered(c.NewValue), Kind: c.PropertyChangeType}
	}
	return r, nil
}

// rendered is a change's value as a string: Azure sends strings, and a
// value of another JSON type is read as its JSON text.
func rendered(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// eventRow is an Activity Log event as the eventtypes/management/values list serves it.
type eventRow struct {
	Caller         string `json:"caller"`
	CorrelationID  string `json:"correlationId"`
	EventTimestamp string `json:"eventTimestamp"`
	OperationName  struct {
		Value string `json:"value"`
	} `json:"operationName"`
	Status struct {
		Value string `json:"value"`
	} `json:"status"`
	ResourceID string `json:"resourceId"`
}

// parseWrite reads one Activity Log event: a succeeded write or delete, or
// ok false for any other event (a read, a start, a failure).
func parseWrite(raw json.RawMessage) (w Write, ok bool, err error) {
	var e eventRow
	if err := json.Unmarshal(raw, &e); err != nil {
		return Write{}, false, fmt.Errorf("reading an Activity Log event: %w", err)
	}
	op := strings.ToLower(e.OperationName.Value)
	if !strings.EqualFold(e.Status.Value, "Succeeded") || !(strings.HasSuffix(op, "/write") || strings.HasSuffix(op, "/delete")) {
		return Write{}, false, nil
	}
	at, err := time.Parse(time.RFC3339Nano, e.EventTimestamp)
	if err != nil {
		return Write{}, false, fmt.Errorf("Activity Log event of %s: eventTimestamp %q: %w", e.ResourceID, e.EventTimestamp, err)
	}
	return Write{ResourceID: e.ResourceID, Timestamp: at, Caller: e.Caller, Operation: e.OperationName.Value, CorrelationID: e.CorrelationID}, true, nil
}
