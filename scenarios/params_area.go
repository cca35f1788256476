package scenarios

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "params": pageSize bounds and default, historyLength on ListTasks
// and GetTask, includeArtifacts, and totalSize.

var _ = Register(Scenario{
	ID: "LT-PAGESIZE-BOUNDS", Area: "params", Level: MUST, Checker: "CheckPageSizeBounds",
	Title: "pageSize outside 1..100 is refused as invalid params naming pageSize",
	Reqs:  R("LT-REQ-4", "LT-ERR-1", "LT-ERR-2", "LT-PAGE-4"),
	Quote: `pageSize: "The minimum value is 1. The maximum value is 100." (proto); "Servers MUST validate all input parameters before processing" (§3.3.2); example: "Must be between 1 and 100 inclusive, got 150" (§6.5)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		e.Fresh()
		ctx := e.Context("p")
		tasks := Series("p", 0, 1, 120)
		for i := range tasks {
			tasks[i].ContextID = ctx
		}
		e.By("seed 120 tasks in context %s so an oversized page would show", ctx)
		e.Seed(tasks)
		e.Report(CheckPageSizeBounds(e.pageSizeProbes(&ctx))...)
	},
	BlackBox: func(e *Env) {
		if o, why := e.Observe(0); why == "" && len(o.Tasks) > 100 {
			e.Note("an oversized page would show: %s has more than 100 tasks", o.Principal)
		} else {
			e.Note("an oversized page could not show (fewer than 101 tasks observed); judged: whether out-of-range values are refused")
		}
		e.Report(CheckPageSizeBounds(e.pageSizeProbes(nil))...)
	},
})

// PageSizeProbe is one out-of-range pageSize and the reply to it.
type PageSizeProbe struct {
	Value any
	Reply *a2aclient.Page
}

func (e *Env) pageSizeProbes(ctx *string) []PageSizeProbe {
	var out []PageSizeProbe
	for _, v := range []any{0, -1, 101, 150, 1.5} {
		e.By("ListTasks with pageSize %v", v)
		p, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{ContextID: ctx, HistoryLength: a2aclient.Ptr(0), Extra: map[string]any{"pageSize": v}})
		e.Check(err, "ListTasks")
		out = append(out, PageSizeProbe{Value: v, Reply: p})
	}
	return out
}

// CheckPageSizeBounds judges replies to out-of-range page sizes
// (LT-PAGESIZE-BOUNDS). Serving more than 100 tasks, or a page for a
// negative or fractional size, breaks the MUST to validate (Fail).
// Accepting 0 is Non-strict: the field is optional, so an explicit 0 is
// "specified" and below the minimum, but ProtoJSON writers may send 0 for
// "unset" (ambiguity A8). Accepting 101 or 150 while serving at most 100
// contradicts the normative example (Non-strict).
func CheckPageSizeBounds(ps []PageSizeProbe) []Finding {
	var fs []Finding
	for _, p := range ps {
		what := fmt.Sprintf("pageSize %v", p.Value)
		if p.Reply.Err != nil {
			fs = append(fs, CheckRejected(Rejection{What: what, Field: "pageSize", Reply: p.Reply.Response})...)
			continue
		}
		w := p.Reply.X.Transcript()
		n := len(p.Reply.Tasks)
		switch v := p.Value.(type) {
		case int:
			switch {
			case v == 0:
				fs = append(fs, Breach(R("LT-REQ-4", "LT-ERR-1"), "pageSize 0 was accepted (%d tasks served); \"The minimum value is 1\" and an explicit 0 is a specified value (ambiguity A8)", n).Ambiguous("A8").WithWitness(w))
			case v < 0:
				fs = append(fs, Breach(R("LT-ERR-1", "LT-REQ-4"), "pageSize %d was accepted (%d tasks served): \"Servers MUST validate all input parameters\"", v, n).WithWitness(w))
			case n > 100:
				fs = append(fs, Breach(R("LT-ERR-1", "LT-REQ-4"), "pageSize %d was accepted and %d tasks were served: \"The maximum value is 100\" and servers MUST validate input", v, n).WithWitness(w))
			default:
				fs = append(fs, Breach(R("LT-REQ-4", "LT-PAGE-4"), "pageSize %d was accepted (served %d); the spec's example refuses it: \"Must be between 1 and 100 inclusive\"", v, n).WithWitness(w))
			}
		default:
			fs = append(fs, Breach(R("LT-ERR-1", "LT-REQ-4"), "pageSize %v (not an integer) was accepted: servers MUST validate input", p.Value).WithWitness(w))
		}
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-PAGESIZE-DEFAULT", Area: "params", Level: SHOULD, Checker: "CheckPageSizeDefault",
	Title: "With pageSize unset, at most 50 tasks come back",
	Reqs:  R("LT-REQ-4", "LT-REQ-9"),
	Quote: `pageSize: "If unspecified, at most 50 tasks will be returned." (proto); "Implementations should apply the default value when the field is not explicitly provided." (§5.7)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		e.Fresh()
		ctx := e.Context("d")
		tasks := Series("d", 0, 1, 60)
		for i := range tasks {
			tasks[i].ContextID = ctx
		}
		e.By("seed 60 tasks in context %s and list them without pageSize", ctx)
		e.Seed(tasks)
		p, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{ContextID: &ctx, HistoryLength: a2aclient.Ptr(0)})
		e.Check(err, "ListTasks")
		e.By("control: list them with pageSize %d", defaultControlSize)
		c, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{ContextID: &ctx, HistoryLength: a2aclient.Ptr(0), PageSize: a2aclient.Ptr(defaultControlSize)})
		e.Check(err, "ListTasks")
		e.ReportOrDefer(CheckPageSizeDefault(p, c))
	},
	BlackBox: func(e *Env) {
		o, why := e.Observe(0)
		if why != "" || len(o.Tasks) <= 50 {
			e.Skip("the default page size shows only on a listing of more than 50 tasks; %s", observedCount(o, why))
		}
		e.Note("%s", o.Summary())
		e.By("list %s's tasks without pageSize", o.Principal)
		p, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{HistoryLength: a2aclient.Ptr(0)})
		e.Check(err, "ListTasks")
		e.By("control: list them with pageSize %d", defaultControlSize)
		c, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{HistoryLength: a2aclient.Ptr(0), PageSize: a2aclient.Ptr(defaultControlSize)})
		e.Check(err, "ListTasks")
		e.ReportOrDefer(CheckPageSizeDefault(p, c))
	},
})

