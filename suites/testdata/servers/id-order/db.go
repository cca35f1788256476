package main

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// record is a stored task. Messages and artifacts are kept as decoded JSON.
// Its id is a ULID minted when it was created.
type record struct {
	ID, Owner, Context, State string
	Created, Stamp            time.Time
	History                   []map[string]any
	Artifacts                 []map[string]any
}

// db keeps tasks by id and, per owner, an index sorted the way ListTasks
// serves them: newest first, by ULID (which begins with the creation time).
type db struct {
	mu    sync.Mutex
	rows  map[string]*record
	index map[string][]*record
	rnd   *rand.Rand
}

func newDB(seed uint64) *db {
	return &db{rows: map[string]*record{}, index: map[string][]*record{}, rnd: rand.New(rand.NewPCG(seed, 99))}
}

// less is the listing order.
func less(a, b *record) bool { return a.ID > b.ID }

func cmp(a, b *record) int {
	switch {
	case less(a, b):
		return -1
	case less(b, a):
		return 1
	}
	return 0
}

// put inserts a new task into its owner's index.
func (d *db) put(r *record) {
	ix := d.index[r.Owner]
	i, _ := slices.BinarySearchFunc(ix, r, cmp)
	d.index[r.Owner] = slices.Insert(ix, i, r)
	d.rows[r.ID] = r
}

// update applies change to a stored task, moving it in the index: it is
// taken out under its old stamp and put back under the new one.
func (d *db) update(r *record, change func()) {
	ix := d.index[r.Owner]
	if i, ok := slices.BinarySearchFunc(ix, r, cmp); ok {
		d.index[r.Owner] = slices.Delete(ix, i, i+1)
	}
	change()
	d.put(r)
}

// find returns the caller's task, or nil (also for another owner's).
func (d *db) find(owner, id string) *record {
	if r := d.rows[id]; r != nil && r.Owner == owner {
		return r
	}
	return nil
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// newULID returns a ULID for a task created at t: 48 bits of Unix
// milliseconds and 80 random bits, in Crockford base32.
func (d *db) newULID(t time.Time) string {
	var b [26]byte
	ms := uint64(t.UnixMilli())
	for i := 9; i >= 0; i-- {
		b[i] = crockford[ms&31]
		ms >>= 5
	}
	hi, lo := d.rnd.Uint64()&(1<<40-1), d.rnd.Uint64()&(1<<40-1)
	for i := 25; i >= 18; i-- {
		b[i] = crockford[lo&31]
		lo >>= 5
	}
	for i := 17; i >= 10; i-- {
		b[i] = crockford[hi&31]
		hi >>= 5
	}
	return string(b[:])
}

func (d *db) newID(prefix string) string {
	b := make([]byte, 12)
	for i := range b {
		b[i] = crockford[d.rnd.IntN(32)]
	}
	return prefix + string(b)
}

// clock stamps writes in milliseconds: a logical clock when step is set,
// else the wall clock (never going backwards).
type clock struct {
	mu   sync.Mutex
	step time.Duration
	last time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := time.Now().UTC()
	if c.step > 0 {
		t = c.last.Add(c.step)
	}
	t = t.Truncate(time.Millisecond)
	if t.Before(c.last) {
		t = c.last
	}
	c.last = t
	return t
}

func formatStamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
