// Package history is the emulator's record of what changed, as Azure keeps
// it: every write to a resource (a client's PUT, PATCH or DELETE, or a drift
// made "in the portal") leaves one entry with its property-level changes,
// caller, client type, operation and correlation ID. It serves them as
// Azure does, through Resource Graph's resourcechanges table (resourcegraph.go,
// 14 days by default) and the Activity Log (activitylog.go, 90 days), so that
// a client can tell its own writes from others'. Entries older than the
// retention are dropped; with a state folder they are kept across restarts in
// their own journal, which never holds a secret: the bodies compared are the
// stored ones, from which the core has dropped every secret and write-only value.
package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// The retentions Azure keeps: Resource Graph's change history 14 days, the
// Activity Log 90.
const (
	DefaultChangesRetention  = 14 * 24 * time.Hour
	DefaultActivityRetention = 90 * 24 * time.Hour
)

// JournalFile is the history's file in the state folder.
const JournalFile = "history.journal"

// Entry is one write as Azure's records show it.
type Entry struct {
	ChangeID   string    `json:"changeId"`
	TargetID   string    `json:"targetId"`
	TargetType string    `json:"targetType"`
	ChangeType string    `json:"changeType"` // Create, Update or Delete
	At         time.Time `json:"at"`
	// ChangedBy is the caller: an application's client ID, else a user's name.
	ChangedBy  string `json:"changedBy"`
	ClientType string `json:"clientType"`
	// Operation is ARM's operation name, "<type>/write" or "<type>/delete".
	Operation       string `json:"operation"`
	CorrelationID   string `json:"correlationId"`
	ClientRequestID string `json:"clientRequestId,omitempty"`
	Method          string `json:"method"`
	// PreviousSnapshot and NewSnapshot name the resource's versions before
	// and after ("" before a create and after a delete).
	PreviousSnapshot string                    `json:"previousSnapshot,omitempty"`
	NewSnapshot      string                    `json:"newSnapshot,omitempty"`
	Changes          map[string]PropertyChange `json:"changes"`

	lowerTarget string // TargetID lower-cased, once: queries match on it
}

// PropertyChange is one leaf property's change, its values rendered as
// Azure renders them (strings; booleans "True" and "False").
type PropertyChange struct {
	PreviousValue *string `json:"previousValue,omitempty"`
	NewValue      *string `json:"newValue,omitempty"`
	// PropertyChangeType is Insert, Update or Remove.
	PropertyChangeType string `json:"propertyChangeType"`
}

// Retention is how long each record is kept; 0 keeps nothing.
type Retention struct {
	Changes  time.Duration
	Activity time.Duration
}

// Log is the emulator's change history. Register it with the core
// (armcore.Core.Register): it records writes and serves the query APIs.
type Log struct {
	core *armcore.Core

	mu        sync.Mutex // guards everything below
	entries   []*Entry   // oldest first
	retention Retention
	// lastSnapshot is each resource's (by key) newest snapshot ID.
	lastSnapshot map[string]string
	journal      *os.File // nil in memory
	// journalLines counts the journal's lines, kept or since dropped.
	journalLines int
	dir          string
	now          func() time.Time
	warnings     []string
}

// Open reads the history kept in dir (none when dir is empty) and keeps it
// from now on, dropping what the retention no longer keeps.
func Open(core *armcore.Core, dir string, retention Retention) (*Log, error) {
	return open(core, dir, retention, time.Now)
}

// open is Open with a clock.
func open(core *armcore.Core, dir string, retention Retention, now func() time.Time) (*Log, error) {
	l := &Log{core: core, retention: retention, lastSnapshot: map[string]string{}, dir: dir, now: now}
	if dir == "" {
		return l, nil
	}
	path := filepath.Join(dir, JournalFile)
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil || e.ChangeID == "" {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: line %d is corrupt; skipped", JournalFile, n+1))
			continue
		}
		l.entries = append(l.entries, &e)
	}
	slices.SortStableFunc(l.entries, func(a, b *Entry) int { return a.At.Compare(b.At) })
	for _, e := range l.entries {
		l.lastSnapshot[armpath.Key(e.TargetID)] = e.NewSnapshot
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.pruneLocked(true); err != nil {
		return nil, err
	}
	return l, nil
}

// Warnings are the damaged lines found at start.
func (l *Log) Warnings() []string { return slices.Clone(l.warnings) }

// Close flushes the journal to disk.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.journal == nil {
		return nil
	}
	err := l.journal.Sync()
	if cerr := l.journal.Close(); err == nil {
		err = cerr
	}
	l.journal = nil
	return err
}

// Retention is the retention in force.
func (l *Log) Retention() Retention {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.retention
}

// SetRetention replaces the retention and drops what it no longer keeps.
func (l *Log) SetRetention(r Retention) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.retention = r
	return l.pruneLocked(false)
}

// keptFor is how long an entry is kept at all: the longer retention.
func (r Retention) keptFor() time.Duration { return max(r.Changes, r.Activity) }

// pruneLocked drops the entries older than both retentions, rewriting the
// journal when any went (or when rewrite is set, to open it).
func (l *Log) pruneLocked(rewrite bool) error {
	n := len(l.entries)
	l.entries = slices.DeleteFunc(l.entries, func(e *Entry) bool { return !l.within(e, l.retention.keptFor()) })
	if (len(l.entries) == n && !rewrite) || l.dir == "" {
		return nil
	}
	return l.rewriteLocked()
}