func observedCount(o *Observed, why string) string {
	if why != "" {
		return why
	}
	return fmt.Sprintf("%s has %d tasks", o.Principal, len(o.Tasks))
}

// defaultControlSize is the explicit pageSize of LT-PAGESIZE-DEFAULT's
// control request.
const defaultControlSize = 10

// CheckPageSizeDefault judges the first page of a listing of more than 50
// tasks requested with no pageSize (LT-PAGESIZE-DEFAULT). control is the
// same listing with pageSize defaultControlSize: when it too holds more
// than it asked for, the server overruns every page size, which
// LT-PAGE-SHORT owns, and the default cannot be judged apart from it. One
// defect, one finding.
func CheckPageSizeDefault(p, control *a2aclient.Page) []Finding {
	if p.Err != nil {
		return []Finding{Breach(R("LT-OP-1"), "ListTasks without pageSize failed: %s", p.Err).WithWitness(p.X.Transcript())}
	}
	var fs []Finding
	overrun := control != nil && control.Err == nil && len(control.Tasks) > defaultControlSize
	switch {
	case len(p.Tasks) > 50 && overrun:
		fs = append(fs, Observe(R("LT-REQ-4", "LT-REQ-9"), "could not judge the default page size: with pageSize unset the page held %d tasks, but with pageSize %d it held %d, so the server overruns every page size (judged by LT-PAGE-SHORT)", len(p.Tasks), defaultControlSize, len(control.Tasks)).Of("unfinished", ""))
	case len(p.Tasks) > 50:
		fs = append(fs, Breach(R("LT-REQ-4", "LT-REQ-9"), "with pageSize unset the page held %d tasks; \"If unspecified, at most 50 tasks will be returned\"", len(p.Tasks)).WithWitness(p.X.Transcript()))
	}
	if p.PageSize != nil {
		fs = append(fs, Observe(R("LT-RESP-5"), "with pageSize unset the response says pageSize %d and holds %d tasks (the meaning of the response's pageSize is disputed, A4)", *p.PageSize, len(p.Tasks)))
	}
	return fs
}

// HistoryProbe is one historyLength request and the history it returned
// for a task whose full history is known.
type HistoryProbe struct {
	// Length is the historyLength sent; nil means unset.
	Length *int
	Reply  *a2aclient.Response
	// Task is the task's reply (nil if the call failed).
	Task *a2aclient.Task
	// Full is the task's complete history, oldest first.
	Full []string
}

