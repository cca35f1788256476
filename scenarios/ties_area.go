package scenarios

import (
	"fmt"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "ties": tasks that share a status timestamp across a page boundary.
// The spec orders by status timestamp and names no tie-break (LT-ORDER-3),
// so a cursor that holds only the timestamp skips or repeats tied tasks.
// The seed article's tie-safe cursor is a hardened practice.

// tiePageSizes are the page sizes the tie scenario walks with.
var tiePageSizes = []int{1, 2, 3, 7, 50, 100}

// TieLayout returns tasks for one page size p, newest first, laid out so
// that a group of tied timestamps of every width from 2 to p+1 starts on
// the last slot of a page and straddles the boundary. Fillers have distinct
// timestamps.
func TieLayout(p int, ctx string, base time.Time) []Task {
	var out []Task
	step := 0
	next := func() time.Time { step++; return base.Add(-time.Duration(step) * time.Millisecond) }
	filler := 0
	fill := func() {
		out = append(out, Task{Key: fmt.Sprintf("p%d-f%05d", p, filler), TS: next(), ContextID: ctx})
		filler++
	}
	for w := 2; w <= p+1; w++ {
		for len(out)%p != p-1 {
			fill()
		}
		ts := next()
		for i := 0; i < w; i++ {
			out = append(out, Task{Key: fmt.Sprintf("p%d-w%03d-%03d", p, w, i), TS: ts, ContextID: ctx})
		}
	}
	for i := 0; i < p; i++ {
		fill()
	}
	return out
}

var _ = Register(Scenario{
	ID: "LT-TIE-BOUNDARY", Area: "ties", Level: Hardened, Checker: "CheckTies",
	Title: "Tied status timestamps straddling page boundaries are neither skipped nor repeated, and ties keep one order",
	Reqs:  R("LT-ORDER-3", "LT-SEED-2"),
	Quote: `Spec: "Implementations MUST return tasks sorted by their status timestamp time in descending order" and names no tie-break (LT-ORDER-3). Seed: "the key must include a tiebreaker. The pair (timestamp, task id) is unique, so the seek condition ts < ? OR (ts = ? AND id < ?) never skips or repeats a row with a tied timestamp."`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		e.Fresh()
		var all []Task
		ctxOf := map[int]string{}
		for i, p := range tiePageSizes {
			ctxOf[p] = e.Context(fmt.Sprintf("ties-p%d", p))
			all = append(all, TieLayout(p, ctxOf[p], At(3600*(i+1)))...)
		}
		e.By("seed %d tasks: for each page size in %v, tie groups 2 to pageSize+1 wide, each starting on the last slot of a page", len(all), tiePageSizes)
		_, ids := e.Seed(all)
		for _, p := range tiePageSizes {
			truth := Truth{}
			for _, t := range all {
				if t.ContextID == ctxOf[p] {
					truth[ids[t.Key]] = t.TS
				}
			}
			ctx := ctxOf[p]
			var ws []Walked
			// The layout's page size, and one more: the second walk splits
			// the ties elsewhere, and tied pairs must come in one order in
			// both.
			for _, size := range []int{p, min(p+1, 100)} {
				e.By("walk context %s with pageSize %d (%d tasks)", ctx, size, len(truth))
				h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, len(truth)+10, nil)
				ws = append(ws, Walked{Label: fmt.Sprintf("pageSize %d", size), H: h})
			}
			e.Report(CheckTies(ws, CompareWalks(ws, truth))...)
		}
	},
	BlackBox: func(e *Env) {
		w, probe, observed := e.judgeWalks()
		if probe.TieBoundaries+observed.TieBoundaries == 0 {
			e.Skip("no tie group was carried across a page boundary (probe: %d tasks tied; existing tasks: %d tied): deciding this needs tasks that share a status timestamp, as a server with coarse timestamps or bursts of writes produces",
				probe.Tied, observed.Tied)
		}
		e.Note("ties judged: %d tie groups carried across page boundaries (probe %d, existing tasks %d)", probe.TieBoundaries+observed.TieBoundaries, probe.TieBoundaries, observed.TieBoundaries)
		e.Report(CheckTies(w.Probe, probe)...)
		if len(w.Observed) > 0 {
			e.Report(CheckTies(w.Observed, observed)...)
		}
	},
})

// CheckTies judges walks over tie groups (LT-TIE-BOUNDARY): every tied task
// exactly once where a page boundary splits its group, and one tie-break
// order throughout. Other misses belong to LT-WALK-EXACT.
func CheckTies(walks []Walked, c Comparison) []Finding {
	var fs []Finding
	for _, w := range walks {
		fs = append(fs, EndFindings(w.H, "LT-TIE-BOUNDARY")...)
	}
	return append(fs, c.tieFindings()...)
}
