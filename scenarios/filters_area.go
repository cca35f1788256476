package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "filters": contextId, status and statusTimestampAfter, alone and
// combined, checked against ground truth; invalid filter values; and the
// same requests on both bindings.
//
// The filter semantics come from proto comments, normative (§1.4) but
// without an RFC 2119 keyword, so a mismatch is Non-strict. Returning
// different results on the two bindings breaks the MUST of §5.1 (Fail).

// filterTasks seeds 18 tasks over 3 contexts and 3 states, one second
// apart, and returns them with their ids.
func filterTasks(e *Env) ([]Task, map[string]string) {
	e.Fresh()
	states := []string{"TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_INPUT_REQUIRED"}
	var tasks []Task
	for i := 0; i < 18; i++ {
		tasks = append(tasks, Task{Key: fmt.Sprintf("f%02d", i), TS: At(i + 1), ContextID: e.ID(fmt.Sprintf("ctx-%d", i%3)), State: states[(i/3)%3]})
	}
	e.By("seed 18 tasks over 3 contexts and 3 states")
	_, ids := e.Seed(tasks)
	return tasks, ids
}

// FilterCase is one filtered walk and the ids it must return, newest first.
// Unordered compares sets only: black-box variants know the tasks but not
// their final timestamps (order is judged by LT-WALK-ORDER).
type FilterCase struct {
	What      string
	Want      []string
	H         History
	Unordered bool
}

// expect returns the ids of tasks matching pred, newest first.
func expect(tasks []Task, ids map[string]string, pred func(Task) bool) []string {
	var out []string
	for _, t := range tasks {
		if pred(t) {
			out = append(out, ids[t.Key])
		}
	}
	return out
}

func (e *Env) filterWalk(c *a2aclient.Client, what string, req a2aclient.ListRequest, want []string) FilterCase {
	e.By("walk with %s", what)
	req.PageSize, req.HistoryLength = a2aclient.Ptr(4), a2aclient.Ptr(0)
	return FilterCase{What: what, Want: want, H: e.Walk(c, req, 50, nil)}
}

// CheckFilter judges filtered walks against ground truth; reqs name the
// filter's requirement.
func CheckFilter(cases []FilterCase, reqs []string) []Finding {
	var fs []Finding
	for _, c := range cases {
		fs = append(fs, EndFindings(c.H)...)
		if c.H.End != "" {
			continue
		}
		var got []string
		for _, p := range c.H.Pages {
			got = append(got, p.IDs()...)
		}
		extra, missing := diff(got, c.Want)
		if len(extra) == 0 && len(missing) == 0 && len(got) == len(c.Want) && (c.Unordered || slices.Equal(got, c.Want)) {
			continue
		}
		if len(extra) == 0 && len(missing) == 0 && len(got) == len(c.Want) {
			fs = append(fs, Breach(reqs, "%s: the right %d tasks, but not newest first: got %s", c.What, len(got), strings.Join(first(got, 6), ", ")).WithWitness(c.H.Witness(1)))
			continue
		}
		var pages []int
		for _, p := range c.H.Pages {
			pages = append(pages, p.N)
		}
		fs = append(fs, Breach(reqs, "%s: got %d tasks, want %d (unexpected: %s; missing: %s)", c.What, len(got), len(c.Want),
			strings.Join(first(extra, 4), ", "), strings.Join(first(missing, 4), ", ")).WithWitness(c.H.Witness(pages[:min(2, len(pages))]...)))
	}
	return fs
}

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
	return
}

