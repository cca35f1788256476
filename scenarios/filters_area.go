package scenarios

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "filters": contextId, status and statusTimestampAfter, alone and
// combined; invalid filter values; and the same requests on both bindings.
//
// A filtered walk is judged by what every served task is (it must match the
// filter: a filter silently ignored hands the caller an unfiltered list)
// and by which known tasks it must contain (the ones pagewalk seeded or
// created, and the existing tasks it observed). Tasks pagewalk did not make
// may be served too, as long as they match; so the checks hold on a server
// full of other data.
//
// The filter semantics come from proto comments, normative (§1.4) but
// without an RFC 2119 keyword, so a mismatch is Non-strict. Returning
// different results on the two bindings breaks the MUST of §5.1 (Fail).

// filterTasks seeds 18 tasks over 3 contexts of the case's own and 3
// states, one second apart, and returns them with their ids.
func filterTasks(e *Env) ([]Task, map[string]string) {
	e.Fresh()
	states := []string{"TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_INPUT_REQUIRED"}
	var tasks []Task
	for i := 0; i < 18; i++ {
		tasks = append(tasks, Task{Key: fmt.Sprintf("f%02d", i), TS: At(i + 1), ContextID: e.Context(fmt.Sprintf("%d", i%3)), State: states[(i/3)%3]})
	}
	e.By("seed 18 tasks over 3 contexts and 3 states")
	_, ids := e.Seed(tasks)
	return tasks, ids
}

// FilterCase is one filtered walk: every served task must satisfy Match,
// and every task of Want must be served (those older than where a walk
// that ended early stopped are not judged).
type FilterCase struct {
	What  string
	H     History
	Match func(a2aclient.Task) (bool, string)
	Want  Truth
}

// matchContext, matchStatus and matchAfter are the filters' predicates; the
// string says what a mismatching task has instead.
func matchContext(ctx string) func(a2aclient.Task) (bool, string) {
	return func(t a2aclient.Task) (bool, string) { return t.ContextID == ctx, "contextId " + t.ContextID }
}

func matchStatus(st string) func(a2aclient.Task) (bool, string) {
	return func(t a2aclient.Task) (bool, string) {
		return st == "TASK_STATE_UNSPECIFIED" || t.State == st, "state " + t.State
	}
}

func matchAfter(cut time.Time) func(a2aclient.Task) (bool, string) {
	return func(t a2aclient.Task) (bool, string) {
		return t.TS.IsZero() || !t.TS.Before(cut), "status timestamp " + t.Timestamp
	}
}

func matchAll(ms ...func(a2aclient.Task) (bool, string)) func(a2aclient.Task) (bool, string) {
	return func(t a2aclient.Task) (bool, string) {
		for _, m := range ms {
			if ok, why := m(t); !ok {
				return false, why
			}
		}
		return true, ""
	}
}

// want selects the tasks of a truth (with their records) that match.
func want(truth Truth, tasks map[string]a2aclient.Task, m func(a2aclient.Task) (bool, string)) Truth {
	out := Truth{}
	for id, ts := range truth {
		t, ok := tasks[id]
		if !ok {
			continue
		}
		t.TS = ts
		if ok, _ := m(t); ok {
			out[id] = ts
		}
	}
	return out
}

func (e *Env) filterWalk(c *a2aclient.Client, what string, req a2aclient.ListRequest, match func(a2aclient.Task) (bool, string), w Truth) FilterCase {
	e.By("walk with %s", what)
	req.PageSize, req.HistoryLength = a2aclient.Ptr(20), a2aclient.Ptr(0)
	return FilterCase{What: what, Match: match, Want: w, H: e.WalkUpTo(c, req, 25)}
}

