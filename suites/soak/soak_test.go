// Package soak_test is the soak of issue 12 (Build 5): many walkers walk a
// static data set in the reference while writers change everything around
// it, for a set duration; every walk must return the static set exactly, in
// order. It is not a CI test: it runs only when PAGEWALK_SOAK gives its
// duration (make soak sets it from SOAK, default 60s).
package soak_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	"github.com/pagewalk/pagewalk/suites"
)

// The soak's shape; PAGEWALK_SOAK_WALKERS and PAGEWALK_SOAK_TASKS change
// the first two, and PAGEWALK_SOAK_FAULT names a reference fault mode to
// soak instead of the clean reference.
const (
	defaultWalkers = 50
	defaultTasks   = 1000
	staticContext  = "soak-static"
	// syncEvery: one walk in this many is an a2aclient.Sync (main walk and
	// catch-up pass) instead of a plain walk.
	syncEvery = 5
	seedBatch = 50
)

// The states the static tasks cycle through; walkers filter on the first.
var staticStates = []string{"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED"}

// tally counts what the soak did. Violations are walks that did not return
// the static set exactly: a duplicate, a gap, an order break, an id from
// outside the set, or a walk that ended early.
type tally struct {
	walks, syncs, pages, tasks                   atomic.Int64
	seeded, moved, messages, writeErrors         atomic.Int64
	duplicates, gaps, orderBreaks, foreign, ends atomic.Int64
	violations                                   atomic.Int64

	mu      sync.Mutex
	details []string
}

