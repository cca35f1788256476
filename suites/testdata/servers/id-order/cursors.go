package main

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// cursors keeps page cursors server-side; a token is a random key into
// this table, so it carries nothing a client could edit. A cursor is bound
// to its caller and filter set, and expires.
type cursors struct {
	mu   sync.Mutex
	rnd  *rand.Rand
	ttl  time.Duration
	byID map[string]cursor
}

type cursor struct {
	who, binding, after string
	expires             time.Time
}

func newCursors(seed uint64, ttl time.Duration) *cursors {
	return &cursors{rnd: rand.New(rand.NewPCG(seed, 0xc0de)), ttl: ttl, byID: map[string]cursor{}}
}

func (c *cursors) put(who, binding, after string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	for k, v := range c.byID {
		if now.After(v.expires) {
			delete(c.byID, k)
		}
	}
	key := fmt.Sprintf("pg_%016x%016x", c.rnd.Uint64(), c.rnd.Uint64())
	c.byID[key] = cursor{who: who, binding: binding, after: after, expires: now.Add(c.ttl)}
	return key
}

func (c *cursors) take(key, who, binding string) (cursor, *failure) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.byID[key]
	switch {
	case !ok:
		return v, badParam("pageToken", "pageToken: unknown page token")
	case time.Now().After(v.expires):
		return v, badParam("pageToken", "pageToken: expired, list again from the first page")
	case v.who != who:
		return v, badParam("pageToken", "pageToken: issued to another caller")
	case v.binding != binding:
		return v, badParam("pageToken", "pageToken: issued for other filters; keep the filters of the first page")
	}
	return v, nil
}