// CheckFilter judges filtered walks (the filter cases): served tasks that
// do not match, and wanted tasks never served. reqs name the filter's
// requirement.
func CheckFilter(self string, cases []FilterCase, reqs []string) []Finding {
	var fs []Finding
	for _, c := range cases {
		fs = append(fs, EndFindings(c.H, self)...)
		var extra []string
		var why []string
		var pages []int
		seen := map[string]bool{}
		for _, p := range c.H.Pages {
			for _, t := range p.Tasks {
				seen[t.ID] = true
				if ok, w := c.Match(t); !ok {
					extra = append(extra, t.ID)
					if len(why) < 3 {
						why = append(why, t.ID+" has "+w)
					}
					if len(pages) == 0 || pages[len(pages)-1] != p.N {
						pages = append(pages, p.N)
					}
				}
			}
		}
		if len(extra) > 0 {
			fs = append(fs, Breach(reqs, "%s: %d served tasks do not match the filter (%s); a filter ignored hands the caller an unfiltered list",
				c.What, len(extra), strings.Join(why, "; ")).Of("extra", c.What).WithWitness(c.H.Witness(pages[:min(2, len(pages))]...)))
		}
		last, hasLast := lastTS(c.H)
		// A tie that a page boundary splits is LT-TIE-BOUNDARY's business.
		ends := pageEndTimes(c.H)
		count := map[time.Time]int{}
		for _, ts := range c.Want {
			count[ts]++
		}
		var missing []string
		for id, ts := range c.Want {
			if seen[id] || (c.H.Ended() && hasLast && !ts.After(last)) || (c.H.Ended() && !hasLast) || (count[ts] > 1 && ends[ts]) {
				continue
			}
			missing = append(missing, id)
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			var ps []int
			for _, p := range c.H.Pages {
				ps = append(ps, p.N)
			}
			fs = append(fs, Breach(reqs, "%s: %d tasks that match were not served (%s)", c.What, len(missing), idList(missing, 4)).
				Of("missing", c.What).WithWitness(c.H.Witness(ps[:min(2, len(ps))]...)))
		}
	}
	return fs
}

// seededFilterData is filterTasks as a truth and task records.
func seededFilterData(e *Env) ([]Task, Truth, map[string]a2aclient.Task) {
	tasks, ids := filterTasks(e)
	truth, recs := Truth{}, map[string]a2aclient.Task{}
	for _, t := range tasks {
		id := ids[t.Key]
		truth[id] = t.TS
		recs[id] = a2aclient.Task{ID: id, ContextID: t.ContextID, State: t.State, TS: t.TS}
	}
	return tasks, truth, recs
}

// blackBoxFilterData is the probe set plus the observed existing tasks, as
// one truth and task records: what filtered black-box walks are judged on.
func (e *Env) blackBoxFilterData() (*Probe, Truth, map[string]a2aclient.Task) {
	p := e.Probe()
	e.Note("%s", p.Summary())
	truth, recs := Truth{}, map[string]a2aclient.Task{}
	for id, ts := range p.Truth {
		truth[id] = ts
		recs[id] = p.Tasks[id]
	}
	if o, why := e.Observe(0); why == "" {
		e.Note("%s", o.Summary())
		for _, t := range o.Tasks {
			truth[t.ID], recs[t.ID] = t.TS, t
		}
	}
	return p, truth, recs
}

