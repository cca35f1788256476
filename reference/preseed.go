package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Preseed describes the data a server fills its store with at start (serve
// --preseed N), so that a black-box check (no control API) has realistic
// data to judge: for every principal, Tasks tasks in the default tenant.
//
// The layout, the same for every principal (each from its own generator,
// seeded from Seed and the principal's name, so a run reproduces):
//
//   - Task ids are "pre-<principal>-" and 16 hex digits drawn at random, so
//     id order is unrelated to time order.
//   - Timestamps run back from PreseedEpoch (2026-01-01T00:00:00Z), newest
//     first, in groups: a group of tasks shares one status timestamp (a tie
//     group). Most groups hold one task; others 2 to 5, 6 to 30 or 31 to 120
//     tasks. Fixed groups straddle the page boundaries of the common page
//     sizes: 7 tasks around position 100, 30 around 250 and 101 around 500
//     (positions count from the newest task), when Tasks reaches them. Half
//     the groups sit on a whole second (ties at second precision), the
//     others on a random microsecond; between groups the clock steps back
//     1 µs, a few milliseconds or a few seconds.
//   - Contexts "pre-<principal>-ctx-00" ... (Tasks/250, at least 3 and at
//     most 16), the first ones largest.
//   - Every TaskState but UNSPECIFIED (once Tasks is at least 8): about
//     half COMPLETED, the rest spread over the others.
//   - About 30% of the tasks have a history of 1 to 6 messages, and about
//     25% have 1 to 3 artifacts (the same generated messages and artifacts
//     as the control API's seed).
type Preseed struct {
	Tasks int
	Seed  uint64
}

// PreseedEpoch is the newest preseeded status timestamp.
var PreseedEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// MaxPreseed bounds Preseed.Tasks per principal.
const MaxPreseed = 10_000_000

// WithPreseed fills the store at start with n tasks per principal, laid
// out as Preseed describes, from the given seed. A store that already
// holds this preseed is left alone; one that holds another is an error.
func WithPreseed(n int, seed uint64) Option {
	return func(c *config) error {
		if n < 0 || n > MaxPreseed {
			return paramErr("preseed", "must be between 0 and %d tasks per principal, got %d", MaxPreseed, n)
		}
		c.preseed = Preseed{Tasks: n, Seed: seed}
		return nil
	}
}

// preseedMeta records in the store which preseed it holds.
type preseedMeta struct {
	Tasks      int      `json:"tasks"`
	Seed       uint64   `json:"seed"`
	Principals []string `json:"principals"`
}

// preseed fills the store as p describes, once.
func (s *Server) preseed(ctx context.Context, p Preseed) error {
	if p.Tasks == 0 {
		return nil
	}
	want := preseedMeta{Tasks: p.Tasks, Seed: p.Seed, Principals: s.cfg.principalNames}
	v, ok, err := s.store.GetMeta(ctx, "preseed")
	if err != nil {
		return err
	}
	if ok {
		var have preseedMeta
		if json.Unmarshal([]byte(v), &have) == nil && have.Tasks == want.Tasks && have.Seed == want.Seed && slices.Equal(have.Principals, want.Principals) {
			return nil // a restart on the same store
		}
		return paramErr("preseed", "the store already holds another preseed (%s); start on a fresh database", v)
	}
	w, err := s.store.beginSeed(ctx)
	if err != nil {
		return err
	}
	defer w.rollback()
	for _, owner := range s.cfg.principalNames {
		for t := range preseedTasks(owner, p) {
			if err := w.add(ctx, t, "preseed"); err != nil {
				return err
			}
		}
	}
	if err := w.commit(ctx); err != nil {
		return err
	}
	b, _ := json.Marshal(want)
	return s.store.SetMeta(ctx, "preseed", string(b))
}

// preseedStates are drawn with these weights (out of 100).
var preseedStates = []struct {
	state  State
	weight int
}{
	{StateCompleted, 50}, {StateFailed, 10}, {StateWorking, 10}, {StateCanceled, 8},
	{StateInputRequired, 8}, {StateSubmitted, 6}, {StateRejected, 4}, {StateAuthRequired, 4},
}

// preseedTasks yields owner's preseeded tasks, newest first.
func preseedTasks(owner string, p Preseed) func(yield func(SeedTask) bool) {
	return func(yield func(SeedTask) bool) {
		h := uint64(14695981039346656037) // FNV-1a of the owner's name
		for _, c := range []byte(owner) {
			h = (h ^ uint64(c)) * 1099511628211
		}
		rng := rand.New(rand.NewPCG(p.Seed, h))
		n := p.Tasks
		nctx := min(max(3, n/250), 16)
		// Fixed tie groups that straddle common page boundaries: start
		// position -> width.
		fixed := map[int]int{97: 7, 235: 30, 450: 101}
		// Every state appears once n allows: these positions get the states
		// the draw would otherwise be left to.
		forced := map[int]State{}
		for k, st := range preseedStates {
			if n >= len(preseedStates) {
				forced[(2*k+1)*n/(2*len(preseedStates))] = st.state
			}
		}
		seen := map[string]bool{}
		ts := PreseedEpoch.UnixMicro()
		for i := 0; i < n; {
			width, ok := fixed[i]
			if !ok {
				switch r := rng.IntN(100); {
				case r < 70:
					width = 1
				case r < 90:
					width = 2 + rng.IntN(4)
				case r < 97:
					width = 6 + rng.IntN(25)
				default:
					width = 31 + rng.IntN(90)
				}
				// Do not run into the next fixed group.
				for start := range fixed {
					if start > i && start < i+width {
						width = min(width, start-i)
					}
				}
			}
			width = min(width, n-i)
			prev := ts
			switch r := rng.IntN(10); {
			case r < 2:
				ts--
			case r < 5:
				ts -= int64(1+rng.IntN(50)) * 1000
			default:
				ts -= int64(1+rng.IntN(30)) * 1_000_000
			}
			if rng.IntN(2) == 0 { // a tie at second precision
				ts -= ts % 1_000_000
				if ts == prev {
					ts -= 1_000_000
				}
			}
			for range width {
				id := fmt.Sprintf("pre-%s-%016x", owner, rng.Uint64())
				for seen[id] {
					id = fmt.Sprintf("pre-%s-%016x", owner, rng.Uint64())
				}
				seen[id] = true
				t := SeedTask{ID: id, Owner: owner, TS: ts,
					ContextID: fmt.Sprintf("pre-%s-ctx-%02d", owner, skewed(rng, nctx)), State: drawState(rng)}
				if st, ok := forced[i]; ok {
					t.State = st
				}
				if rng.IntN(100) < 30 {
					t.History = 1 + rng.IntN(6)
				}
				if rng.IntN(100) < 25 {
					t.Artifacts = 1 + rng.IntN(3)
				}
				if !yield(t) {
					return
				}
				i++
			}
		}
	}
}

// skewed draws 0..n-1 with weight 1/(k+1): the first contexts are largest.
func skewed(rng *rand.Rand, n int) int {
	var total float64
	for k := range n {
		total += 1 / float64(k+1)
	}
	x := rng.Float64() * total
	for k := range n {
		if x -= 1 / float64(k+1); x < 0 {
			return k
		}
	}
	return n - 1
}

func drawState(rng *rand.Rand) State {
	r := rng.IntN(100)
	for _, s := range preseedStates {
		if r -= s.weight; r < 0 {
			return s.state
		}
	}
	return StateCompleted
}
