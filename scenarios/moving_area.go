package scenarios

import (
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "moving": tasks that change while a walk is under way. The sort key
// (the status timestamp) changes when a task changes state, so keyset
// paging is exact only for unchanged tasks. The spec leaves the fate of a
// moved task open (LT-PAGE-3): it is classified, never failed. Unchanged
// tasks must still be served exactly once, which is what cursor-based
// (rather than offset) pagination gives (LT-OP-4, LT-OP-5). The seed
// article's catch-up pass recovers moved tasks.

// CatchUp is the second walk of the seed's list_all: statusTimestampAfter
// set to the newest timestamp of the first page minus a skew.
type CatchUp struct {
	Since string
	H     History
}

// afterFirstPage returns a Between that makes one write after page 1.
func afterFirstPage(write func() Write) Between {
	return func(after int, _ a2aclient.Step) []Write {
		if after != 1 {
			return nil
		}
		return []Write{write()}
	}
}

// moveSkew is the catch-up skew (the seed's two seconds).
const moveSkew = a2aclient.DefaultSkew

// catchUp runs the catch-up walk after h, from the client's one catch-up
// rule (a2aclient.CatchUpSince).
func (e *Env) catchUp(c *a2aclient.Client, base a2aclient.ListRequest, h History) CatchUp {
	if len(h.Pages) == 0 {
		return CatchUp{}
	}
	since, _, ok := a2aclient.CatchUpSince(h.Pages[0].Tasks, moveSkew)
	if !ok {
		return CatchUp{}
	}
	e.By("catch-up pass: statusTimestampAfter %s (newest on page 1 minus %s)", since, moveSkew)
	base.PageToken = ""
	base.StatusTimestampAfter = &since
	return CatchUp{Since: since, H: e.Walk(c, base, 200, nil)}
}

// CheckMoving judges a walk with writes (LT-MOVE-*): unchanged tasks once
// each and in order (Fail), written tasks classified (Info), and every
// written task's new version recovered by the catch-up pass (Hardened).
func CheckMoving(self string, h History, truth Truth, cu CatchUp) []Finding {
	c := CheckWalk(h, truth)
	fs := EndFindings(h, self)
	// A tie that a page boundary splits is LT-TIE-BOUNDARY's business: a
	// task missed or repeated there is not judged here.
	ends := pageEndTimes(h)
	count := map[time.Time]int{}
	for _, ts := range truth {
		count[ts]++
	}
	tied := func(id string) bool { ts := truth[id]; return count[ts] > 1 && ends[ts] }
	c.Missing, c.Duplicates = dropIf(c.Missing, tied), dropIf(c.Duplicates, tied)
	c.OrderBreaks = nil // LT-WALK-ORDER's business
	// A walk cut short on nextPageToken "" is LT-WALK-LAST-PAGE's, and
	// pages that repeat the previous page's last task where nothing was
	// written are LT-WALK-EXACT's: what they hide is not judged here.
	if cut := cutShort(h, truth, c.Missing); len(cut) > 0 {
		in := setOf(cut)
		c.Missing = dropIf(c.Missing, func(id string) bool { return in[id] })
		fs = append(fs, cutShortNote(R("LT-OP-4", "LT-OP-5"), "", cut))
	}
	if rep, still := boundaryRepeats(h); still {
		var ids []string
		for _, id := range c.Duplicates {
			if rep[id] {
				ids = append(ids, id)
			}
		}
		if len(ids) > 0 {
			c.Duplicates = dropIf(c.Duplicates, func(id string) bool { return rep[id] })
			fs = append(fs, repeatNote(R("LT-OP-4", "LT-OP-5"), "", ids))
		}
	}
	fs = append(fs, WalkFindings(h, truth, c, R("LT-OP-4", "LT-OP-5"))...)
	if cu.Since == "" {
		return fs
	}
	fs = append(fs, EndFindings(cu.H, self)...)
	// A written task is recovered if its new version was served after the
	// write, by the walk itself or by the catch-up pass.
	served := func(id string, ts time.Time, pages []a2aclient.Step, after int) bool {
		for _, p := range pages {
			if p.N <= after {
				continue
			}
			for _, t := range p.Tasks {
				if t.ID == id && t.TS.Equal(ts) {
					return true
				}
			}
		}
		return false
	}
	// A catch-up that loses a task tied with others where one of its pages
	// ends is the tie case's business, not the catch-up's.
	cuEnds := pageEndTimes(cu.H)
	cuCount := map[time.Time]int{}
	for _, p := range cu.H.Pages {
		for _, t := range p.Tasks {
			cuCount[t.TS]++
		}
	}
	var lost, recovered []string
	for _, w := range h.Writes {
		switch {
		case served(w.TaskID, w.NewTS, h.Pages, w.AfterPage):
		case served(w.TaskID, w.NewTS, cu.H.Pages, 0):
			recovered = append(recovered, w.TaskID)
		case cuEnds[w.NewTS] && cuCount[w.NewTS] > 0:
			fs = append(fs, Observe(R("LT-SEED-7"), "the catch-up pass did not serve %s, which ties with other tasks where a page ends (%s judges ties)", w.TaskID, "LT-TIE-BOUNDARY"))
		default:
			lost = append(lost, w.TaskID)
		}
	}
	if len(recovered) > 0 {
		fs = append(fs, Observe(R("LT-SEED-7"), "the catch-up pass (statusTimestampAfter %s) recovered %s, which the walk itself did not serve in its new state", cu.Since, strings.Join(recovered, ", ")))
	}
	if len(lost) > 0 {
		var pages []int
		for _, p := range cu.H.Pages {
			pages = append(pages, p.N)
		}
		fs = append(fs, Breach(R("LT-SEED-7", "LT-TSA-2"), "the catch-up pass (statusTimestampAfter %s) did not recover the new version of %s",
			cu.Since, strings.Join(lost, ", ")).WithWitness(cu.H.Witness(pages...)))
	}
	return fs
}

func dropIf(ids []string, drop func(string) bool) []string {
	var out []string
	for _, id := range ids {
		if !drop(id) {
			out = append(out, id)
		}
	}
	return out
}

// moveSetup seeds 12 tasks m000..m011 one second apart in the case's own
// context and returns the truth, the ids and the walk request (pageSize 4).
func moveSetup(e *Env) (Truth, map[string]string, a2aclient.ListRequest) {
	e.Fresh()
	ctx := e.Context("move")
	tasks := Series("m", 0, 1, 12)
	for i := range tasks {
		tasks[i].ContextID = ctx
	}
	e.By("seed 12 tasks one second apart in context %s; walks use pageSize 4", ctx)
	truth, ids := e.Seed(tasks)
	return truth, ids, a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(4), HistoryLength: a2aclient.Ptr(0)}
}

// moveData creates n tasks with SendMessage, one after another, in a fresh
// context of the case's own (moves must not touch the shared probe set),
// and returns the truth, the walk request (pageSize 3) and the context.
func moveData(e *Env, n int) (Truth, a2aclient.ListRequest, string) {
	ctx := e.Context("move")
	e.By("create %d tasks one after another with SendMessage in context %s", n, ctx)
	truth := e.CreateSeries(e.A(), n, ctx)
	return truth, a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(3), HistoryLength: a2aclient.Ptr(0)}, ctx
}

// boundaryInfo asks for statusTimestampAfter equal to a task's timestamp
// and reports whether the server treated it as inclusive or exclusive.
func (e *Env) boundaryInfo(c *a2aclient.Client, base a2aclient.ListRequest, id string, ts time.Time) Finding {
	at := a2aclient.FormatTimestamp(ts)
	base.PageToken, base.StatusTimestampAfter = "", &at
	h := e.Walk(c, base, 200, nil)
	for _, p := range h.Pages {
		for _, t := range p.Tasks {
			if t.ID == id {
				return Observe(R("LT-TSA-1", "LT-TSA-2", "LT-TSA-3"), "statusTimestampAfter behaved as inclusive (>=) at the boundary: a task stamped exactly %s was returned", at)
			}
		}
	}
	return Observe(R("LT-TSA-1", "LT-TSA-2", "LT-TSA-3"), "statusTimestampAfter behaved as exclusive (>) at the boundary: a task stamped exactly %s was not returned", at)
}