var _ = Register(Scenario{
	ID: "LT-FILTER-CONTEXT", Area: "filters", Level: SHOULD, Checker: "CheckFilter",
	Title: "contextId returns exactly the tasks of that context",
	Reqs:  R("LT-REQ-2", "LT-RESP-1"),
	Quote: `contextId: "Filter tasks by context ID to get tasks from a specific conversation or session." (proto)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		tasks, ids := filterTasks(e)
		var cs []FilterCase
		for i := 0; i < 3; i++ {
			ctx := e.ID(fmt.Sprintf("ctx-%d", i))
			cs = append(cs, e.filterWalk(e.A(), "contextId "+ctx, a2aclient.ListRequest{ContextID: &ctx}, expect(tasks, ids, func(t Task) bool { return t.ContextID == ctx })))
		}
		e.Report(CheckFilter(cs, R("LT-REQ-2", "LT-RESP-1"))...)
	},
	BlackBox: func(e *Env) {
		a, b := e.ID("ctx-a"), e.ID("ctx-b")
		e.By("create 4 tasks in context %s and 3 in %s with SendMessage", a, b)
		ta := e.Create(e.A(), 4, a)
		e.Create(e.A(), 3, b)
		var want []string
		for id := range ta {
			want = append(want, id)
		}
		slices.SortFunc(want, func(x, y string) int { return ta[y].Compare(ta[x]) })
		fc := e.filterWalk(e.A(), "contextId "+a, a2aclient.ListRequest{ContextID: &a}, want)
		fc.Unordered = true
		e.Report(CheckFilter([]FilterCase{fc}, R("LT-REQ-2", "LT-RESP-1"))...)
	},
})

var _ = Register(Scenario{
	ID: "LT-FILTER-STATUS", Area: "filters", Level: SHOULD, Checker: "CheckFilter",
	Title: "status returns exactly the tasks in that state; TASK_STATE_UNSPECIFIED means no filter",
	Reqs:  R("LT-REQ-3", "LT-RESP-1"),
	Quote: `status: "Filter tasks by their current status state." (proto)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		tasks, ids := filterTasks(e)
		var cs []FilterCase
		for _, st := range []string{"TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_FAILED"} {
			cs = append(cs, e.filterWalk(e.A(), "status "+st, a2aclient.ListRequest{Status: &st}, expect(tasks, ids, func(t Task) bool { return t.State == st })))
		}
		cs = append(cs, e.filterWalk(e.A(), "status TASK_STATE_UNSPECIFIED", a2aclient.ListRequest{Status: a2aclient.Ptr("TASK_STATE_UNSPECIFIED")}, expect(tasks, ids, func(Task) bool { return true })))
		e.Report(CheckFilter(cs, R("LT-REQ-3", "LT-RESP-1"))...)
	},
	BlackBox: func(e *Env) {
		ctx := e.ID("ctx")
		e.By("create 3 tasks with SendMessage in context %s", ctx)
		created := e.Create(e.A(), 3, ctx)
		all := e.Walk(e.A(), a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(10), HistoryLength: a2aclient.Ptr(0)}, 10, nil)
		if all.End != "" {
			e.Report(EndFindings(all)...)
			return
		}
		states := map[string][]string{}
		var order []string
		for _, p := range all.Pages {
			for _, t := range p.Tasks {
				if _, ok := created[t.ID]; ok {
					states[t.State] = append(states[t.State], t.ID)
					order = append(order, t.ID)
				}
			}
		}
		cs := []FilterCase{e.filterWalk(e.A(), "contextId and status TASK_STATE_UNSPECIFIED (no status filter)", a2aclient.ListRequest{ContextID: &ctx, Status: a2aclient.Ptr("TASK_STATE_UNSPECIFIED")}, order)}
		for st, want := range states {
			cs = append(cs, e.filterWalk(e.A(), "contextId and status "+st, a2aclient.ListRequest{ContextID: &ctx, Status: &st}, want))
		}
		for i := range cs {
			cs[i].Unordered = true
		}
		e.Report(CheckFilter(cs, R("LT-REQ-3", "LT-RESP-1"))...)
	},
})

var _ = Register(Scenario{
	ID: "LT-FILTER-TSA", Area: "filters", Level: SHOULD, Checker: "CheckFilter",
	Title: "statusTimestampAfter is inclusive (>=), as the proto says",
	Reqs:  R("LT-TSA-1", "LT-TSA-2"),
	Quote: `statusTimestampAfter: "Only tasks with a status timestamp time greater than or equal to this value will be returned." (proto) The seed reads it as "strictly after" (A1); this case checks the proto's words, and LT-MOVE-* report what the server did as Info.`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		tasks, ids := filterTasks(e)
		var cs []FilterCase
		for _, k := range []int{0, 5, 17} {
			at := a2aclient.FormatTimestamp(tasks[k].TS)
			cutoff := tasks[k].TS
			cs = append(cs, e.filterWalk(e.A(), "statusTimestampAfter "+at+" (exactly task "+ids[tasks[k].Key]+")", a2aclient.ListRequest{StatusTimestampAfter: &at},
				expect(tasks, ids, func(t Task) bool { return !t.TS.Before(cutoff) })))
		}
		mid := tasks[8].TS.Add(-500 * time.Millisecond)
		at := a2aclient.FormatTimestamp(mid)
		cs = append(cs, e.filterWalk(e.A(), "statusTimestampAfter "+at+" (between two tasks)", a2aclient.ListRequest{StatusTimestampAfter: &at},
			expect(tasks, ids, func(t Task) bool { return !t.TS.Before(mid) })))
		e.Report(CheckFilter(cs, R("LT-TSA-1", "LT-TSA-2"))...)
	},
})

