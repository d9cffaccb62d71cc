package emulator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"
)

// record is one stored resource (or soft-deleted key vault).
type record struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// Parent is the key of the containing subscription, resource group or resource.
	Parent string `json:"parent"`
	// Body is the response body once any pending operation has finished.
	Body    json.RawMessage `json:"body"`
	ETag    string          `json:"etag,omitempty"`
	Created time.Time       `json:"created"`
	Pending *pending        `json:"pending,omitempty"`
	// Vault is, for a soft-deleted key vault, the vault's body for recovery.
	Vault json.RawMessage `json:"vault,omitempty"`
	// KeyGeneration counts the regenerate actions, from which the keys that
	// list actions answer are derived (see actions.go).
	KeyGeneration int `json:"keyGen,omitempty"`
}

// pending is a long-running operation still running on a record.
type pending struct {
	Op    string    `json:"op"`
	State string    `json:"state"` // Creating, Updating or Deleting
	Start time.Time `json:"start"`
	Until time.Time `json:"until"`
}

// operation is the pollable status of a long-running request.
type operation struct {
	ID       string `json:"id"`
	Resource string `json:"resource"`
	// Method is PUT for a write, whose result URL answers the resource once done.
	Method     string    `json:"method,omitempty"`
	APIVersion string    `json:"apiVersion"`
	Start      time.Time `json:"start"`
	Until      time.Time `json:"until"`
	Error      *armError `json:"error,omitempty"`
	// Hints are the Retry-After its answers give (see opTiming); nil answers the time left.
	Hints []time.Duration `json:"hints,omitempty"`
}

// journalEntry is one line of the state files: a record or operation set or
// (when both are nil) removed.
type journalEntry struct {
	Table string     `json:"t"` // "r" resources, "v" deleted vaults, "o" operations
	Key   string     `json:"k"`
	Rec   *record    `json:"r,omitempty"`
	Op    *operation `json:"o,omitempty"`
}

const (
	tableResources = "r"
	tableVaults    = "v"
	tableOps       = "o"

	snapshotFile = "state.snapshot"
	journalFile  = "state.journal"
	// compactAfter is the least number of journal lines before the journal is
	// folded into a new snapshot; compaction also waits for the journal to
	// outgrow the live state, so rewrites stay amortised O(1) per write.
	compactAfter = 10000
	// keepOperations is how long finished operations stay pollable.
	keepOperations = time.Hour
)

// store holds the state in memory and, when dir is set, mirrors each change
// as a checksummed line appended to a journal. On start the snapshot is read
// and the journal replayed; a line that fails its checksum is skipped and
// reported, the lines after it still count, and only an unterminated last
// line (a crash mid-write) is cut from the file. Compaction writes a new snapshot to a temporary
// file, syncs it and renames it over the old one, then empties the journal;
// replaying an old journal over a new snapshot is harmless because every line
// sets the final value of one key. Callers serialise access.
type store struct {
	dir      string
	lock     *os.File
	journal  *os.File
	journalN int
	// warnings report damaged lines found at start.
	warnings []string

	resources map[string]*record
	children  map[string]map[string]struct{} // parent key -> child keys
	vaults    map[string]*record
	ops       map[string]*operation
	// subnetUsers indexes, per subnet key, the IP configurations of network
	// interfaces in it (network.go).
	subnetUsers map[string]map[string]struct{}
	// loaded counts the lines read at start, to vary generated IDs across restarts.
	loaded int
}

func newStore(dir string) (*store, error) {
	st := &store{
		dir:       dir,
		resources: map[string]*record{},
		children:  map[string]map[string]struct{}{},
		vaults:    map[string]*record{},
		ops:       map[string]*operation{},

		subnetUsers: map[string]map[string]struct{}{},
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
		st.close()
		return nil, err
	}
	return st, nil
}

// load reads the snapshot and replays the journal, leaving the journal open
// for appending after its last complete line.
func (st *store) load() error {
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
	jpath := filepath.Join(st.dir, journalFile)
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
func (s *Server) Warnings() []string { return append([]string(nil), s.st.warnings...) }

// replay applies every good line of r, skipping and reporting damaged ones;
// it returns the offset after the last complete line.
func (st *store) replay(r io.Reader, name string) (end int64, err error) {
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
func (st *store) apply(e journalEntry) {
	switch e.Table {
	case tableResources:
		st.indexSubnetUsers(st.resources[e.Key], e.Rec)
		if old := st.resources[e.Key]; old != nil {
			delete(st.children[old.Parent], e.Key)
			if len(st.children[old.Parent]) == 0 {
				delete(st.children, old.Parent)
			}
			delete(st.resources, e.Key)
		}
		if e.Rec != nil {
			st.resources[e.Key] = e.Rec
			c := st.children[e.Rec.Parent]
			if c == nil {
				c = map[string]struct{}{}
				st.children[e.Rec.Parent] = c
			}
			c[e.Key] = struct{}{}
		}
	case tableVaults:
		if e.Rec == nil {
			delete(st.vaults, e.Key)
		} else {
			st.vaults[e.Key] = e.Rec
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
func (st *store) commit(e journalEntry) error {
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

func (st *store) putResource(k string, r *record) error {
	return st.commit(journalEntry{Table: tableResources, Key: k, Rec: r})
}

func (st *store) deleteResource(k string) error {
	return st.commit(journalEntry{Table: tableResources, Key: k})
}

func (st *store) putVault(k string, r *record) error {
	return st.commit(journalEntry{Table: tableVaults, Key: k, Rec: r})
}

func (st *store) deleteVault(k string) error {
	return st.commit(journalEntry{Table: tableVaults, Key: k})
}

func (st *store) putOp(op *operation) error {
	return st.commit(journalEntry{Table: tableOps, Key: op.ID, Op: op})
}

// maybeCompact folds the journal into a new snapshot when it has grown past
// both compactAfter lines and twice the live state.
func (st *store) maybeCompact(now time.Time) error {
	live := len(st.resources) + len(st.vaults) + len(st.ops)
	if st.journal == nil || st.journalN < compactAfter || st.journalN < 2*live {
		return nil
	}
	return st.compact(now)
}

func (st *store) compact(now time.Time) error {
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
	for k, r := range st.vaults {
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

// close syncs the journal to disk and releases the folder.
func (st *store) close() error {
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