var _ = Register(Scenario{
	ID: "LT-FILTER-CONTEXT", Area: "filters", Level: SHOULD, Checker: "CheckFilter",
	Title: "contextId returns exactly the tasks of that context",
	Reqs:  R("LT-REQ-2", "LT-RESP-1"),
	Quote: `contextId: "Filter tasks by context ID to get tasks from a specific conversation or session." (proto)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		_, truth, recs := seededFilterData(e)
		var cs []FilterCase
		for i := 0; i < 3; i++ {
			ctx := e.Context(fmt.Sprintf("%d", i))
			m := matchContext(ctx)
			cs = append(cs, e.filterWalk(e.A(), "contextId "+ctx, a2aclient.ListRequest{ContextID: &ctx}, m, want(truth, recs, m)))
		}
		e.Report(CheckFilter("LT-FILTER-CONTEXT", cs, R("LT-REQ-2", "LT-RESP-1"))...)
	},
	BlackBox: func(e *Env) {
		p, truth, recs := e.blackBoxFilterData()
		ctxs := []string{p.Context}
		if o, why := e.Observe(0); why == "" {
			// The observed context with the most tasks, other than ours.
			best, n := "", 0
			for ctx, idx := range o.ByContext {
				if len(idx) > n && !strings.HasPrefix(ctx, runPrefix) {
					best, n = ctx, len(idx)
				}
			}
			if best != "" {
				ctxs = append(ctxs, best)
			}
		}
		var cs []FilterCase
		for _, ctx := range ctxs {
			m := matchContext(ctx)
			cs = append(cs, e.filterWalk(e.A(), "contextId "+ctx, a2aclient.ListRequest{ContextID: &ctx}, m, want(truth, recs, m)))
		}
		e.Note("contexts judged: %s", strings.Join(ctxs, ", "))
		e.Report(CheckFilter("LT-FILTER-CONTEXT", cs, R("LT-REQ-2", "LT-RESP-1"))...)
	},
})

var _ = Register(Scenario{
	ID: "LT-FILTER-STATUS", Area: "filters", Level: SHOULD, Checker: "CheckFilter",
	Title: "status returns exactly the tasks in that state; TASK_STATE_UNSPECIFIED means no filter",
	Reqs:  R("LT-REQ-3", "LT-RESP-1"),
	Quote: `status: "Filter tasks by their current status state." (proto)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		_, truth, recs := seededFilterData(e)
		var cs []FilterCase
		for _, st := range []string{"TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_FAILED", "TASK_STATE_UNSPECIFIED"} {
			m := matchStatus(st)
			cs = append(cs, e.filterWalk(e.A(), "status "+st, a2aclient.ListRequest{Status: &st}, m, want(truth, recs, m)))
		}
		e.Report(CheckFilter("LT-FILTER-STATUS", cs, R("LT-REQ-3", "LT-RESP-1"))...)
	},
	BlackBox: func(e *Env) {
		_, truth, recs := e.blackBoxFilterData()
		states := map[string]int{}
		odd := 0
		for _, t := range recs {
			if !taskStates[t.State] {
				odd++ // not a value the status filter takes
				continue
			}
			states[t.State]++
		}
		if odd > 0 {
			e.Note("%d known tasks have a status.state that is no TaskState name (LT-TASK-SHAPE and LT-WALK-SHAPE judge that); their states are not used as filters", odd)
		}
		if len(states) < 2 {
			e.Skip("a status filter can be told from no filter only with tasks in two states or more; the probe and existing tasks are all %v", states)
		}
		var cs []FilterCase
		var judged []string
		for st := range states {
			m := matchStatus(st)
			cs = append(cs, e.filterWalk(e.A(), "status "+st, a2aclient.ListRequest{Status: &st}, m, want(truth, recs, m)))
			judged = append(judged, fmt.Sprintf("%s (%d known tasks)", st, states[st]))
		}
		// TASK_STATE_UNSPECIFIED means no status filter: the listing is the
		// unfiltered one (its newest pages are compared).
		un := "TASK_STATE_UNSPECIFIED"
		plain := e.WalkUpTo(e.A(), a2aclient.ListRequest{PageSize: a2aclient.Ptr(20), HistoryLength: a2aclient.Ptr(0)}, 3)
		unspec := e.WalkUpTo(e.A(), a2aclient.ListRequest{Status: &un, PageSize: a2aclient.Ptr(20), HistoryLength: a2aclient.Ptr(0)}, 3)
		e.Report(CheckUnspecified(plain, unspec)...)
		sort.Strings(judged)
		e.Note("states judged: %s", strings.Join(judged, ", "))
		e.Report(CheckFilter("LT-FILTER-STATUS", cs, R("LT-REQ-3", "LT-RESP-1"))...)
	},
})

// CheckUnspecified judges status TASK_STATE_UNSPECIFIED (LT-FILTER-STATUS):
// it means no filter, so it must serve what the unfiltered listing serves
// (compared over the tasks both walks served).
func CheckUnspecified(plain, unspec History) []Finding {
	a, b := plain.Served(), unspec.Served()
	n := min(len(a), len(b))
	// A walk may serve fewer tasks than the other only where pagewalk
	// stopped it (its page bound); a walk the server ended is the whole
	// listing.
	if equalIDs(a[:n], b[:n]) && (len(b) >= len(a) || unspec.Bounded) && (len(a) >= len(b) || plain.Bounded) {
		return nil
	}
	return []Finding{Breach(R("LT-REQ-3", "LT-RESP-1"), "status TASK_STATE_UNSPECIFIED served %d tasks where no filter served %d (the newest, compared in order): it must mean no status filter", len(b), len(a)).
		WithWitness(plain.Witness(1) + "\n" + unspec.Witness(1))}
}