var _ = Register(Scenario{
	ID: "LT-FILTER-COMBINED", Area: "filters", Level: SHOULD, Checker: "CheckFilter",
	Title: "Filters combine as AND",
	Reqs:  R("LT-REQ-2", "LT-REQ-3", "LT-REQ-7", "LT-RESP-1"),
	Quote: `ListTasksRequest filters contextId, status and statusTimestampAfter; tasks: "Array of tasks matching the specified criteria." (proto)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		tasks, ids := filterTasks(e)
		ctx := e.ID("ctx-1")
		st := "TASK_STATE_COMPLETED"
		cut := tasks[12].TS
		at := a2aclient.FormatTimestamp(cut)
		cs := []FilterCase{
			e.filterWalk(e.A(), "contextId and status", a2aclient.ListRequest{ContextID: &ctx, Status: &st},
				expect(tasks, ids, func(t Task) bool { return t.ContextID == ctx && t.State == st })),
			e.filterWalk(e.A(), "contextId and statusTimestampAfter", a2aclient.ListRequest{ContextID: &ctx, StatusTimestampAfter: &at},
				expect(tasks, ids, func(t Task) bool { return t.ContextID == ctx && !t.TS.Before(cut) })),
			e.filterWalk(e.A(), "status and statusTimestampAfter", a2aclient.ListRequest{Status: &st, StatusTimestampAfter: &at},
				expect(tasks, ids, func(t Task) bool { return t.State == st && !t.TS.Before(cut) })),
			e.filterWalk(e.A(), "all three", a2aclient.ListRequest{ContextID: &ctx, Status: &st, StatusTimestampAfter: &at},
				expect(tasks, ids, func(t Task) bool { return t.ContextID == ctx && t.State == st && !t.TS.Before(cut) })),
		}
		e.Report(CheckFilter(cs, R("LT-REQ-2", "LT-REQ-3", "LT-REQ-7", "LT-RESP-1"))...)
	},
})

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
	What       string
	RPC, HTTP  History
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
		rpc, http := e.Client(a2aclient.JSONRPC, 0), e.Client(a2aclient.HTTPJSON, 0)
		ctx := e.ID("ctx-2")
		st := "TASK_STATE_WORKING"
		at := a2aclient.FormatTimestamp(At(9))
		var pairs []BindingPair
		for _, c := range []struct {
			what string
			req  a2aclient.ListRequest
		}{
			{"no filter", a2aclient.ListRequest{}},
			{"contextId", a2aclient.ListRequest{ContextID: &ctx}},
			{"status", a2aclient.ListRequest{Status: &st}},
			{"statusTimestampAfter", a2aclient.ListRequest{StatusTimestampAfter: &at}},
			{"contextId and status", a2aclient.ListRequest{ContextID: &ctx, Status: &st}},
		} {
			c.req.PageSize, c.req.HistoryLength = a2aclient.Ptr(5), a2aclient.Ptr(0)
			e.By("walk with %s on both bindings", c.what)
			pairs = append(pairs, BindingPair{What: c.what, RPC: e.Walk(rpc, c.req, 50, nil), HTTP: e.Walk(http, c.req, 50, nil)})
		}
		e.By("send pageSize 500 on both bindings")
		r1, err := rpc.ListTasks(e.ctx, a2aclient.ListRequest{PageSize: a2aclient.Ptr(500)})
		e.Check(err, "ListTasks")
		r2, err := http.ListTasks(e.ctx, a2aclient.ListRequest{PageSize: a2aclient.Ptr(500)})
		e.Check(err, "ListTasks")
		pairs = append(pairs, BindingPair{What: "pageSize 500", RPCErr: r1.Response, HTTPErr: r2.Response, ErrorProbe: true})
		e.Report(CheckBindings(pairs)...)
	},
})

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
			re, he := p.RPCErr.Err != nil, p.HTTPErr.Err != nil
			switch {
			case re != he:
				fs = append(fs, Breach(R("LT-OP-8"), "%s: JSON-RPC %s but HTTP+JSON %s", p.What, p.RPCErr.Describe(), p.HTTPErr.Describe()).
					WithWitness(p.RPCErr.X.Transcript()+"\n"+p.HTTPErr.X.Transcript()))
			case re && he && (p.RPCErr.Err.Code == -32602) != (p.HTTPErr.Err.Code == 400):
				// Both bindings refuse; whether the codes correspond rests on
				// the example codes of §3.3.2, so this is Non-strict.
				fs = append(fs, Breach(R("LT-ERR-2", "LT-OP-8"), "%s: both bindings refuse, but the codes do not correspond: JSON-RPC %d, HTTP %d", p.What, p.RPCErr.Err.Code, p.HTTPErr.Err.Code).
					WithWitness(p.RPCErr.X.Transcript()+"\n"+p.HTTPErr.X.Transcript()))
			}
			continue
		}
		a, b := ids(p.RPC), ids(p.HTTP)
		if !slices.Equal(a, b) || (p.RPC.End == "") != (p.HTTP.End == "") {
			fs = append(fs, Breach(R("LT-OP-8"), "%s: JSON-RPC served %d tasks, HTTP+JSON %d, not the same sequence", p.What, len(a), len(b)).
				WithWitness(p.RPC.Witness(1)+"\n"+p.HTTP.Witness(1)))
		}
	}
	return fs
}
