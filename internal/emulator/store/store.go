// Package store holds the emulator's state: the resources, the
// soft-deleted resources and the long-running operations, in memory and,
// with a folder, in a checksummed journal and snapshot under an exclusive
// lock. It knows records and keys, not ARM: what a record means is the
// layers' above. It is the lowest layer beside armpath.
package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Record is one stored resource (or soft-deleted key vault).
type Record struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// Parent is the key of the containing subscription, resource group or resource.
	Parent string `json:"parent"`
	// Body is the response body once any pending operation has finished.
	Body    json.RawMessage `json:"body"`
	ETag    string          `json:"etag,omitempty"`
	Created time.Time       `json:"created"`
	Pending *Pending        `json:"pending,omitempty"`
	// Vault is, for a soft-deleted key vault, the vault's body for recovery.
	Vault json.RawMessage `json:"vault,omitempty"`
	// KeyGeneration counts the regenerate actions that named no key (which
	// change every key), from which the keys that list actions answer are derived.
	KeyGeneration int `json:"keyGen,omitempty"`
	// KeyGenerations count the regenerate actions that named one key, by
	// the key's slot ("primary", "secondary", "primaryreadonly", ...): that
	// key alone changes.
	KeyGenerations map[string]int `json:"keyGens,omitempty"`
}

// Pending is a long-running operation still running on a record.
type Pending struct {
	Op    string    `json:"op"`
	State string    `json:"state"` // Creating, Updating or Deleting
	Start time.Time `json:"start"`
	Until time.Time `json:"until"`
}

// Operation is the pollable status of a long-running request.
type Operation struct {
	ID       string `json:"id"`
	Resource string `json:"resource"`
	// Method is PUT for a write, whose result URL answers the resource once done.
	Method     string          `json:"method,omitempty"`
	APIVersion string          `json:"apiVersion"`
	Start      time.Time       `json:"start"`
	Until      time.Time       `json:"until"`
	Error      *OperationError `json:"error,omitempty"`
	// Hints are the Retry-After its answers give (see armcore's timing); nil answers the time left.
	Hints []time.Duration `json:"hints,omitempty"`
	// Result is what the operation's result URL answers once it is done,
	// for an action whose answer is no resource (a group's exportTemplate).
	Result json.RawMessage `json:"result,omitempty"`
}

// OperationError is the ARM error a failed operation ends with.
type OperationError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// journalEntry is one line of the state files: a record or operation set or
// (when both are nil) removed.
type journalEntry struct {
	Table string     `json:"t"` // "r" resources, "v" deleted vaults, "o" operations
	Key   string     `json:"k"`
	Rec   *Record    `json:"r,omitempty"`
	Op    *Operation `json:"o,omitempty"`
}

const (
	tableResources = "r"
	tableVaults    = "v"
	tableOps       = "o"

	snapshotFile = "state.snapshot"
	// JournalFile is the journal's name in the state folder.
	JournalFile = "state.journal"
	// compactAfter is the least number of journal lines before the journal is
	// folded into a new snapshot; compaction also waits for the journal to
	// outgrow the live state, so rewrites stay amortised O(1) per write.
	compactAfter = 10000
	// keepOperations is how long finished operations stay pollable.
	keepOperations = time.Hour
)

// Index keeps a view derived from the resources current (such as which
// network interfaces are in a subnet): Update is called with the old and
// the new record of a key (either nil) before every change, including those
// replayed at start.
type Index interface {
	Update(old, rec *Record)
}

// Store holds the state in memory and, when dir is set, mirrors each change
// as a checksummed line appended to a journal. On start the snapshot is read
// and the journal replayed; a line that fails its checksum is skipped and
// reported, the lines after it still count, and only an unterminated last
// line (a crash mid-write) is cut from the file. Compaction writes a new snapshot to a temporary
// file, syncs it and renames it over the old one, then empties the journal;
// replaying an old journal over a new snapshot is harmless because every line
// sets the final value of one key. Callers serialise access.
type Store struct {
	dir      string
	lock     *os.File
	journal  *os.File
	journalN int
	// warnings report damaged lines found at start.
	warnings []string

	resources map[string]*Record
	children  map[string]map[string]struct{} // parent key -> child keys
	// byType are the keys of each type (lower case), so that what looks
	// for the resources of a type (policy assignments, the holders of a
	// name) costs those, not every resource.
	byType map[string]map[string]struct{}
	// deleted are soft-deleted resources (key vaults), kept apart from the
	// live ones; the journal calls their table "v".
	deleted map[string]*Record
	ops     map[string]*Operation
	indexes []Index
	// loaded counts the lines read at start, to vary generated IDs across restarts.
	loaded int
}

