package scenarios

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// This file holds the data black-box cases judge when there is no control
// API: what the server already has (an observed, read-only walk of each
// principal's tasks) and what pagewalk creates itself (probe tasks in a
// fresh context). Both are made once per run and shared by the cases that
// only read them.

// sharedData is a target's lazily made black-box data, and the one budget
// for real-time waits.
type sharedData struct {
	mu       sync.Mutex
	observed map[int]*Observed
	probe    *Probe
	walks    map[string]*blackBoxWalks
	waitLeft time.Duration
}

func newSharedData(maxWait time.Duration) *sharedData {
	return &sharedData{observed: map[int]*Observed{}, walks: map[string]*blackBoxWalks{}, waitLeft: maxWait}
}

// takeWait reserves up to d of the real-time wait budget and returns how
// much was granted.
func (d *sharedData) takeWait(want time.Duration) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	got := min(want, d.waitLeft)
	if got < 0 {
		got = 0
	}
	d.waitLeft -= got
	return got
}

// WaitReal waits d of real time against a black-box target, within the
// target's --max-wait budget; it returns false (having waited nothing) when
// the budget cannot cover d. Only probe-task spacing and the expiry case
// wait; nothing else may wait on the wall clock.
func (e *Env) WaitReal(d time.Duration) bool {
	if e.target.data == nil {
		return false
	}
	if got := e.target.data.takeWait(d); got < d {
		e.target.data.takeWait(-got) // give it back
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-e.ctx.Done():
		e.Check(e.ctx.Err(), "waiting")
		return false
	}
}

// TieGroup is a run of consecutive tasks in a served order that share one
// status timestamp: positions [Start, End).
type TieGroup struct {
	Start, End int
	TS         time.Time
}

// Width returns the number of tasks in the group.
func (g TieGroup) Width() int { return g.End - g.Start }

// Straddles reports whether a page boundary of page size p falls inside the
// group, so that a walk with p must carry the tie across pages.
func (g TieGroup) Straddles(p int) bool { return g.Start/p != (g.End-1)/p }

// Observed is what a bounded, read-only walk of one principal's existing
// tasks showed.
type Observed struct {
	Principal string
	Binding   a2aclient.Binding
	// Walk is the observing walk (pageSize 100, historyLength 0).
	Walk History
	// Tasks are the tasks served, in order, each once (first occurrence).
	Tasks []a2aclient.Task
	// Complete is true when the walk reached nextPageToken "" within the
	// budget: Tasks is then every task the principal can see.
	Complete bool
	// Budget is the --observe-tasks bound.
	Budget int
	// Precision is the finest timestamp unit the server showed (1s, 1ms,
	// 1µs, 1ns); 0 when no task had a timestamp.
	Precision time.Duration
	// Ties are the groups of equal status timestamps, in order.
	Ties []TieGroup
	// ByContext and ByState index Tasks positions.
	ByContext, ByState map[string][]int
}

// Distinct returns how many distinct status timestamps the tasks have.
func (o *Observed) Distinct() int {
	seen := map[time.Time]bool{}
	for _, t := range o.Tasks {
		if !t.TS.IsZero() {
			seen[t.TS] = true
		}
	}
	return len(seen)
}

// Summary says in a line what the observed data allows a case to judge.
func (o *Observed) Summary() string {
	state := "the whole list"
	if !o.Complete {
		state = fmt.Sprintf("the newest %d (the --observe-tasks bound)", len(o.Tasks))
	}
	tied := 0
	for _, g := range o.Ties {
		tied += g.Width()
	}
	return fmt.Sprintf("observed %s of %s's tasks: %d tasks, %d distinct timestamps, precision %s, %d tie groups (%d tasks), %d contexts",
		state, o.Principal, len(o.Tasks), o.Distinct(), precisionName(o.Precision), len(o.Ties), tied, len(o.ByContext))
}

func precisionName(p time.Duration) string {
	switch p {
	case 0:
		return "unknown"
	case time.Second:
		return "whole seconds"
	case time.Millisecond:
		return "milliseconds"
	case time.Microsecond:
		return "microseconds"
	}
	return "nanoseconds"
}

// precisionOf returns the finest unit any of the timestamps uses.
func precisionOf(ts []time.Time) time.Duration {
	p := time.Duration(0)
	for _, t := range ts {
		if t.IsZero() {
			continue
		}
		var q time.Duration
		switch ns := t.Nanosecond(); {
		case ns == 0:
			q = time.Second
		case ns%int(time.Millisecond) == 0:
			q = time.Millisecond
		case ns%int(time.Microsecond) == 0:
			q = time.Microsecond
		default:
			q = time.Nanosecond
		}
		if p == 0 || q < p {
			p = q
		}
	}
	return p
}