var _ = Register(Scenario{
	ID: "LT-HISTORY-LIST", Area: "params", Level: SHOULD, Checker: "CheckHistory",
	Title: "ListTasks historyLength: 0 omits history, N gives at most the N most recent messages, negative is refused",
	Reqs:  R("LT-HIST-1", "LT-HIST-2", "LT-HIST-3", "LT-HIST-4", "LT-HIST-6", "LT-REQ-6"),
	Quote: `"0: No history should be returned; the history field SHOULD be omitted"; "> 0: Return at most this many recent messages from the task's history" (§3.2.4); historyLength "follows consistent semantics across all operations"`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		e.Fresh()
		ctx := e.Context("h")
		e.By("seed one task with 6 history messages in context %s", ctx)
		_, ids := e.Seed([]Task{{Key: "h", TS: At(1), History: 6, ContextID: ctx}})
		e.Report(CheckHistory("ListTasks", e.listHistoryProbes(ctx, ids["h"], seededHistory(ids["h"], 6)))...)
	},
	BlackBox: func(e *Env) {
		id, full := e.probeWithHistory()
		e.Report(CheckHistory("ListTasks", e.listHistoryProbes(e.Probe().Context, id, full))...)
	},
})

var _ = Register(Scenario{
	ID: "LT-HISTORY-GET", Area: "params", Level: MUST, Checker: "CheckHistory",
	Title: "GetTask historyLength: never more than N messages; 0 omits history; negative is refused",
	Reqs:  R("LT-HIST-5", "LT-HIST-3", "LT-HIST-4", "LT-HIST-6"),
	Quote: `GetTask historyLength: "The server MUST NOT return more messages than the provided value, but MAY apply a lower limit." (proto); "0: No history should be returned; the history field SHOULD be omitted" (§3.2.4)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		e.Fresh()
		e.By("seed one task with 6 history messages")
		_, ids := e.Seed([]Task{{Key: "h", TS: At(1), History: 6, ContextID: e.Context("h")}})
		e.Report(CheckHistory("GetTask", e.getHistoryProbes(ids["h"], seededHistory(ids["h"], 6)))...)
	},
	BlackBox: func(e *Env) {
		id, full := e.probeWithHistory()
		e.Report(CheckHistory("GetTask", e.getHistoryProbes(id, full))...)
	},
})

// listHistoryProbes lists context ctx with each historyLength and picks
// task id out of each reply.
func (e *Env) listHistoryProbes(ctx, id string, full []string) []HistoryProbe {
	var ps []HistoryProbe
	n := len(full)
	for _, l := range []*int{nil, a2aclient.Ptr(0), a2aclient.Ptr(1), a2aclient.Ptr(n - 1), a2aclient.Ptr(n + 94), a2aclient.Ptr(-1)} {
		e.By("ListTasks on context %s with historyLength %s, until task %s comes", ctx, lengthStr(l), id)
		probe := HistoryProbe{Length: l, Full: full}
		// The task may be on any page (pages may be short); a refusal
		// ends the walk on page 1.
		h := e.WalkUpTo(e.A(), a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(100), HistoryLength: l}, 20)
		for _, p := range h.Pages {
			if probe.Reply == nil || p.Err != nil {
				probe.Reply = p.Response
			}
			for i := range p.Tasks {
				if p.Tasks[i].ID == id && probe.Task == nil {
					probe.Task, probe.Reply = &p.Tasks[i], p.Response
				}
			}
		}
		ps = append(ps, probe)
	}
	return ps
}

// probeWithHistory finds a probe task with at least 2 history messages and
// returns its id and full history (GetTask with a generous historyLength),
// or skips the case saying what data would decide it.
func (e *Env) probeWithHistory() (string, []string) {
	p := e.Probe()
	ids := make([]string, 0, len(p.Truth))
	for id := range p.Truth {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids[:min(5, len(ids))] {
		g, err := e.A().GetTask(e.ctx, id, a2aclient.Ptr(1000))
		e.Check(err, "GetTask")
		if g.Err == nil && len(g.Task.History) >= 2 {
			e.Note("judged on probe task %s, whose history holds %d messages", id, len(g.Task.History))
			return id, g.Task.History
		}
	}
	e.Skip("historyLength can be judged only on a task with at least 2 history messages; GetTask showed fewer on the probe tasks (the agent keeps no history?)")
	return "", nil
}

func (e *Env) getHistoryProbes(id string, full []string) []HistoryProbe {
	var ps []HistoryProbe
	for _, l := range []*int{nil, a2aclient.Ptr(0), a2aclient.Ptr(1), a2aclient.Ptr(len(full) - 1), a2aclient.Ptr(-1)} {
		e.By("GetTask with historyLength %s", lengthStr(l))
		g, err := e.A().GetTask(e.ctx, id, l)
		e.Check(err, "GetTask")
		probe := HistoryProbe{Length: l, Reply: g.Response, Full: full}
		if g.Err == nil && g.Problem == "" {
			probe.Task = &g.Task
		}
		ps = append(ps, probe)
	}
	return ps
}

// seededHistory returns the message ids the control API generates for a
// task with n history messages (docs/control-api.md).
func seededHistory(id string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-m%d", id, i+1)
	}
	return out
}

func lengthStr(l *int) string {
	if l == nil {
		return "unset"
	}
	return fmt.Sprint(*l)
}

// CheckHistory judges historyLength probes for op. overLimit builds the
// finding for returning more than N messages: Fail for GetTask (its proto
// says MUST NOT), Non-strict for ListTasks (whose own comment lacks the
// sentence; LT-HIST-1 says the semantics are shared).
func CheckHistory(op string, ps []HistoryProbe) []Finding {
	var fs []Finding
	limitReqs := R("LT-HIST-4", "LT-HIST-1")
	if op == "GetTask" {
		limitReqs = R("LT-HIST-5", "LT-HIST-4")
	}
	for _, p := range ps {
		l := lengthStr(p.Length)
		if p.Length != nil && *p.Length < 0 {
			if p.Reply.Err == nil {
				fs = append(fs, Breach(R("LT-HIST-6", "LT-ERR-1"), "%s accepted historyLength %d; the spec's example refuses it: \"Must be non-negative integer\"", op, *p.Length).WithWitness(p.Reply.X.Transcript()))
			} else {
				fs = append(fs, CheckRejected(Rejection{What: op + " historyLength " + l, Field: "historyLength", Reply: p.Reply})...)
			}
			continue
		}
		if p.Reply.Err != nil || p.Task == nil {
			fs = append(fs, Breach(R("LT-OP-1"), "%s with historyLength %s failed: %s", op, l, p.Reply.Describe()).WithWitness(p.Reply.X.Transcript()))
			continue
		}
		w := p.Reply.X.Transcript()
		got := p.Task.History
		switch {
		case p.Length == nil:
			fs = append(fs, Observe(R("LT-HIST-2"), "%s with historyLength unset returned %d of %d messages (the server's default)", op, len(got), len(p.Full)))
		case *p.Length == 0:
			if p.Task.Raw.Has("history") {
				fs = append(fs, Breach(R("LT-HIST-3"), "%s with historyLength 0 returned a history member (%d messages); \"the history field SHOULD be omitted\"", op, len(got)).WithWitness(w))
			}
		default:
			n := *p.Length
			if len(got) > n {
				fs = append(fs, Breach(limitReqs, "%s with historyLength %d returned %d messages", op, n, len(got)).WithWitness(w))
				continue
			}
			want := p.Full[max(0, len(p.Full)-n):]
			if len(got) > 0 && !isSuffix(got, p.Full) {
				fs = append(fs, Breach(R("LT-HIST-4"), "%s with historyLength %d returned %s, which are not the most recent messages in order (want a tail of %s)",
					op, n, strings.Join(got, ","), strings.Join(want, ",")).WithWitness(w))
			}
		}
	}
	return fs
}

func isSuffix(got, full []string) bool {
	if len(got) > len(full) {
		return false
	}
	off := len(full) - len(got)
	for i := range got {
		if got[i] != full[off+i] {
			return false
		}
	}
	return true
}

var _ = Register(Scenario{
	ID: "LT-ARTIFACTS-OMIT", Area: "params", Level: MUST, Checker: "CheckArtifacts",
	Title: "Without includeArtifacts, the artifacts field is omitted entirely; with it, artifacts are present",
	Reqs:  R("LT-ART-1", "LT-ART-2", "LT-ART-3", "LT-REQ-8"),
	Quote: `"When includeArtifacts is false (the default), the artifacts field MUST be omitted entirely from each Task object in the response. The field should not be present as an empty array or null value. When includeArtifacts is true, the artifacts field should be included with its actual content" (§3.1.4)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		e.Fresh()
		ctx := e.Context("a")
		e.By("seed 3 tasks with artifacts and 3 without, in context %s", ctx)
		tasks := Series("a", 0, 1, 6)
		counts := map[string]int{}
		for i := range tasks {
			tasks[i].ContextID = ctx
			if i%2 == 0 {
				tasks[i].Artifacts = 2
			}
		}
		_, ids := e.Seed(tasks)
		for _, t := range tasks {
			counts[ids[t.Key]] = t.Artifacts
		}
		e.Report(CheckArtifacts(e.artifactListings(&ctx, counts))...)
	},
	BlackBox: func(e *Env) {
		p := e.Probe()
		counts := map[string]int{}
		with, without := e.artifactCounts(sortedIDs(p.Truth), counts)
		e.Note("probe tasks, as GetTask shows them: %d with artifacts, %d without", with, without)
		obs := e.artifactListings(&p.Context, counts)
		if o, why := e.Observe(0); why == "" {
			// The existing tasks as the observe walk listed them
			// (includeArtifacts unset), and a context of theirs that holds
			// tasks with artifacts, listed with each includeArtifacts.
			for _, st := range o.Walk.Pages {
				obs = append(obs, ArtifactObs{Page: st.Page, Counts: map[string]int{}})
			}
			var sample []string
			for _, t := range o.Tasks[:min(20, len(o.Tasks))] {
				sample = append(sample, t.ID)
			}
			n, _ := e.artifactCounts(sample, counts)
			with += n
			for _, t := range o.Tasks[:min(20, len(o.Tasks))] {
				if counts[t.ID] > 0 {
					ctx := t.ContextID
					e.Note("existing task %s has %d artifacts; its context %s is listed too", t.ID, counts[t.ID], ctx)
					obs = append(obs, e.artifactListings(&ctx, counts)...)
					break
				}
			}
		}
		fs := CheckArtifacts(obs)
		if !Judged(fs) && with == 0 {
			e.Skip("omitting artifacts can be told from having none only on tasks that have artifacts; GetTask showed none on the probe tasks or the existing tasks sampled")
		}
		e.Report(fs...)
	},
})