var _ = Register(Scenario{
	ID: "LT-FILTER-TSA", Area: "filters", Level: SHOULD, Checker: "CheckFilter",
	Title: "statusTimestampAfter is inclusive (>=), as the proto says",
	Reqs:  R("LT-TSA-1", "LT-TSA-2"),
	Quote: `statusTimestampAfter: "Only tasks with a status timestamp time greater than or equal to this value will be returned." (proto) The seed reads it as "strictly after" (A1); this case checks the proto's words, and LT-MOVE-* report what the server did as Info.`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		tasks, truth, recs := seededFilterData(e)
		var cs []FilterCase
		for _, k := range []int{0, 5, 17} {
			cut := tasks[k].TS
			m := matchAfter(cut)
			at := a2aclient.FormatTimestamp(cut)
			cs = append(cs, e.filterWalk(e.A(), "statusTimestampAfter "+at+" (exactly a task's timestamp)", a2aclient.ListRequest{StatusTimestampAfter: &at}, m, want(truth, recs, m)))
		}
		mid := tasks[8].TS.Add(-500 * time.Millisecond)
		at := a2aclient.FormatTimestamp(mid)
		cs = append(cs, e.filterWalk(e.A(), "statusTimestampAfter "+at+" (between two tasks)", a2aclient.ListRequest{StatusTimestampAfter: &at}, matchAfter(mid), want(truth, recs, matchAfter(mid))))
		e.Report(CheckFilter("LT-FILTER-TSA", cs, R("LT-TSA-2", "LT-TSA-1"))...)
	},
	BlackBox: func(e *Env) {
		p, truth, recs := e.blackBoxFilterData()
		cuts := tsaCuts(p)
		if len(cuts) == 0 {
			e.Skip("statusTimestampAfter needs probe tasks with at least 2 distinct status timestamps to cut between")
		}
		var cs []FilterCase
		for _, cut := range cuts {
			m := matchAfter(cut.ts)
			cs = append(cs, e.filterWalk(e.A(), "statusTimestampAfter "+cut.text+" ("+cut.what+")", a2aclient.ListRequest{StatusTimestampAfter: &cut.text}, m, want(truth, recs, m)))
		}
		e.Note("cuts judged: %d, at probe tasks' own timestamps (inclusive boundary) and between them", len(cuts))
		e.Report(CheckFilter("LT-FILTER-TSA", cs, R("LT-TSA-2", "LT-TSA-1"))...)
	},
})

type tsaCut struct {
	ts   time.Time
	text string
	what string
}

// tsaCuts chooses statusTimestampAfter values from the probe set: the
// exact timestamp (as the server wrote it) of an untied task in the middle
// of the set, and an instant between two distinct timestamps.
func tsaCuts(p *Probe) []tsaCut {
	byTS := map[time.Time][]string{}
	for id, ts := range p.Truth {
		if !ts.IsZero() {
			byTS[ts] = append(byTS[ts], id)
		}
	}
	var ts []time.Time
	for t := range byTS {
		ts = append(ts, t)
	}
	if len(ts) < 2 {
		return nil
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].After(ts[j]) })
	var out []tsaCut
	for _, t := range ts[len(ts)/3:] {
		if ids := byTS[t]; len(ids) == 1 {
			text := p.Tasks[ids[0]].Timestamp
			if text == "" {
				text = a2aclient.FormatTimestamp(t)
			}
			out = append(out, tsaCut{ts: t, text: text, what: "exactly task " + ids[0] + "'s timestamp"})
			break
		}
	}
	i := len(ts) / 2
	if mid := ts[i].Add(ts[i-1].Sub(ts[i]) / 2); mid.After(ts[i]) && mid.Before(ts[i-1]) {
		out = append(out, tsaCut{ts: mid, text: a2aclient.FormatTimestamp(mid), what: "between two tasks"})
	}
	return out
}