// Open opens (or creates) the state in dir, keeping indexes current from
// the first replayed line on; an empty dir keeps the state in memory only.
func Open(dir string, indexes ...Index) (*Store, error) {
	st := &Store{
		dir:       dir,
		resources: map[string]*Record{},
		children:  map[string]map[string]struct{}{},
		byType:    map[string]map[string]struct{}{},
		deleted:   map[string]*Record{},
		ops:       map[string]*Operation{},
		indexes:   indexes,
	}
	if dir == "" {
		return st, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	st.lock = lock
	if err := st.load(); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// load reads the snapshot and replays the journal, leaving the journal open
// for appending after its last complete line.
func (st *Store) load() error {
	snap := filepath.Join(st.dir, snapshotFile)
	if f, err := os.Open(snap); err == nil {
		_, err := st.replay(f, snap)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", snap, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	jpath := filepath.Join(st.dir, JournalFile)
	j, err := os.OpenFile(jpath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	st.journal = j
	end, err := st.replay(j, jpath)
	if err != nil {
		return fmt.Errorf("%s: %w", jpath, err)
	}
	// Cut only an unterminated tail, so that new lines start on a line of their own.
	if err := j.Truncate(end); err != nil {
		return err
	}
	_, err = j.Seek(end, io.SeekStart)
	return err
}

// Warnings reports the damaged lines of the state files found at start;
// each was skipped and the rest of the state loaded.
func (st *Store) Warnings() []string { return append([]string(nil), st.warnings...) }

// Loaded counts the lines read at start, so that generated IDs can vary
// across restarts.
func (st *Store) Loaded() int { return st.loaded }

// replay applies every good line of r, skipping and reporting damaged ones;
// it returns the offset after the last complete line.
func (st *Store) replay(r io.Reader, name string) (end int64, err error) {
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				st.warnings = append(st.warnings, fmt.Sprintf("%s: line %d is incomplete (a write cut short); dropped", name, n))
			}
			return end, nil
		}
		if err != nil {
			return end, err
		}
		end += int64(len(line))
		st.journalN++
		e, ok := decodeLine(line)
		if !ok {
			st.warnings = append(st.warnings, fmt.Sprintf("%s: line %d is corrupt (checksum or JSON); skipped, the lines after it were kept", name, n))
			continue
		}
		st.apply(e)
		st.loaded++
	}
}

func encodeLine(e journalEntry) ([]byte, error) {
	payload, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(payload)+10)
	line = fmt.Appendf(line, "%08x ", crc32.ChecksumIEEE(payload))
	line = append(line, payload...)
	return append(line, '\n'), nil
}

func decodeLine(line []byte) (journalEntry, bool) {
	var e journalEntry
	line = bytes.TrimSuffix(line, []byte("\n"))
	if len(line) < 10 || line[8] != ' ' {
		return e, false
	}
	var sum uint32
	if _, err := fmt.Sscanf(string(line[:8]), "%08x", &sum); err != nil {
		return e, false
	}
	payload := line[9:]
	if crc32.ChecksumIEEE(payload) != sum {
		return e, false
	}
	return e, json.Unmarshal(payload, &e) == nil
}

// apply changes memory only.
func (st *Store) apply(e journalEntry) {
	switch e.Table {
	case tableResources:
		for _, ix := range st.indexes {
			ix.Update(st.resources[e.Key], e.Rec)
		}
		if old := st.resources[e.Key]; old != nil {
			unlink(st.children, old.Parent, e.Key)
			unlink(st.byType, strings.ToLower(old.Type), e.Key)
			delete(st.resources, e.Key)
		}
		if e.Rec != nil {
			st.resources[e.Key] = e.Rec
			link(st.children, e.Rec.Parent, e.Key)
			link(st.byType, strings.ToLower(e.Rec.Type), e.Key)
		}
	case tableVaults:
		if e.Rec == nil {
			delete(st.deleted, e.Key)
		} else {
			st.deleted[e.Key] = e.Rec
		}
	case tableOps:
		if e.Op == nil {
			delete(st.ops, e.Key)
		} else {
			st.ops[e.Key] = e.Op
		}
	}
}

// commit applies e and appends it to the journal.
func (st *Store) commit(e journalEntry) error {
	if st.journal != nil {
		line, err := encodeLine(e)
		if err != nil {
			return err
		}
		if _, err := st.journal.Write(line); err != nil {
			return fmt.Errorf("writing emulator journal: %w", err)
		}
		st.journalN++
	}
	st.apply(e)
	return nil
}

// Resource is the record under key k, or nil.
func (st *Store) Resource(k string) *Record { return st.resources[k] }

// AddIndex keeps ix current from now on, after telling it of every record.
func (st *Store) AddIndex(ix Index) {
	for _, rec := range st.resources {
		ix.Update(nil, rec)
	}
	st.indexes = append(st.indexes, ix)
}

