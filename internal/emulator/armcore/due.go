package armcore

import (
	"container/heap"
	"math"
	"time"

	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// pendingIndex is a store.Index of the records with an operation running,
// by when it ends, so that settling the operations that are due costs what
// is due, not a scan of every record: an estate of tens of thousands of
// resources has an operation ending every few milliseconds.
type pendingIndex struct {
	until map[string]time.Time // record key -> when its operation ends
	due   dueHeap              // may hold stale entries: until decides
}

func newPendingIndex() *pendingIndex { return &pendingIndex{until: map[string]time.Time{}} }

func (p *pendingIndex) Update(old, rec *store.Record) {
	if rec == nil {
		if old != nil {
			delete(p.until, armpath.Key(old.ID))
		}
		return
	}
	k := armpath.Key(rec.ID)
	if rec.Pending == nil {
		delete(p.until, k)
		return
	}
	if t, ok := p.until[k]; ok && t.Equal(rec.Pending.Until) {
		return
	}
	p.until[k] = rec.Pending.Until
	heap.Push(&p.due, dueEntry{at: rec.Pending.Until, key: k})
}

// dueAt takes the keys whose operations end at or before now.
func (p *pendingIndex) dueAt(now time.Time) []string {
	var keys []string
	for p.due.Len() > 0 && !now.Before(p.due[0].at) {
		e := heap.Pop(&p.due).(dueEntry)
		if t, ok := p.until[e.key]; ok && t.Equal(e.at) {
			keys = append(keys, e.key)
		}
	}
	return keys
}

// next is the UnixNano when the earliest running operation ends
// (math.MaxInt64 when none).
func (p *pendingIndex) next() int64 {
	for p.due.Len() > 0 {
		e := p.due[0]
		if t, ok := p.until[e.key]; ok && t.Equal(e.at) {
			return e.at.UnixNano()
		}
		heap.Pop(&p.due)
	}
	return math.MaxInt64
}

type dueEntry struct {
	at  time.Time
	key string
}

type dueHeap []dueEntry

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueEntry)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