// artifactCounts reads the artifacts of each task with GetTask into counts
// and returns how many have some and how many none.
func (e *Env) artifactCounts(ids []string, counts map[string]int) (with, without int) {
	for _, id := range ids {
		g, err := e.A().GetTask(e.ctx, id, a2aclient.Ptr(0))
		e.Check(err, "GetTask")
		if g.Err != nil {
			continue
		}
		n, _ := g.Task.ArtifactCount()
		counts[id] = n
		if n > 0 {
			with++
		} else {
			without++
		}
	}
	return with, without
}

func sortedIDs(t Truth) []string {
	ids := make([]string, 0, len(t))
	for id := range t {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// artifactListings lists context ctx (nil: no filter) with includeArtifacts
// unset, false and true.
func (e *Env) artifactListings(ctx *string, counts map[string]int) []ArtifactObs {
	var obs []ArtifactObs
	for _, inc := range []*bool{nil, a2aclient.Ptr(false), a2aclient.Ptr(true)} {
		e.By("ListTasks with includeArtifacts %s", boolStr(inc))
		p, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{ContextID: ctx, PageSize: a2aclient.Ptr(100), HistoryLength: a2aclient.Ptr(0), IncludeArtifacts: inc})
		e.Check(err, "ListTasks")
		obs = append(obs, ArtifactObs{Include: inc, Page: p, Counts: counts})
	}
	return obs
}

// ArtifactObs is one listing and the artifact counts seeded per task.
type ArtifactObs struct {
	Include *bool
	Page    *a2aclient.Page
	Counts  map[string]int
}

func boolStr(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}

// CheckArtifacts judges artifacts in listings (LT-ARTIFACTS-OMIT).
func CheckArtifacts(obs []ArtifactObs) []Finding {
	var fs []Finding
	for _, o := range obs {
		if o.Page == nil || o.Page.Response == nil {
			continue
		}
		if o.Page.Err != nil {
			fs = append(fs, Breach(R("LT-OP-1"), "ListTasks with includeArtifacts %s failed: %s", boolStr(o.Include), o.Page.Err).WithWitness(o.Page.X.Transcript()))
			continue
		}
		w := o.Page.X.Transcript()
		on := o.Include != nil && *o.Include
		for _, t := range o.Page.Tasks {
			n, isArray := t.ArtifactCount()
			switch {
			case !on && t.HasArtifacts() && n > 0:
				fs = append(fs, Breach(R("LT-ART-1"), "includeArtifacts %s: task %s carries %d artifacts; the field MUST be omitted entirely", boolStr(o.Include), t.ID, n).Of("present", boolStr(o.Include)).WithWitness(w))
			case !on && t.HasArtifacts():
				fs = append(fs, Breach(R("LT-ART-2", "LT-ART-1"), "includeArtifacts %s: task %s has artifacts as %s; \"The field should not be present as an empty array or null value\"",
					boolStr(o.Include), t.ID, string(t.Raw["artifacts"])).Of("empty", boolStr(o.Include)).WithWitness(w))
			case on && o.Counts[t.ID] > 0 && (!isArray || n != o.Counts[t.ID]):
				fs = append(fs, Breach(R("LT-ART-3"), "includeArtifacts true: task %s has %d artifacts but the listing shows %d", t.ID, o.Counts[t.ID], n).Of("content", "").WithWitness(w))
			case on && !t.HasArtifacts() && o.Counts[t.ID] == 0:
				fs = append(fs, Observe(R("LT-ART-3"), "includeArtifacts true: a task without artifacts omits the field (the spec allows an empty array; omitting it is the server's reading)").Of("none-omitted", ""))
			}
		}
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-TOTALSIZE", Area: "params", Level: SHOULD, Checker: "CheckTotalSize",
	Title: "totalSize counts the filtered set and stays the same on every page of a walk with no writes",
	Reqs:  R("LT-RESP-6", "LT-SEED-6"),
	Quote: `totalSize: "Total number of tasks available (before pagination)." (proto, REQUIRED)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		e.Fresh()
		ctx, other := e.Context("t"), e.Context("u")
		tasks := Series("t", 0, 1, 17)
		for i := range tasks {
			tasks[i].ContextID = other
			if i < 11 {
				tasks[i].ContextID = ctx
			}
		}
		e.By("seed 17 tasks, 11 of them in context %s and 6 in %s", ctx, other)
		e.Seed(tasks)
		for c, n := range map[string]int{ctx: 11, other: 6} {
			h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: &c, PageSize: a2aclient.Ptr(4), HistoryLength: a2aclient.Ptr(0)}, 50, nil)
			e.ReportOrDefer(CheckTotalSize(h, n, c))
		}
	},
	BlackBox: func(e *Env) {
		p := e.Probe()
		e.Note("%s", p.Summary())
		h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: &p.Context, PageSize: a2aclient.Ptr(7), HistoryLength: a2aclient.Ptr(0)}, 50, nil)
		e.ReportOrDefer(CheckTotalSize(h, len(p.Truth), p.Context))
	},
})

// CheckTotalSize judges totalSize over a walk with no writes (LT-TOTALSIZE)
// filtered by contextId ctx, which want tasks match. A walk that served
// tasks of another context shows the filter ignored, which
// LT-FILTER-CONTEXT owns: the count of the filtered set cannot be judged
// then. One defect, one finding.
func CheckTotalSize(h History, want int, ctx string) []Finding {
	var outside []string
	for _, p := range h.Pages {
		for _, t := range p.Tasks {
			if t.ContextID != "" && t.ContextID != ctx {
				outside = append(outside, t.ID)
			}
		}
	}
	if len(outside) > 0 {
		return []Finding{Observe(R("LT-RESP-6"), "could not judge totalSize: the walk filtered by contextId %s served %d tasks of other contexts (first: %s), so the filter was not applied (judged by LT-FILTER-CONTEXT)", ctx, len(outside), outside[0]).Of("unfinished", "")}
	}
	var fs []Finding
	for _, p := range h.Pages {
		if p.TotalSize == nil || p.Err != nil {
			continue
		}
		if *p.TotalSize != want {
			fs = append(fs, Breach(R("LT-RESP-6"), "page %d says totalSize %d; %d tasks match (\"Total number of tasks available (before pagination)\")", p.N, *p.TotalSize, want).WithWitness(h.Witness(p.N)))
			break
		}
	}
	return append(EndFindings(h, "LT-TOTALSIZE"), fs...)
}
