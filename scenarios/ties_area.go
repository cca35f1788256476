package scenarios

import (
	"fmt"
	"sort"
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
		type layout struct {
			ws    []Walked
			truth Truth
		}
		var layouts []layout
		var every []Walked
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
			layouts = append(layouts, layout{ws, truth})
			every = append(every, ws...)
		}
		// Every walk of the case is evidence for every layout: a server
		// that repeats or reorders pages shows it in some walk, not in each.
		for _, l := range layouts {
			e.Report(CheckTies(l.ws, CompareWalks(l.ws, l.truth), every...)...)
		}
	},
	BlackBox: func(e *Env) {
		w, probe, observed := e.judgeWalks()
		if probe.TieBoundaries+observed.TieBoundaries == 0 {
			e.Skip("no tie group was carried across a page boundary (probe: %d tasks tied; existing tasks: %d tied): deciding this needs tasks that share a status timestamp, as a server with coarse timestamps or bursts of writes produces",
				probe.Tied, observed.Tied)
		}
		e.Note("ties judged: %d tie groups carried across page boundaries (probe %d, existing tasks %d)", probe.TieBoundaries+observed.TieBoundaries, probe.TieBoundaries, observed.TieBoundaries)
		every := append(append([]Walked(nil), w.Probe...), w.Observed...)
		e.Report(CheckTies(w.Probe, probe, every...)...)
		if len(w.Observed) > 0 {
			e.Report(CheckTies(w.Observed, observed, every...)...)
		}
	},
})

// CheckTies judges walks over tie groups (LT-TIE-BOUNDARY): every tied task
// exactly once where a page boundary splits its group, and one tie-break
// order throughout. Other misses belong to LT-WALK-EXACT. One defect, one
// finding: where a walk (of these, or of evidence, the case's other walks
// of the same server) starts a page with the previous page's last task
// though that task ties with no other, the server repeats page boundaries
// whether tied or not (LT-WALK-EXACT's), so repeats at page boundaries are
// not judged here; where one is out of timestamp order (LT-WALK-ORDER's),
// the order of ties is not judged.
func CheckTies(walks []Walked, c Comparison, evidence ...Walked) []Finding {
	var fs []Finding
	for _, w := range walks {
		fs = append(fs, EndFindings(w.H, "LT-TIE-BOUNDARY")...)
	}
	cut := map[string][]string{}
	for _, m := range c.Missing {
		if m.CutShort {
			cut[m.Walk] = append(cut[m.Walk], m.TaskID)
		}
	}
	for _, w := range walks {
		if ids := cut[w.Label]; len(ids) > 0 {
			sort.Strings(ids)
			fs = append(fs, cutShortNote(R("LT-SEED-2", "LT-ORDER-3"), prefixed(w.Label), ids))
		}
	}
	all := append(append([]Walked(nil), walks...), evidence...)
	if why := untiedRepeat(all); why != "" {
		for _, w := range walks {
			rep, _ := boundaryRepeats(w.H)
			var ids []string
			c.Duplicates = dropMisses(c.Duplicates, func(m Miss) bool {
				if m.Walk == w.Label && rep[m.TaskID] {
					ids = append(ids, m.TaskID)
					return true
				}
				return false
			})
			if len(ids) > 0 {
				sort.Strings(ids)
				fs = append(fs, repeatNote(R("LT-SEED-2", "LT-ORDER-3"), prefixed(w.Label), ids).WithWitness(why))
			}
		}
	}
	if len(c.MixedTieOrder) > 0 {
		for _, w := range all {
			if breaks := CheckWalk(w.H, Truth{}).OrderBreaks; len(breaks) > 0 {
				fs = append(fs, Observe(R("LT-SEED-2", "LT-ORDER-3"), "could not judge the tie-break order (%d tied pairs come in different orders in different walks): the walk %s is out of timestamp order (page %d serves %s after the older %s; judged by LT-WALK-ORDER)",
					len(c.MixedTieOrder), w.Label, breaks[0].Page, breaks[0].Cur.ID, breaks[0].Prev.ID).Of("unfinished", "tie-order"))
				c.MixedTieOrder = nil
				break
			}
		}
	}
	return append(fs, c.tieFindings()...)
}

// untiedRepeat returns a line naming a walk that served a task as the last
// of one page and the first of the next where that task shares its
// timestamp with no other task the walk served ("" when none did): the
// server then repeats a page's last task whether it is tied or not.
func untiedRepeat(walks []Walked) string {
	for _, w := range walks {
		rep, _ := boundaryRepeats(w.H)
		if len(rep) == 0 {
			continue
		}
		ids := map[time.Time]map[string]bool{}
		tsOf := map[string]time.Time{}
		for _, p := range w.H.Pages {
			for _, t := range p.Tasks {
				if ids[t.TS] == nil {
					ids[t.TS] = map[string]bool{}
				}
				ids[t.TS][t.ID] = true
				tsOf[t.ID] = t.TS
			}
		}
		var untied []string
		for id := range rep {
			if len(ids[tsOf[id]]) == 1 {
				untied = append(untied, id)
			}
		}
		if len(untied) > 0 {
			sort.Strings(untied)
			return w.Label + " served " + untied[0] + ", which ties with no other task, last on one page and first on the next"
		}
	}
	return ""
}

// dropMisses returns ms without those drop selects.
func dropMisses(ms []Miss, drop func(Miss) bool) []Miss {
	var out []Miss
	for _, m := range ms {
		if !drop(m) {
			out = append(out, m)
		}
	}
	return out
}
