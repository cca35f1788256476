package main

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"
)

// store keeps every task in memory, per owner.
type store struct {
	mu      sync.Mutex
	byID    map[string]*task
	byOwner map[string][]*task
	rng     *rand.Rand
	next    int
}

func newStore(seed int64) *store {
	return &store{byID: map[string]*task{}, byOwner: map[string][]*task{}, rng: rand.New(rand.NewPCG(uint64(seed), 0x5eed))}
}

// newID returns the next id in sequence: T-000001, T-000002, ...
func (s *store) newID() string {
	s.next++
	return fmt.Sprintf("T-%06d", s.next)
}

// newContextID returns a context id for a conversation the client did not
// name.
func (s *store) newContextID() string {
	return fmt.Sprintf("conv-%08x", s.rng.Uint32())
}

func (s *store) add(t *task) {
	s.byID[t.id] = t
	s.byOwner[t.owner] = append(s.byOwner[t.owner], t)
}

func (s *store) newest() time.Time {
	var n time.Time
	for _, t := range s.byID {
		if t.ts.After(n) {
			n = t.ts
		}
	}
	return n
}

// get returns the caller's task; another owner's task is "not found".
func (s *store) get(owner, id string) *task {
	t := s.byID[id]
	if t == nil || t.owner != owner {
		return nil
	}
	return t
}

// query is a validated ListTasks request.
type query struct {
	contextID string
	state     string
	after     time.Time // zero: no filter
	pageSize  int
	history   int // -1: unset
	artifacts bool
	cursor    *cursor
}

// cursor is the sort key of the last task served.
type cursor struct {
	TS time.Time
	ID string
}

// before reports whether t sorts after the cursor (newest first, then by id
// descending).
func (c *cursor) before(t *task) bool {
	return t.ts.Before(c.TS) || (t.ts.Equal(c.TS) && t.id < c.ID)
}

// list returns one page, whether more follow, and the filtered total.
func (s *store) list(owner string, q query) (page []*task, more bool, total int) {
	var match []*task
	for _, t := range s.byOwner[owner] {
		if (q.contextID == "" || t.contextID == q.contextID) && (q.state == "" || t.state == q.state) &&
			(q.after.IsZero() || !t.ts.Before(q.after)) {
			match = append(match, t)
		}
	}
	sort.Slice(match, func(i, j int) bool {
		a, b := match[i], match[j]
		if !a.ts.Equal(b.ts) {
			return a.ts.After(b.ts)
		}
		return a.id > b.id
	})
	start := 0
	if q.cursor != nil {
		start = sort.Search(len(match), func(i int) bool { return q.cursor.before(match[i]) })
	}
	end := min(start+q.pageSize, len(match))
	return match[start:end], end < len(match), len(match)
}