var _ = Register(Scenario{
	ID: "LT-FILTER-COMBINED", Area: "filters", Level: SHOULD, Checker: "CheckFilter",
	Title: "Filters combine as AND",
	Reqs:  R("LT-REQ-2", "LT-REQ-3", "LT-REQ-7", "LT-RESP-1"),
	Quote: `ListTasksRequest filters contextId, status and statusTimestampAfter; tasks: "Array of tasks matching the specified criteria." (proto)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		tasks, truth, recs := seededFilterData(e)
		ctx := e.Context("1")
		e.Report(CheckFilter("LT-FILTER-COMBINED", e.combinedCases(ctx, "TASK_STATE_COMPLETED", tasks[12].TS, a2aclient.FormatTimestamp(tasks[12].TS), truth, recs), R("LT-REQ-2", "LT-REQ-3", "LT-REQ-7", "LT-RESP-1"))...)
	},
	BlackBox: func(e *Env) {
		p, truth, recs := e.blackBoxFilterData()
		cuts := tsaCuts(p)
		states := map[string]int{}
		for id := range p.Truth {
			if st := p.Tasks[id].State; taskStates[st] {
				// Only TaskState names are status filters (a state that is
				// none is LT-TASK-SHAPE's and LT-WALK-SHAPE's to judge).
				states[st]++
			}
		}
		st, n := "", 0
		for s, k := range states {
			if k > n {
				st, n = s, k
			}
		}
		if len(cuts) == 0 || st == "" {
			e.Skip("combined filters need probe tasks with a state and at least 2 distinct timestamps")
		}
		e.Note("combined over context %s, state %s (%d probe tasks), cut %s", p.Context, st, n, cuts[len(cuts)-1].text)
		e.Report(CheckFilter("LT-FILTER-COMBINED", e.combinedCases(p.Context, st, cuts[len(cuts)-1].ts, cuts[len(cuts)-1].text, truth, recs), R("LT-REQ-2", "LT-REQ-3", "LT-REQ-7", "LT-RESP-1"))...)
	},
})

// combinedCases walks every combination of two and three filters whose
// filters each work alone: a filter that fails alone is its own case's to
// judge (LT-FILTER-CONTEXT, -STATUS, -TSA), and a combination with it
// cannot show how filters combine.
func (e *Env) combinedCases(ctx, st string, cut time.Time, at string, truth Truth, recs map[string]a2aclient.Task) []FilterCase {
	mc, ms, ma := matchContext(ctx), matchStatus(st), matchAfter(cut)
	works := map[string]bool{}
	for _, f := range []struct {
		name string
		req  a2aclient.ListRequest
		m    func(a2aclient.Task) (bool, string)
	}{
		{"contextId", a2aclient.ListRequest{ContextID: &ctx}, mc},
		{"status", a2aclient.ListRequest{Status: &st}, ms},
		{"statusTimestampAfter", a2aclient.ListRequest{StatusTimestampAfter: &at}, ma},
	} {
		c := e.filterWalk(e.A(), f.name+" alone", f.req, f.m, want(truth, recs, f.m))
		works[f.name] = len(CheckFilter("LT-FILTER-COMBINED", []FilterCase{c}, R("LT-REQ-2"))) == 0
		if !works[f.name] {
			e.Note("%s alone does not filter as it should (its own case judges that); combinations with it are not judged", f.name)
		}
	}
	var cs []FilterCase
	for _, c := range []struct {
		what  string
		needs []string
		req   a2aclient.ListRequest
		m     func(a2aclient.Task) (bool, string)
	}{
		{"contextId and status", []string{"contextId", "status"}, a2aclient.ListRequest{ContextID: &ctx, Status: &st}, matchAll(mc, ms)},
		{"contextId and statusTimestampAfter", []string{"contextId", "statusTimestampAfter"}, a2aclient.ListRequest{ContextID: &ctx, StatusTimestampAfter: &at}, matchAll(mc, ma)},
		{"status and statusTimestampAfter", []string{"status", "statusTimestampAfter"}, a2aclient.ListRequest{Status: &st, StatusTimestampAfter: &at}, matchAll(ms, ma)},
		{"all three", []string{"contextId", "status", "statusTimestampAfter"}, a2aclient.ListRequest{ContextID: &ctx, Status: &st, StatusTimestampAfter: &at}, matchAll(mc, ms, ma)},
	} {
		ok := true
		for _, n := range c.needs {
			ok = ok && works[n]
		}
		if ok {
			cs = append(cs, e.filterWalk(e.A(), c.what, c.req, c.m, want(truth, recs, c.m)))
		}
	}
	if len(cs) == 0 {
		e.Skip("no two filters work alone, so how they combine cannot be judged")
	}
	return cs
}

var _ = Register(Scenario{
	ID: "LT-FILTER-INVALID", Area: "filters", Level: MUST, Checker: "CheckRejected",
	Title: "An unknown status or an unparseable statusTimestampAfter is refused as invalid params naming the field",
	Reqs:  R("LT-ERR-1", "LT-ERR-2", "LT-REQ-3", "LT-REQ-7"),
	Quote: `"Servers MUST validate all input parameters before processing"; "Servers SHOULD specify which parameter(s) failed validation and why"; "Example error codes: ... JSON-RPC -32602 Invalid params" (§3.3.2)`,
	Run: func(e *Env) {
		type probe struct {
			field    string
			value    any
			accepted []string
		}
		probes := []probe{
			{"status", "TASK_STATE_BOGUS", nil},
			{"status", "done", nil},
			{"statusTimestampAfter", "yesterday", nil},
			{"statusTimestampAfter", "2026-13-45T99:00:00Z", nil},
		}
		if e.Binding() == a2aclient.JSONRPC {
			// A number for a string field: ProtoJSON (ADR-001) has strings
			// for string fields, but parsers differ in how lenient they are,
			// so accepting it is at most Non-strict.
			probes = append(probes, probe{"contextId", 42, R("LT-JSON-5", "LT-ERR-1")})
		}
		for _, p := range probes {
			e.By("ListTasks with %s %v", p.field, p.value)
			pg, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{PageSize: a2aclient.Ptr(2), Extra: map[string]any{p.field: p.value}})
			e.Check(err, "ListTasks")
			e.Report(CheckRejected(Rejection{What: fmt.Sprintf("%s %v", p.field, p.value), Field: p.field, Reply: pg.Response, Accepted: p.accepted})...)
		}
	},
})

// BindingPair is the same request answered on both bindings.
type BindingPair struct {
	What      string
	RPC, HTTP History
	// RPCAgain is the JSON-RPC walk repeated after the HTTP+JSON one. When
	// it serves what HTTP+JSON served and the first JSON-RPC walk did not,
	// the listing changed between reads made with no writes (a read with a
	// side effect, LT-IDEMPOTENT's), not between bindings.
	RPCAgain   History
	RPCErr     *a2aclient.Response
	HTTPErr    *a2aclient.Response
	ErrorProbe bool
}

var _ = Register(Scenario{
	ID: "LT-BINDING-CONSISTENT", Area: "filters", Level: MUST, Checker: "CheckBindings",
	Title:        "JSON-RPC and HTTP+JSON return the same tasks and the same errors for the same requests",
	Reqs:         R("LT-OP-8"),
	Quote:        `"When an agent supports multiple protocols, all supported protocols MUST: ... Consistent Behavior: Return semantically equivalent results for the same requests; Same Error Handling: Map errors consistently" (§5.1)`,
	Needs:        []Capability{NeedControl, NeedBothBindings},
	CrossBinding: true,
	Run: func(e *Env) {
		filterTasks(e)
		ctx := e.Context("2")
		st := "TASK_STATE_WORKING"
		at := a2aclient.FormatTimestamp(At(9))
		e.Report(CheckBindings(e.bindingPairs([]bindingProbe{
			{"contextId", a2aclient.ListRequest{ContextID: &ctx}},
			{"contextId and status", a2aclient.ListRequest{ContextID: &ctx, Status: &st}},
			{"contextId and statusTimestampAfter", a2aclient.ListRequest{ContextID: &ctx, StatusTimestampAfter: &at}},
			{"status", a2aclient.ListRequest{Status: &st}},
			{"no filter", a2aclient.ListRequest{}},
		}))...)
	},
	BlackBox: func(e *Env) {
		p := e.Probe()
		e.Note("%s", p.Summary())
		probes := []bindingProbe{{"contextId (the probe set)", a2aclient.ListRequest{ContextID: &p.Context}}}
		for _, t := range p.Tasks {
			st := t.State
			probes = append(probes, bindingProbe{"contextId and status " + st, a2aclient.ListRequest{ContextID: &p.Context, Status: &st}})
			break
		}
		if cuts := tsaCuts(p); len(cuts) > 0 {
			at := cuts[0].text
			probes = append(probes, bindingProbe{"contextId and statusTimestampAfter", a2aclient.ListRequest{ContextID: &p.Context, StatusTimestampAfter: &at}})
		}
		probes = append(probes, bindingProbe{"no filter (the newest tasks)", a2aclient.ListRequest{}})
		e.Report(CheckBindings(e.bindingPairs(probes))...)
	},
	BlackBoxNeeds: []Capability{NeedBothBindings},
})

type bindingProbe struct {
	what string
	req  a2aclient.ListRequest
}

// bindingPairs walks each request on both bindings (pageSize 5, at most 6
// pages: an unfiltered listing may be long) and sends pageSize 500 on both.
func (e *Env) bindingPairs(probes []bindingProbe) []BindingPair {
	rpc, http := e.Client(a2aclient.JSONRPC, 0), e.Client(a2aclient.HTTPJSON, 0)
	var pairs []BindingPair
	for _, c := range probes {
		c.req.PageSize, c.req.HistoryLength = a2aclient.Ptr(5), a2aclient.Ptr(0)
		e.By("walk with %s on both bindings", c.what)
		pair := BindingPair{What: c.what, RPC: e.WalkUpTo(rpc, c.req, 6), HTTP: e.WalkUpTo(http, c.req, 6)}
		pair.RPCAgain = e.WalkUpTo(rpc, c.req, 6)
		pairs = append(pairs, pair)
	}
	e.By("send pageSize 500 on both bindings")
	r1, err := rpc.ListTasks(e.ctx, a2aclient.ListRequest{PageSize: a2aclient.Ptr(500)})
	e.Check(err, "ListTasks")
	r2, err := http.ListTasks(e.ctx, a2aclient.ListRequest{PageSize: a2aclient.Ptr(500)})
	e.Check(err, "ListTasks")
	return append(pairs, BindingPair{What: "pageSize 500", RPCErr: r1.Response, HTTPErr: r2.Response, ErrorProbe: true})
}

// CheckBindings judges the same requests across bindings
// (LT-BINDING-CONSISTENT).
func CheckBindings(pairs []BindingPair) []Finding {
	var fs []Finding
	ids := func(h History) []string {
		var out []string
		for _, p := range h.Pages {
			out = append(out, p.IDs()...)
		}
		return out
	}
	for _, p := range pairs {
		if p.ErrorProbe {
			// One binding refusing what the other accepts breaks §5.1. Which
			// code each uses is the error cases' business (LT-ERR-2).
			if re, he := p.RPCErr.Err != nil, p.HTTPErr.Err != nil; re != he {
				fs = append(fs, Breach(R("LT-OP-8"), "%s: JSON-RPC %s but HTTP+JSON %s", p.What, p.RPCErr.Describe(), p.HTTPErr.Describe()).
					WithWitness(p.RPCErr.X.Transcript()+"\n"+p.HTTPErr.X.Transcript()))
			}
			continue
		}
		same, a, b := sameWalk(p.RPC, p.HTTP, ids)
		if same {
			continue
		}
		if len(p.RPCAgain.Pages) > 0 {
			if again, _, _ := sameWalk(p.RPCAgain, p.HTTP, ids); again {
				fs = append(fs, Observe(R("LT-OP-8", "LT-OP-7"), "%s: JSON-RPC served %d tasks, then HTTP+JSON and JSON-RPC again the same %d: the listing changed between reads made with no writes (LT-IDEMPOTENT judges that), not between bindings", p.What, len(a), len(b)))
				continue
			}
		}
		fs = append(fs, Breach(R("LT-OP-8"), "%s: JSON-RPC served %d tasks, HTTP+JSON %d, not the same sequence", p.What, len(a), len(b)).
			WithWitness(p.RPC.Witness(1)+"\n"+p.HTTP.Witness(1)))
	}
	return fs
}

// sameWalk says whether two walks of one request served the same
// sequence and ended alike; a walk pagewalk stopped at its bound is
// compared on the part both walks served (pages may be short on either
// binding). It returns the sequences compared.
func sameWalk(x, y History, ids func(History) []string) (bool, []string, []string) {
	a, b := ids(x), ids(y)
	if x.Bounded || y.Bounded {
		n := min(len(a), len(b))
		a, b = a[:n], b[:n]
	}
	return equalIDs(a, b) && (x.Ended() && !x.Bounded) == (y.Ended() && !y.Bounded), a, b
}

func equalIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// diff returns the ids in got that want lacks, and those in want that got
// lacks.
func diff(got, want []string) (extra, missing []string) {
	w := map[string]bool{}
	for _, id := range want {
		w[id] = true
	}
	g := map[string]bool{}
	for _, id := range got {
		g[id] = true
		if !w[id] {
			extra = append(extra, id)
		}
	}
	for _, id := range want {
		if !g[id] {
			missing = append(missing, id)
		}
	}
	return extra, missing
}
