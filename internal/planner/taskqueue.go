package planner

import (
	"container/heap"
	"sync"
)

// taskQueue holds tasks until a worker takes them: the one of highest
// priority first, then the first queued. One subscription's reads wait by
// maker.readPriority: in order of arrival alone, the reads that more reads
// wait for (a network whose subnets are read next, a list serving hundreds)
// would wait behind every leaf queued before them.
type taskQueue struct {
	mu    sync.Mutex
	tasks taskHeap
	next  uint64
	// ready holds a token for each task queued.
	ready chan struct{}
}

// newTaskQueue is a queue for at most n tasks.
func newTaskQueue(n int) *taskQueue {
	return &taskQueue{ready: make(chan struct{}, n)}
}

func (q *taskQueue) push(priority float64, task func()) {
	q.mu.Lock()
	heap.Push(&q.tasks, queuedTask{priority: priority, arrival: q.next, run: task})
	q.next++
	q.mu.Unlock()
	q.ready <- struct{}{}
}

// pop takes the first task; a worker calls it once for each token it takes
// from ready.
func (q *taskQueue) pop() func() {
	q.mu.Lock()
	defer q.mu.Unlock()
	return heap.Pop(&q.tasks).(queuedTask).run
}

type queuedTask struct {
	priority float64
	arrival  uint64
	run      func()
}

type taskHeap []queuedTask

func (h taskHeap) Len() int { return len(h) }
func (h taskHeap) Less(i, j int) bool {
	if h[i].priority != h[j].priority {
		return h[i].priority > h[j].priority
	}
	return h[i].arrival < h[j].arrival
}
func (h taskHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *taskHeap) Push(x any)   { *h = append(*h, x.(queuedTask)) }
func (h *taskHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