// tieGroups finds the runs of equal timestamps in tasks (served order).
func tieGroups(tasks []a2aclient.Task) []TieGroup {
	var out []TieGroup
	for i := 0; i < len(tasks); {
		j := i + 1
		for j < len(tasks) && !tasks[i].TS.IsZero() && tasks[j].TS.Equal(tasks[i].TS) {
			j++
		}
		if j-i > 1 {
			out = append(out, TieGroup{Start: i, End: j, TS: tasks[i].TS})
		}
		i = j
	}
	return out
}

// StraddlingSizes chooses up to n page sizes (1..100) whose page boundaries
// fall inside as many tie groups as possible, looking only at the first
// maxPages pages of each size, so that walks with them carry ties across
// pages. It returns the sizes and how many groups each straddles.
func StraddlingSizes(groups []TieGroup, total, maxPages, n int) ([]int, map[int]int) {
	count := map[int]int{}
	for p := 1; p <= 100; p++ {
		limit := min(total, p*maxPages)
		for _, g := range groups {
			if g.End <= limit && g.Straddles(p) {
				count[p]++
			}
		}
	}
	var sizes []int
	for p, c := range count {
		if c > 0 {
			sizes = append(sizes, p)
		}
	}
	sort.Slice(sizes, func(i, j int) bool {
		if count[sizes[i]] != count[sizes[j]] {
			return count[sizes[i]] > count[sizes[j]]
		}
		return sizes[i] < sizes[j]
	})
	if len(sizes) > n {
		sizes = sizes[:n]
	}
	sort.Ints(sizes)
	return sizes, count
}

// Observe returns the observed data of principal i (walking once, read-
// only, on the first of the target's bindings), or nil with the reason when
// there is none to judge.
func (e *Env) Observe(i int) (*Observed, string) {
	t := e.target
	if t.ObserveTasks <= 0 {
		return nil, "the observe walk is off (--observe-tasks 0)"
	}
	if i >= len(t.Principals) {
		return nil, fmt.Sprintf("needs principal #%d", i+1)
	}
	d := t.data
	d.mu.Lock()
	o, ok := d.observed[i]
	d.mu.Unlock()
	if !ok {
		o = e.observe(i)
		d.mu.Lock()
		d.observed[i] = o
		d.mu.Unlock()
	}
	if len(o.Tasks) == 0 {
		return o, fmt.Sprintf("%s has no tasks to observe", t.Principals[i].Name)
	}
	return o, ""
}

func (e *Env) observe(i int) *Observed {
	t := e.target
	b := t.Bindings[0]
	o := &Observed{Principal: t.Principals[i].Name, Binding: b, Budget: t.ObserveTasks, ByContext: map[string][]int{}, ByState: map[string][]int{}}
	e.By("observe %s's existing tasks, read-only: walk up to %d of them on %s with pageSize 100", o.Principal, t.ObserveTasks, b)
	pages := (t.ObserveTasks+99)/100 + 1
	o.Walk = e.WalkUpTo(e.Client(b, i), a2aclient.ListRequest{PageSize: a2aclient.Ptr(100), HistoryLength: a2aclient.Ptr(0)}, pages)
	seen := map[string]bool{}
	for _, p := range o.Walk.Pages {
		for _, tk := range p.Tasks {
			if seen[tk.ID] || tk.ID == "" {
				continue
			}
			seen[tk.ID] = true
			o.ByContext[tk.ContextID] = append(o.ByContext[tk.ContextID], len(o.Tasks))
			o.ByState[tk.State] = append(o.ByState[tk.State], len(o.Tasks))
			o.Tasks = append(o.Tasks, tk)
		}
	}
	o.Complete = !o.Walk.Ended() && len(o.Tasks) <= t.ObserveTasks
	var ts []time.Time
	for _, tk := range o.Tasks {
		ts = append(ts, tk.TS)
	}
	o.Precision = precisionOf(ts)
	o.Ties = tieGroups(o.Tasks)
	e.By("%s", o.Summary())
	return o
}

// Probe is the set of tasks pagewalk created for black-box cases that only
// read: ProbeTasks tasks in one fresh context, some sent in concurrent
// bursts (so that a server with coarse timestamps produces ties) and the
// rest one after another (spaced by the server's precision, within the
// --max-wait budget, so that their timestamps differ and order can be
// judged).
type Probe struct {
	Context string
	// Truth is every created task's status timestamp as GetTask reports it
	// after creation (the reply's where GetTask fails).
	Truth Truth
	// Tasks holds each created task as last read.
	Tasks map[string]a2aclient.Task
	// Bursts lists the ids created together.
	Bursts [][]string
	// Precision is the finest timestamp unit seen on the created tasks.
	Precision time.Duration
	// Waited is the real time spent spacing the sequential creations.
	Waited time.Duration
	// Skip says why no probe set could be made ("" when it was).
	Skip string
}