// within reports whether e is younger than d.
func (l *Log) within(e *Entry, d time.Duration) bool {
	return d > 0 && e.At.After(l.now().Add(-d))
}

// rewriteLocked writes the entries kept to a new journal, replacing the old one.
func (l *Log) rewriteLocked() error {
	if l.journal != nil {
		l.journal.Close()
		l.journal = nil
	}
	path := filepath.Join(l.dir, JournalFile)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, e := range l.entries {
		line, err := json.Marshal(e)
		if err != nil {
			f.Close()
			return err
		}
		w.Write(append(line, '\n'))
	}
	l.journalLines = len(l.entries)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	l.journal, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	return err
}

// add keeps e, appending it to the journal, and drops the entries the
// retention no longer keeps from the front (the oldest), rewriting the
// journal once its dropped lines outnumber the kept ones by compactAfter.
func (l *Log) add(e *Entry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	keep := l.retention.keptFor()
	i := 0
	for i < len(l.entries) && !l.within(l.entries[i], keep) {
		i++
	}
	l.entries = append(slices.Delete(l.entries, 0, i), e)
	if l.journal == nil {
		return nil
	}
	if l.journalLines > 2*len(l.entries)+compactAfter {
		return l.rewriteLocked()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	l.journalLines++
	_, err = l.journal.Write(append(line, '\n'))
	return err
}

// compactAfter is the least number of dropped lines worth rewriting the journal for.
const compactAfter = 10000

// kept are the entries younger than d, oldest first.
func (l *Log) kept(d time.Duration) []*Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*Entry
	for _, e := range l.entries {
		if l.within(e, d) {
			out = append(out, e)
		}
	}
	return out
}

// keptOf are the entries retention d keeps whose lower-cased target ID is
// in targets, oldest first: one pass over the log, with no parse or copy of
// the entries a query does not ask for.
func (l *Log) keptOf(d time.Duration, targets map[string]bool) []*Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*Entry
	for _, e := range l.entries {
		if e.lowerTarget == "" {
			e.lowerTarget = strings.ToLower(e.TargetID)
		}
		if targets[e.lowerTarget] && l.within(e, d) {
			out = append(out, e)
		}
	}
	return out
}

// RecordWrite keeps a change record of a write (armcore.WriteRecorder).
func (l *Log) RecordWrite(tx armcore.Tx, w armcore.Write) {
	if l.Retention().keptFor() <= 0 {
		return // kept for no time at all
	}
	e := &Entry{
		ChangeID:   tx.NewUUID(),
		TargetID:   w.ID,
		TargetType: w.Type,
		At:         w.At.UTC(),
		Changes:    diff(w.Before, w.After),
	}
	switch {
	case w.Before == nil:
		e.ChangeType = "Create"
	case w.After == nil:
		e.ChangeType = "Delete"
	default:
		e.ChangeType = "Update"
	}
	e.Operation = w.Type + "/write"
	if w.After == nil {
		e.Operation = w.Type + "/delete"
	}
	if r := w.Request; r != nil {
		e.Method = r.Method
		e.CorrelationID = r.Header.Get("x-ms-correlation-request-id")
		e.ClientRequestID = r.Header.Get("x-ms-client-request-id")
		e.ClientType = ClientType(r.Header.Get("User-Agent"))
		e.ChangedBy = defaultUser
		if p, ok := armcore.PrincipalOf(r); ok && p.AppID != "" {
			e.ChangedBy = p.AppID
		}
	} else {
		// A drift: someone else, in the portal.
		e.Method, e.CorrelationID = "PATCH", tx.NewUUID()
		e.ClientType, e.ChangedBy = ClientPortal, armcore.DriftPrincipal
	}
	if e.CorrelationID == "" {
		e.CorrelationID = tx.NewUUID()
	}
	k := armpath.Key(w.ID)
	l.mu.Lock()
	e.PreviousSnapshot = l.lastSnapshot[k]
	if w.Before == nil {
		e.PreviousSnapshot = ""
	}
	if w.After != nil {
		e.NewSnapshot = tx.NewUUID()
		l.lastSnapshot[k] = e.NewSnapshot
	} else {
		delete(l.lastSnapshot, k)
	}
	l.mu.Unlock()
	_ = l.add(e) // the write is done: a history that cannot be written loses the record, not the write
}

// defaultUser is the user a request acts as unless its token names an
// application: the one systemData names.
const defaultUser = "emulator@example.com"

// Client types as Azure's change records name them.
const (
	ClientPortal      = "Azure Portal"
	ClientCLI         = "Azure CLI"
	ClientPowerShell  = "Azure PowerShell"
	ClientUnspecified = "Unspecified"
)

// ClientType is the client type Azure gives a request by its User-Agent:
// the Azure CLI and Azure PowerShell are known; SDKs, Terraform and azk are not.
func ClientType(userAgent string) string {
	ua := strings.ToLower(userAgent)
	switch {
	case strings.Contains(ua, "azurecli/"):
		return ClientCLI
	case strings.Contains(ua, "azurepowershell"):
		return ClientPowerShell
	}
	return ClientUnspecified
}