// OfType yields the resource records of type typ (case-insensitive) by key,
// in no order.
func (st *Store) OfType(typ string) iter.Seq2[string, *Record] {
	return func(yield func(string, *Record) bool) {
		for k := range st.byType[strings.ToLower(typ)] {
			if !yield(k, st.resources[k]) {
				return
			}
		}
	}
}

// OfNamespace yields the resource records of every type of the resource
// provider namespace ns (case-insensitive) by key, in no order.
func (st *Store) OfNamespace(ns string) iter.Seq2[string, *Record] {
	prefix := strings.ToLower(ns) + "/"
	return func(yield func(string, *Record) bool) {
		for typ, keys := range st.byType {
			if !strings.HasPrefix(typ, prefix) {
				continue
			}
			for k := range keys {
				if !yield(k, st.resources[k]) {
					return
				}
			}
		}
	}
}

// link adds k to the set under group; unlink removes it, and the set once empty.
func link(sets map[string]map[string]struct{}, group, k string) {
	set := sets[group]
	if set == nil {
		set = map[string]struct{}{}
		sets[group] = set
	}
	set[k] = struct{}{}
}

func unlink(sets map[string]map[string]struct{}, group, k string) {
	delete(sets[group], k)
	if len(sets[group]) == 0 {
		delete(sets, group)
	}
}

// Resources yields every resource record by key, in no order.
func (st *Store) Resources() iter.Seq2[string, *Record] { return maps.All(st.resources) }

// Children yields the keys of the records whose Parent is k, in no order.
func (st *Store) Children(k string) iter.Seq[string] { return maps.Keys(st.children[k]) }

// PutResource sets the record under key k.
func (st *Store) PutResource(k string, r *Record) error {
	return st.commit(journalEntry{Table: tableResources, Key: k, Rec: r})
}

// DeleteResource removes the record under key k.
func (st *Store) DeleteResource(k string) error {
	return st.commit(journalEntry{Table: tableResources, Key: k})
}

// Deleted is the soft-deleted record under key k, or nil.
func (st *Store) Deleted(k string) *Record { return st.deleted[k] }

// DeletedRecords yields every soft-deleted record by key, in no order.
func (st *Store) DeletedRecords() iter.Seq2[string, *Record] { return maps.All(st.deleted) }

// PutDeleted sets the soft-deleted record under key k.
func (st *Store) PutDeleted(k string, r *Record) error {
	return st.commit(journalEntry{Table: tableVaults, Key: k, Rec: r})
}

// Purge removes the soft-deleted record under key k.
func (st *Store) Purge(k string) error {
	return st.commit(journalEntry{Table: tableVaults, Key: k})
}

// Op is the operation of ID id (lower-cased), or nil.
func (st *Store) Op(id string) *Operation { return st.ops[id] }

// PutOp sets an operation.
func (st *Store) PutOp(op *Operation) error {
	return st.commit(journalEntry{Table: tableOps, Key: op.ID, Op: op})
}

// MaybeCompact folds the journal into a new snapshot when it has grown past
// both compactAfter lines and twice the live state.
func (st *Store) MaybeCompact(now time.Time) error {
	live := len(st.resources) + len(st.deleted) + len(st.ops)
	if st.journal == nil || st.journalN < compactAfter || st.journalN < 2*live {
		return nil
	}
	return st.Compact(now)
}

// Compact folds the journal into a new snapshot and empties it.
func (st *Store) Compact(now time.Time) error {
	for id, op := range st.ops {
		if now.Sub(op.Until) > keepOperations {
			delete(st.ops, id)
		}
	}
	tmp := filepath.Join(st.dir, snapshotFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	n := 0
	write := func(e journalEntry) error {
		line, err := encodeLine(e)
		if err == nil {
			_, err = bw.Write(line)
		}
		n++
		return err
	}
	for k, r := range st.resources {
		if err = write(journalEntry{Table: tableResources, Key: k, Rec: r}); err != nil {
			break
		}
	}
	for k, r := range st.deleted {
		if err == nil {
			err = write(journalEntry{Table: tableVaults, Key: k, Rec: r})
		}
	}
	for _, op := range st.ops {
		if err == nil {
			err = write(journalEntry{Table: tableOps, Key: op.ID, Op: op})
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(st.dir, snapshotFile))
	}
	if err == nil {
		err = syncDir(st.dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("compacting emulator state: %w", err)
	}
	if err := st.journal.Truncate(0); err != nil {
		return err
	}
	if _, err := st.journal.Seek(0, io.SeekStart); err != nil {
		return err
	}
	st.journalN = 0
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Close syncs the journal to disk and releases the folder.
func (st *Store) Close() error {
	var err error
	if st.journal != nil {
		err = st.journal.Sync()
		if cerr := st.journal.Close(); err == nil {
			err = cerr
		}
		st.journal = nil
	}
	if st.lock != nil {
		st.lock.Close() // closing the descriptor releases the flock
		st.lock = nil
	}
	return err
}
