package main

import (
	"sync"
	"time"
)

// precision is the resolution of every status timestamp this server keeps.
const precision = time.Nanosecond

// clock stamps writes. With a step it is logical: every reading advances it
// by step, so two writes in a row never tie. Otherwise it reads the wall
// clock, never going backwards.
type clock struct {
	mu   sync.Mutex
	step time.Duration
	last time.Time
}

func newClock(step time.Duration, after time.Time) *clock {
	return &clock{step: step, last: after.Add(time.Hour).Truncate(time.Hour)}
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.step > 0 {
		c.last = c.last.Add(c.step).Truncate(precision)
		return c.last
	}
	t := time.Now().UTC().Truncate(precision)
	if t.Before(c.last) {
		t = c.last
	}
	c.last = t
	return t
}

// stamp renders a timestamp the way this server writes them: RFC 3339 in
// UTC with nine fractional digits.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }
