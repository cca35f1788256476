package main

import (
	"encoding/hex"
	"math/rand/v2"
	"sync"
	"time"
)

// pageTable keeps cursors server-side. A token is 20 random bytes in hex:
// it names a cursor and carries nothing else.
type pageTable struct {
	mu   sync.Mutex
	rng  *rand.Rand
	ttl  time.Duration
	rows map[string]pageCursor
}

// pageCursor is where a walk stands: after the task (unix, num), for this
// caller and this filter set.
type pageCursor struct {
	caller, filters string
	unix, num       int64
	expires         time.Time
}

func newPageTable(seed int64, ttl time.Duration) *pageTable {
	return &pageTable{rng: rand.New(rand.NewPCG(uint64(seed), 0xfeed)), ttl: ttl, rows: map[string]pageCursor{}}
}

func (p *pageTable) issue(c pageCursor) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if len(p.rows) > 10000 {
		for k, v := range p.rows {
			if now.After(v.expires) {
				delete(p.rows, k)
			}
		}
	}
	b := make([]byte, 20)
	for i := range b {
		b[i] = byte(p.rng.Uint32())
	}
	tok := hex.EncodeToString(b)
	c.expires = now.Add(p.ttl)
	p.rows[tok] = c
	return tok
}

func (p *pageTable) lookup(tok, caller, filters string) (pageCursor, *apiErr) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.rows[tok]
	switch {
	case !ok:
		return c, badField("pageToken", "unknown or malformed page token")
	case time.Now().After(c.expires):
		delete(p.rows, tok)
		return c, badField("pageToken", "the page token has expired; list from the start")
	case c.caller != caller || c.filters != filters:
		return c, badField("pageToken", "the page token belongs to another caller or another set of filters")
	}
	return c, nil
}