// Summary says in a line what the probe data allows a case to judge.
func (p *Probe) Summary() string {
	ts := map[time.Time]int{}
	for _, t := range p.Truth {
		ts[t]++
	}
	tied := 0
	for _, n := range ts {
		if n > 1 {
			tied += n
		}
	}
	return fmt.Sprintf("probe context %s: %d tasks created (%d in concurrent bursts), %d distinct timestamps, %d tasks tied, precision %s, %s waited",
		p.Context, len(p.Truth), burstCount(p.Bursts), len(ts), tied, precisionName(p.Precision), p.Waited.Round(time.Millisecond))
}

func burstCount(bs [][]string) int {
	n := 0
	for _, b := range bs {
		n += len(b)
	}
	return n
}

// Probe returns the shared probe set of the main principal, creating it on
// first use, or skips the case with the reason when the agent cannot make
// one (it answers with a Message, refuses client-chosen contexts, or never
// settles a blocking SendMessage).
func (e *Env) Probe() *Probe {
	d := e.target.data
	d.mu.Lock()
	p := d.probe
	d.mu.Unlock()
	if p == nil {
		p = e.makeProbe()
		d.mu.Lock()
		d.probe = p
		d.mu.Unlock()
	}
	if p.Skip != "" {
		e.Skip("%s", p.Skip)
	}
	return p
}

// probeBursts is how many concurrent bursts of probeBurst tasks a probe set
// starts with.
const (
	probeBursts = 4
	probeBurst  = 3
)

func (e *Env) makeProbe() (p *Probe) {
	t := e.target
	p = &Probe{Context: fmt.Sprintf("%s-probe", runPrefix), Truth: Truth{}, Tasks: map[string]a2aclient.Task{}}
	n := max(t.ProbeTasks, probeBursts*probeBurst+2)
	c := e.A()
	precision := time.Duration(0)
	if o, why := e.Observe(0); why == "" {
		precision = o.Precision
	}
	e.By("create %d probe tasks in context %s: %d bursts of %d concurrent SendMessage calls, then %d one after another",
		n, p.Context, probeBursts, probeBurst, n-probeBursts*probeBurst)
	defer func() {
		if r := recover(); r != nil {
			if s, ok := r.(skipSignal); ok {
				p.Skip = s.reason
				return
			}
			panic(r)
		}
	}()
	send := func(i int) a2aclient.Task {
		r, err := c.SendMessage(e.ctx, fmt.Sprintf("%s-probe-m%03d", runPrefix, i), t.BlackBoxText, p.Context, "")
		e.checkSend(err)
		if r.Err != nil || r.Problem != "" || r.Task.ID == "" {
			e.Skip("black-box variant: SendMessage did not create a task in a client-chosen context (%s %s); the agent must answer SendMessage with a Task", r.Describe(), r.Problem)
		}
		return r.Task
	}
	k := 0
	for b := 0; b < probeBursts; b++ {
		out := make([]a2aclient.Task, probeBurst)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var skip any
		for j := range out {
			wg.Add(1)
			go func(j, i int) {
				defer wg.Done()
				defer func() {
					if r := recover(); r != nil {
						mu.Lock()
						skip = r
						mu.Unlock()
					}
				}()
				out[j] = send(i)
			}(j, k+j)
		}
		wg.Wait()
		if skip != nil {
			panic(skip)
		}
		k += probeBurst
		var ids []string
		for _, tk := range out {
			p.Tasks[tk.ID] = tk
			ids = append(ids, tk.ID)
		}
		p.Bursts = append(p.Bursts, ids)
	}
	var prev a2aclient.Task
	for ; k < n; k++ {
		if precision == 0 && prev.ID != "" {
			precision = precisionOf([]time.Time{prev.TS})
		}
		if prev.ID != "" && precision >= 10*time.Millisecond {
			// Coarse timestamps: space sequential tasks by the precision so
			// that they differ, as far as the --max-wait budget allows.
			start := time.Now()
			if e.WaitReal(precision) {
				p.Waited += time.Since(start)
			}
		}
		prev = send(k)
		p.Tasks[prev.ID] = prev
	}
	// Read every task back: the truth is what the server holds now.
	var ts []time.Time
	for id, tk := range p.Tasks {
		g, err := c.GetTask(e.ctx, id, a2aclient.Ptr(0))
		e.Check(err, "GetTask")
		if g.Err == nil && g.Problem == "" && g.Task.ID == id {
			tk = g.Task
			p.Tasks[id] = tk
		}
		p.Truth[id] = tk.TS
		ts = append(ts, tk.TS)
	}
	p.Precision = precisionOf(ts)
	e.By("%s", p.Summary())
	return p
}

// runPrefix is unique to this pagewalk process: every id and context it
// creates starts with it, so a scoped reset can remove exactly its data.
var runPrefix = fmt.Sprintf("pw%d", time.Now().UnixNano()%1e9)

// RunPrefix returns the prefix of every id and context this run creates.
func RunPrefix() string { return runPrefix }

// ctxOK reports whether the context of the scenario is still alive.
func ctxOK(ctx context.Context) bool { return ctx.Err() == nil }

// idList renders ids briefly for messages.
func idList(ids []string, n int) string { return strings.Join(first(ids, n), ", ") }