func (t *tally) violation(format string, args ...any) {
	t.violations.Add(1)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.details) < 20 {
		t.details = append(t.details, fmt.Sprintf(format, args...))
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func TestSoak(t *testing.T) {
	spec := os.Getenv("PAGEWALK_SOAK")
	if spec == "" {
		t.Skip("a soak, not a CI test: set PAGEWALK_SOAK to its duration (make soak SOAK=60s)")
	}
	duration, err := time.ParseDuration(spec)
	if err != nil || duration <= 0 {
		t.Fatalf("PAGEWALK_SOAK: want a duration such as 60s, got %q", spec)
	}
	walkers, n := envInt("PAGEWALK_SOAK_WALKERS", defaultWalkers), envInt("PAGEWALK_SOAK_TASKS", defaultTasks)

	var faults []string // PAGEWALK_SOAK_FAULT runs it against a fault mode, to see it fail
	if f := os.Getenv("PAGEWALK_SOAK_FAULT"); f != "" {
		faults = append(faults, f)
	}
	ref, err := suites.StartInProcess(faults...)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 2 * walkers // one kept-alive connection per walker and writer
	hc := a2aclient.NewHTTPClient(a2aclient.HTTPOptions{Transport: base})
	ctx := context.Background()
	target, err := suites.ReferenceTarget(ctx, ref, hc)
	if err != nil {
		t.Fatal(err)
	}
	ctl := target.Control

	// The static set: alice's tasks in one context, timestamps 1 ms apart,
	// newest first by index, states cycling. It is never written again.
	newest := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixMicro()
	step := int64(-1000)
	if err := ctl.SeedGenerate(ctx, a2aclient.Generate{Count: n, Owner: "alice", IDPrefix: "soak-static-",
		ContextIDs: []string{staticContext}, States: staticStates, StartMicros: &newest, StepMicros: &step}); err != nil {
		t.Fatalf("seeding the static set: %v", err)
	}
	want := map[string][]string{"": nil}
	for i := range n {
		id := fmt.Sprintf("soak-static-%08d", i)
		want[""] = append(want[""], id)
		if st := staticStates[i%len(staticStates)]; st == staticStates[0] {
			want[st] = append(want[st], id)
		}
	}
	oldest := newest + int64(n-1)*step

	clients := map[a2aclient.Binding]map[string]*a2aclient.Client{}
	for _, b := range []a2aclient.Binding{a2aclient.JSONRPC, a2aclient.HTTPJSON} {
		iface, ok := target.Card.Interface(b)
		if !ok {
			t.Fatalf("the reference's card has no %s interface", b)
		}
		clients[b] = map[string]*a2aclient.Client{}
		for _, p := range target.Principals {
			clients[b][p.Name] = &a2aclient.Client{HTTP: hc, Iface: iface, Principal: p.Name, Token: p.Token}
		}
	}

	var tl tally
	deadline := time.Now().Add(duration)
	running := func() bool { return time.Now().Before(deadline) }
	var wg sync.WaitGroup

	// Writers. Each changes only what it created, in other contexts (alice)
	// or another principal (bob); alice's writes land at timestamps inside
	// the static set's range, ties included, so the walks' cursors cross
	// them.
	var createdMu sync.Mutex
	var created []string
	randomTS := func(r *rand.Rand) int64 {
		if r.IntN(4) == 0 { // a tie with a static task
			return newest + int64(r.IntN(n))*step
		}
		return oldest + r.Int64N(newest-oldest+1)
	}
	for w := range 2 {
		wg.Add(1)
		go func() { // seeder
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for batch := 0; running(); batch++ {
				var ts []a2aclient.SeedTask
				for i := range seedBatch {
					owner, ctxID := "alice", fmt.Sprintf("soak-w%d-%d", w, batch%20)
					if i%3 == 0 {
						owner = "bob"
					}
					us := randomTS(r)
					ts = append(ts, a2aclient.SeedTask{ID: fmt.Sprintf("soak-w%d-%06d-%02d", w, batch, i), Owner: owner, ContextID: ctxID,
						State: "TASK_STATE_WORKING", TimestampMicros: &us})
				}
				if err := ctl.Seed(ctx, ts); err != nil {
					tl.writeErrors.Add(1)
					t.Errorf("seeder %d: %v", w, err)
					return
				}
				tl.seeded.Add(int64(len(ts)))
				createdMu.Lock()
				for _, x := range ts {
					created = append(created, x.ID)
				}
				createdMu.Unlock()
			}
		}()
		wg.Add(1)
		go func() { // mover
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for running() {
				createdMu.Lock()
				var id string
				if len(created) > 0 {
					id = created[r.IntN(len(created))]
				}
				createdMu.Unlock()
				if id == "" {
					id = "none-yet" // a move of a missing task: an error reply, counted below
				}
				var ts *int64
				if r.IntN(2) == 0 {
					us := randomTS(r)
					ts = &us
				}
				if err := ctl.Move(ctx, id, staticStates[r.IntN(len(staticStates))], ts); err != nil {
					if id != "none-yet" {
						tl.writeErrors.Add(1)
						t.Errorf("mover %d: %v", w, err)
						return
					}
					continue
				}
				tl.moved.Add(1)
			}
		}()
		wg.Add(1)
		go func() { // messenger
			defer wg.Done()
			for i := 0; running(); i++ {
				b := []a2aclient.Binding{a2aclient.JSONRPC, a2aclient.HTTPJSON}[i%2]
				who := []string{"alice", "bob"}[(i/2)%2]
				reply, err := clients[b][who].SendMessage(ctx, fmt.Sprintf("soak-m%d-%06d", w, i), "soak", fmt.Sprintf("soak-msg%d-%d", w, i%50), "")
				if err != nil || reply.Err != nil || reply.Problem != "" {
					tl.writeErrors.Add(1)
					t.Errorf("messenger %d: SendMessage: %v %s %s", w, err, reply.Describe(), reply.Problem)
					return
				}
				tl.messages.Add(1)
			}
		}()
	}

	// Walkers.
	for w := range walkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 3))
			c := clients[[]a2aclient.Binding{a2aclient.JSONRPC, a2aclient.HTTPJSON}[w%2]]["alice"]
			for i := 0; running(); i++ {
				req := a2aclient.ListRequest{ContextID: a2aclient.Ptr(staticContext), PageSize: a2aclient.Ptr(1 + r.IntN(100)), HistoryLength: a2aclient.Ptr(0)}
				filter := ""
				if r.IntN(3) == 0 {
					filter = staticStates[0]
					req.Status = &filter
				}
				what := fmt.Sprintf("walker %d walk %d (%s, pageSize %d, status %q)", w, i, c.Iface.Binding, *req.PageSize, filter)
				var ids []string
				if i%syncEvery == syncEvery-1 {
					res, err := a2aclient.Sync(ctx, c, req)
					tl.syncs.Add(1)
					if err != nil {
						tl.ends.Add(1)
						tl.violation("%s: Sync ended early: %v", what, err)
						continue
					}
					tl.pages.Add(int64(res.Pages + res.CatchUpPages))
					tl.tasks.Add(int64(res.Rows + res.CatchUpRows))
					if len(res.Recovered) > 0 {
						tl.violation("%s: the catch-up pass recovered %d tasks of a set nobody writes: %v", what, len(res.Recovered), first(res.Recovered, 5))
					}
					ids = res.Order
				} else {
					ended := false
					for st, err := range a2aclient.Walk(ctx, c, req) {
						tl.pages.Add(1)
						if err != nil {
							ended = true
							tl.ends.Add(1)
							tl.violation("%s: the walk ended early: %v", what, err)
							break
						}
						tl.tasks.Add(int64(len(st.Tasks)))
						ids = append(ids, st.IDs()...)
					}
					if ended {
						tl.walks.Add(1)
						continue
					}
				}
				tl.walks.Add(1)
				judge(&tl, what, ids, want[filter])
			}
		}()
	}
	wg.Wait()

	summary := fmt.Sprintf("soak: %s, %d walkers over %d static tasks (%d with status %s), both bindings: %d walks (%d of them Sync), %d pages, %d tasks read; "+
		"writes: %d tasks seeded, %d moves, %d messages (%d write errors); violations: %d (duplicates %d, gaps %d, order breaks %d, foreign ids %d, early ends %d)",
		duration, walkers, n, len(want[staticStates[0]]), staticStates[0], tl.walks.Load(), tl.syncs.Load(), tl.pages.Load(), tl.tasks.Load(),
		tl.seeded.Load(), tl.moved.Load(), tl.messages.Load(), tl.writeErrors.Load(),
		tl.violations.Load(), tl.duplicates.Load(), tl.gaps.Load(), tl.orderBreaks.Load(), tl.foreign.Load(), tl.ends.Load())
	fmt.Println(summary)
	for _, d := range tl.details {
		t.Error(d)
	}
	if tl.violations.Load() > 0 {
		t.Errorf("%d walks did not return the static set exactly", tl.violations.Load())
	}
	if tl.walks.Load() < int64(walkers) || tl.seeded.Load() == 0 || tl.moved.Load() == 0 || tl.messages.Load() == 0 {
		t.Errorf("the soak did too little to show anything: %s", summary)
	}
}

// judge compares one walk's ids with the static set it must equal, in
// order, and counts each kind of difference.
func judge(tl *tally, what string, got, want []string) {
	if slices.Equal(got, want) {
		return
	}
	pos := make(map[string]int, len(want))
	for i, id := range want {
		pos[id] = i
	}
	seen := map[string]bool{}
	var dups, foreign, breaks int
	last := -1
	for _, id := range got {
		p, ok := pos[id]
		switch {
		case !ok:
			foreign++
			continue
		case seen[id]:
			dups++
			continue
		}
		seen[id] = true
		if p < last {
			breaks++
		}
		last = p
	}
	gaps := len(want) - len(seen)
	tl.duplicates.Add(int64(dups))
	tl.gaps.Add(int64(gaps))
	tl.orderBreaks.Add(int64(breaks))
	tl.foreign.Add(int64(foreign))
	tl.violation("%s: %d ids for %d static tasks: %d duplicates, %d missing, %d order breaks, %d from outside the set", what, len(got), len(want), dups, gaps, breaks, foreign)
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }
