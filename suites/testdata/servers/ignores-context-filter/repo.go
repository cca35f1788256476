package main

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// ticket is a stored task.
type ticket struct {
	id                    string
	num                   int64
	owner, context, state string
	at                    time.Time
	history, artifacts    []map[string]any
}

// newer is the listing order: newest status timestamp first, ties by the
// larger ticket number first.
func newer(a, b *ticket) bool {
	if !a.at.Equal(b.at) {
		return a.at.After(b.at)
	}
	return a.num > b.num
}

// wire renders the task; history < 0 means all of it.
func (t *ticket) wire(history int, artifacts bool) map[string]any {
	m := map[string]any{"id": t.id, "contextId": t.context, "status": map[string]any{"state": t.state, "timestamp": t.at.UTC().Format("2006-01-02T15:04:05.000Z")}}
	h := t.history
	if history >= 0 && history < len(h) {
		h = h[len(h)-history:]
	}
	if len(h) > 0 {
		m["history"] = h
	}
	if artifacts && len(t.artifacts) > 0 {
		m["artifacts"] = t.artifacts
	}
	return m
}

// repo keeps every task in one slice, in the order they were created.
type repo struct {
	mu   sync.Mutex
	all  []*ticket
	byID map[string]*ticket
	rng  *rand.Rand
	next int64
}

func newRepo(seed int64) *repo {
	return &repo{byID: map[string]*ticket{}, rng: rand.New(rand.NewPCG(uint64(seed), 3)), next: 100000}
}

func (r *repo) add(t *ticket) {
	r.next++
	t.num = r.next
	t.id = fmt.Sprintf("tk-%08x", r.rng.Uint32())
	r.all = append(r.all, t)
	r.byID[t.id] = t
}

func (r *repo) mine(who, id string) *ticket {
	if t := r.byID[id]; t != nil && t.owner == who {
		return t
	}
	return nil
}

var desks = []string{"it", "hr", "payroll", "facilities", "security", "travel", "finance", "legal"}

// fill creates each principal's tickets. Tickets raised by the same
// automation run share a millisecond. It returns the newest timestamp.
func (r *repo) fill(principals []string, n int, seed int64) time.Time {
	var newest time.Time
	for pi, who := range principals {
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(1000+pi)))
		count := n * 3 / (3 + 2*pi)
		at := time.Date(2026, 9, 14, 6, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(7200)) * time.Second)
		load := map[string]int{}
		for i := 0; i < count; i++ {
			if i == 0 || rng.IntN(4) != 0 {
				at = at.Add(time.Duration(1+rng.IntN(1800_000)) * time.Millisecond)
			}
			ctx := ""
			for ctx == "" || load[ctx] >= 80 {
				ctx = fmt.Sprintf("%s-%d", desks[rng.IntN(len(desks))], rng.IntN(count/300+2))
			}
			load[ctx]++
			state := stateNames[1+rng.IntN(8)]
			if i < 8 {
				state = stateNames[1+i]
			}
			t := &ticket{owner: who, context: ctx, state: state, at: at}
			r.add(t)
			for k := 0; k < rng.IntN(10); k++ {
				role := "ROLE_USER"
				if k%2 == 1 {
					role = "ROLE_AGENT"
				}
				t.history = append(t.history, msg(fmt.Sprintf("%s.%d", t.id, k), role, ctx, t.id, fmt.Sprintf("ticket %s, note %d", t.id, k)))
			}
			if state == "TASK_STATE_COMPLETED" && rng.IntN(4) != 0 || rng.IntN(15) == 0 {
				t.artifacts = append(t.artifacts, map[string]any{"artifactId": t.id + ".resolution", "name": "resolution",
					"parts": []any{map[string]any{"text": "resolution of ticket " + t.id}}})
			}
			if at.After(newest) {
				newest = at
			}
		}
	}
	return newest
}

func msg(id, role, ctx, task, text string) map[string]any {
	return map[string]any{"messageId": id, "role": role, "contextId": ctx, "taskId": task, "parts": []any{map[string]any{"text": text}}}
}

// clock stamps writes in milliseconds: logical when step > 0, else the
// wall clock, never going backwards.
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
	t := time.Now()
	if c.step > 0 {
		t = c.last.Add(c.step)
	}
	t = t.UTC().Truncate(time.Millisecond)
	if t.Before(c.last) {
		t = c.last
	}
	c.last = t
	return t
}