var movingQuote = `"MUST use cursor-based pagination for performance and consistency" (§3.1.4); the spec leaves tasks that change mid-walk open (LT-PAGE-3). Seed: "Anything that moved during the first walk has a newer timestamp and is caught" by a second walk with statusTimestampAfter.`

var _ = Register(Scenario{
	ID: "LT-MOVE-INSERT-HEAD", Area: "moving", Level: MUST, Checker: "CheckMoving",
	Title: "A task created mid-walk (newest, behind the cursor) does not shift the walk; catch-up finds it",
	Reqs:  R("LT-OP-4", "LT-OP-5", "LT-PAGE-3", "LT-SEED-7", "LT-TSA-3"),
	Quote: movingQuote,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		truth, _, req := moveSetup(e)
		c := e.A()
		newID := e.ID("inserted")
		h := e.Walk(c, req, 50, afterFirstPage(func() Write {
			e.By("after page 1, create task %s with the newest timestamp", newID)
			e.Check(e.Control().Seed(e.ctx, []a2aclient.SeedTask{{ID: newID, Owner: e.Owner(0), Tenant: e.target.Tenant, ContextID: *req.ContextID,
				State: "TASK_STATE_WORKING", TimestampMicros: a2aclient.Ptr(T0.UnixMicro())}}), "control seed")
			return Write{Kind: "insert", TaskID: newID, AfterPage: 1, NewTS: T0}
		}))
		e.Report(CheckMoving("LT-MOVE-INSERT-HEAD", h, truth, e.catchUp(c, req, h))...)
		e.Report(e.boundaryInfo(c, req, newID, T0))
	},
	BlackBox: func(e *Env) {
		truth, req, ctx := moveData(e, 9)
		c := e.A()
		e.spaceAfter(truth)
		h := e.Walk(c, req, 50, afterFirstPage(func() Write {
			e.By("after page 1, create a task with SendMessage")
			r, err := c.SendMessage(e.ctx, e.ID("inserted-msg"), e.target.BlackBoxText, ctx, "")
			e.checkSend(err)
			if r.Err != nil || r.Task.ID == "" {
				e.Skip("SendMessage did not create a task: %s", r.Describe())
			}
			return Write{Kind: "insert", TaskID: r.Task.ID, AfterPage: 1, NewTS: r.Task.TS}
		}))
		e.Report(CheckMoving("LT-MOVE-INSERT-HEAD", h, truth, e.catchUp(c, req, h))...)
	},
})

var _ = Register(Scenario{
	ID: "LT-MOVE-BEHIND", Area: "moving", Level: MUST, Checker: "CheckMoving",
	Title: "A task not yet served that changes state mid-walk jumps behind the cursor; no unchanged task is lost; catch-up recovers it",
	Reqs:  R("LT-OP-4", "LT-OP-5", "LT-PAGE-3", "LT-SEED-7"),
	Quote: movingQuote,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		truth, ids, req := moveSetup(e)
		c := e.A()
		moved := ids["m009"]
		h := e.Walk(c, req, 50, afterFirstPage(func() Write {
			e.By("after page 1, complete task %s (due on page 3): its timestamp becomes the newest", moved)
			ts := T0.UnixMicro()
			e.Check(e.Control().Move(e.ctx, moved, "TASK_STATE_COMPLETED", &ts), "control move")
			return Write{Kind: "move", TaskID: moved, AfterPage: 1, NewTS: T0}
		}))
		e.Report(CheckMoving("LT-MOVE-BEHIND", h, truth, e.catchUp(c, req, h))...)
		e.Report(e.boundaryInfo(c, req, moved, T0))
	},
	BlackBox: func(e *Env) {
		truth, req, ctx := moveData(e, 9)
		c := e.A()
		oldest, oldestTS := "", time.Time{}
		for id, ts := range truth {
			if oldest == "" || ts.Before(oldestTS) {
				oldest, oldestTS = id, ts
			}
		}
		e.spaceAfter(truth)
		h := e.Walk(c, req, 50, afterFirstPage(func() Write {
			e.By("after page 1, move %s (the oldest task, not yet served) with a follow-up message", oldest)
			return e.moveBlackBox(c, ctx, oldest)
		}))
		e.Report(CheckMoving("LT-MOVE-BEHIND", h, truth, e.catchUp(c, req, h))...)
	},
})

var _ = Register(Scenario{
	ID: "LT-MOVE-AHEAD", Area: "moving", Level: MUST, Checker: "CheckMoving",
	Title: "A served task that moves mid-walk may be served again; unchanged tasks are still served exactly once",
	Reqs:  R("LT-OP-4", "LT-OP-5", "LT-PAGE-3"),
	Quote: movingQuote,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		truth, ids, req := moveSetup(e)
		c := e.A()
		// m003 is the last task of page 1: the cursor's own task. Moving it
		// ahead shows both an offset cursor (the served part shrinks, so
		// page 2 skips a task) and a cursor that holds only a task id and
		// seeks from that task's current timestamp.
		moved := ids["m003"]
		newTS := At(7).Add(-500 * time.Millisecond) // between m006 and m007, ahead of the cursor
		h := e.Walk(c, req, 50, afterFirstPage(func() Write {
			e.By("after page 1, move served task %s to %s, between two tasks not yet served", moved, newTS.Format(time.RFC3339Nano))
			ts := newTS.UnixMicro()
			e.Check(e.Control().Move(e.ctx, moved, "TASK_STATE_WORKING", &ts), "control move")
			return Write{Kind: "move", TaskID: moved, AfterPage: 1, NewTS: newTS}
		}))
		e.Report(CheckMoving("LT-MOVE-AHEAD", h, truth, CatchUp{})...)
	},
	// Without the control API a task can only move to the newest timestamp
	// (a follow-up message stamps it now), so the black-box variant moves a
	// task the walk has already served: keyset paging is unaffected, while
	// an offset cursor shifts and serves an unchanged task twice.
	BlackBox: func(e *Env) {
		truth, req, ctx := moveData(e, 9)
		c := e.A()
		e.spaceAfter(truth)
		h := e.Walk(c, req, 50, func(after int, p a2aclient.Step) []Write {
			if after != 1 || len(p.Tasks) == 0 {
				return nil
			}
			served := p.Tasks[len(p.Tasks)-1].ID
			e.By("after page 1, move %s (already served on page 1) with a follow-up message", served)
			return []Write{e.moveBlackBox(c, ctx, served)}
		})
		e.Report(CheckMoving("LT-MOVE-AHEAD", h, truth, CatchUp{})...)
	},
})

// moveBlackBox moves task id to the newest status timestamp without the
// control API: a follow-up message, or CancelTask where the agent refuses
// one. It skips the case when neither changes the task.
func (e *Env) moveBlackBox(c *a2aclient.Client, ctx, id string) Write {
	r, err := c.SendMessage(e.ctx, e.ID("followup-"+id), e.target.BlackBoxText, ctx, id)
	e.checkSend(err)
	if r.Err != nil || r.Task.ID != id {
		e.By("the follow-up failed (%s); cancel %s instead", r.Describe(), id)
		r, err = c.CancelTask(e.ctx, id)
		e.Check(err, "CancelTask")
		if r.Err != nil || r.Task.ID != id {
			e.Skip("could not move a task without the control API: a follow-up message and CancelTask both failed (%s)", r.Describe())
		}
	}
	return Write{Kind: "move", TaskID: id, AfterPage: 1, NewTS: r.Task.TS}
}
