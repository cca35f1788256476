package scenarios

import (
	"fmt"
	"regexp"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "walk": the response shape, the last page, order across pages, the
// exact set a full walk returns, and page lengths.
//
// The control variants seed their own tasks, in a context of their own. The
// black-box variants judge two kinds of data: the probe tasks pagewalk
// creates in a fresh context (a known set, some tied, most not), walked at
// several page sizes; and the tasks the principal already has, observed
// read-only and walked again with page sizes whose boundaries fall inside
// their tie groups. Every case says in its notes what the data allowed it
// to judge, and skips when it had nothing to judge.

// walkData seeds 23 tasks for A in the case's context (distinct timestamps,
// some with history and artifacts) and 3 for B there too, and returns A's
// truth and the context.
func walkData(e *Env) (Truth, string) {
	e.Fresh()
	ctx := e.Context("walk")
	tasks := Series("w", 0, 1, 23)
	for i := range tasks {
		tasks[i].ContextID = ctx
		if i%4 == 0 {
			tasks[i].State = "TASK_STATE_WORKING"
		}
		if i%5 == 0 {
			tasks[i].History, tasks[i].Artifacts = 3, 1
		}
	}
	other := Series("other", 1, 100, 3)
	for i := range other {
		other[i].ContextID = ctx
	}
	e.By("seed 23 tasks for %s with distinct status timestamps, and 3 for another principal, in context %s", e.Owner(0), ctx)
	truth, _ := e.Seed(append(tasks, other...))
	return truth, ctx
}

// seededWalks walks the case's seeded context with each page size.
func seededWalks(e *Env, ctx string, sizes []int) []Walked {
	var ws []Walked
	for _, size := range sizes {
		e.By("walk context %s with pageSize %d", ctx, size)
		h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 200, nil)
		ws = append(ws, Walked{Label: fmt.Sprintf("pageSize %d", size), H: h})
	}
	return ws
}

// blackBoxWalks are the walks the black-box walk cases judge on the case's
// binding, made once per binding and shared: the probe set walked with
// probeSizes, and the observed listing walked again (at most
// observedRewalkPages pages each) with the page sizes that straddle its
// tie groups most, beside the observing walk itself.
type blackBoxWalks struct {
	Probe      []Walked
	ProbeTruth Truth
	Observed   []Walked
	Notes      []string
}

var probeSizes = []int{1, 3, 7, 10, 100}

const observedRewalkPages = 30

func (e *Env) blackBoxWalks() *blackBoxWalks {
	d := e.target.data
	key := string(e.binding)
	d.mu.Lock()
	w, ok := d.walks[key]
	d.mu.Unlock()
	if ok {
		return w
	}
	w = &blackBoxWalks{}
	p := e.Probe()
	w.ProbeTruth = p.Truth
	w.Notes = append(w.Notes, p.Summary())
	for _, size := range probeSizes {
		e.By("walk the probe context with pageSize %d", size)
		h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: &p.Context, PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 200, nil)
		w.Probe = append(w.Probe, Walked{Label: fmt.Sprintf("probe, pageSize %d", size), H: h})
	}
	if o, why := e.Observe(0); why == "" {
		w.Notes = append(w.Notes, o.Summary())
		w.Observed = append(w.Observed, Walked{Label: fmt.Sprintf("observe walk (%s, pageSize 100)", o.Binding), H: o.Walk})
		sizes, count := StraddlingSizes(o.Ties, len(o.Tasks), observedRewalkPages, 3)
		for _, extra := range []int{7, 50} {
			if len(sizes) < 4 && !slicesContains(sizes, extra) {
				sizes = append(sizes, extra)
			}
		}
		for _, size := range sizes {
			e.By("walk the existing tasks again with pageSize %d (%d tie groups straddle its page boundaries), at most %d pages", size, count[size], observedRewalkPages)
			h := e.WalkUpTo(e.A(), a2aclient.ListRequest{PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, observedRewalkPages)
			w.Observed = append(w.Observed, Walked{Label: fmt.Sprintf("existing tasks, pageSize %d", size), H: h})
		}
	} else {
		w.Notes = append(w.Notes, "no existing tasks observed: "+why)
	}
	d.mu.Lock()
	d.walks[key] = w
	d.mu.Unlock()
	return w
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// judgeWalks compares the probe walks against the probe set and the
// observed walks against each other, and notes what each allowed.
func (e *Env) judgeWalks() (*blackBoxWalks, Comparison, Comparison) {
	w := e.blackBoxWalks()
	for _, n := range w.Notes {
		e.Note("%s", n)
	}
	probe := CompareWalks(w.Probe, w.ProbeTruth)
	e.Note("probe walks: %s", probe.Summary(len(w.Probe)))
	var observed Comparison
	if len(w.Observed) > 0 {
		observed = CompareWalks(w.Observed, nil)
		e.Note("existing tasks: %s", observed.Summary(len(w.Observed)))
	}
	return w, probe, observed
}

var _ = Register(Scenario{
	ID: "LT-WALK-SHAPE", Area: "walk", Level: MUST, Checker: "CheckShape",
	Title: "Every page carries tasks, nextPageToken, pageSize and totalSize, and every task its id and status",
	Reqs:  R("LT-RESP-1", "LT-RESP-2", "LT-RESP-5", "LT-RESP-6", "LT-RESP-7", "LT-JSON-1", "LT-JSON-2"),
	Quote: `ListTasksResponse fields tasks, next_page_token, page_size and total_size are REQUIRED; REQUIRED fields "MUST be present and set in valid messages" (§5.7). "The nextPageToken field MUST always be present in the response." (§3.1.4)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		_, ctx := walkData(e)
		e.By("walk every page with pageSize 5 and check each page's shape")
		h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(5), HistoryLength: a2aclient.Ptr(0)}, 100, nil)
		e.Report(CheckShape(h)...)
	},
	BlackBox: func(e *Env) {
		w, _, _ := e.judgeWalks()
		var hs []History
		for _, x := range append(w.Probe, w.Observed...) {
			hs = append(hs, x.H)
		}
		e.Report(CheckShape(hs...)...)
	},
})

// rfc3339UTC is the §5.6.1 timestamp form: UTC, "Z", optional fraction.
var rfc3339UTC = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$`)

var taskStates = map[string]bool{"TASK_STATE_SUBMITTED": true, "TASK_STATE_WORKING": true, "TASK_STATE_COMPLETED": true,
	"TASK_STATE_FAILED": true, "TASK_STATE_CANCELED": true, "TASK_STATE_INPUT_REQUIRED": true, "TASK_STATE_REJECTED": true,
	"TASK_STATE_AUTH_REQUIRED": true}

// CheckShape judges the members of every page of the walks (LT-WALK-SHAPE).
func CheckShape(walks ...History) []Finding {
	var fs []Finding
	for _, h := range walks {
		fs = append(fs, shapeOf(h)...)
	}
	return fs
}

func shapeOf(h History) []Finding {
	var fs []Finding
	fs = append(fs, EndFindings(h, ownerShape)...)
	for _, p := range h.Pages {
		if p.Err != nil || p.Malformed != "" {
			continue
		}
		w := h.Witness(p.N)
		fs = append(fs, tasksShapeFindings(p, w)...)
		if p.PageSize == nil && len(p.Tasks) == 0 && p.Result.Has("pageSize") == false {
			// ProtoJSON omits a zero pageSize: the A6 clash.
			fs = append(fs, Breach(R("LT-RESP-7", "LT-RESP-5"), "page %d: pageSize is missing; it is REQUIRED (ProtoJSON writers omit zero values, A6)", p.N).Ambiguous("A6").Of("pageSize", "").WithWitness(w))
		} else if p.PageSize == nil {
			fs = append(fs, Breach(R("LT-RESP-7", "LT-RESP-5"), "page %d: pageSize is missing or not an integer; it is REQUIRED", p.N).WithWitness(w))
		}
		if p.TotalSize == nil && !p.Result.Has("totalSize") && len(h.Pages) == 1 && len(p.Tasks) == 0 {
			fs = append(fs, Breach(R("LT-RESP-7", "LT-RESP-6"), "page %d: totalSize is missing; it is REQUIRED (ProtoJSON writers omit zero values, A6)", p.N).Ambiguous("A6").Of("totalSize", "").WithWitness(w))
		} else if p.TotalSize == nil {
			fs = append(fs, Breach(R("LT-RESP-7", "LT-RESP-6"), "page %d: totalSize is missing or not an integer; it is REQUIRED", p.N).WithWitness(w))
		}
		for _, t := range p.Tasks {
			switch {
			case t.ID == "":
				fs = append(fs, Breach(R("LT-RESP-7", "LT-TASK-1"), "page %d: a task has no id; Task.id is REQUIRED", p.N).WithWitness(w))
			case t.State == "":
				fs = append(fs, Breach(R("LT-RESP-7", "LT-TASK-2"), "page %d: task %s has no status.state; it is REQUIRED", p.N, t.ID).WithWitness(w))
			case !taskStates[t.State]:
				fs = append(fs, Breach(R("LT-JSON-1", "LT-TASK-3"), "page %d: task %s has status.state %q, not a TaskState name", p.N, t.ID, t.State).WithWitness(w))
			}
			if t.Timestamp != "" && !rfc3339UTC.MatchString(t.Timestamp) {
				fs = append(fs, Breach(R("LT-JSON-2"), "page %d: task %s has status.timestamp %q; timestamps MUST be ISO 8601 in UTC with no offset other than Z", p.N, t.ID, t.Timestamp).WithWitness(w))
			}
		}
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-WALK-LAST-PAGE", Area: "walk", Level: MUST, Checker: "CheckLastPage",
	Title: "The last page says nextPageToken \"\" (present, a string, empty), and only the last page does",
	Reqs:  R("LT-RESP-2", "LT-RESP-3"),
	Quote: `"The nextPageToken field MUST always be present in the response. When there are no more results to retrieve (i.e., this is the final page), the field MUST be set to an empty string ("")." (§3.1.4)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		truth, ctx := walkData(e)
		ws := seededWalks(e, ctx, []int{5, 23, 50})
		e.Report(CheckLastPage(ws, CompareWalks(ws, truth))...)
	},
	BlackBox: func(e *Env) {
		w, probe, observed := e.judgeWalks()
		e.Report(CheckLastPage(w.Probe, probe)...)
		if len(w.Observed) > 0 {
			e.Report(CheckLastPage(w.Observed, observed)...)
		}
	},
})

// CheckLastPage judges how walks ended (LT-WALK-LAST-PAGE): nextPageToken
// absent or null, a token that loops, or "" on a page while tasks remained.
func CheckLastPage(walks []Walked, c Comparison) []Finding {
	var fs []Finding
	for _, w := range walks {
		fs = append(fs, EndFindings(w.H, ownerLastPage)...)
	}
	return append(fs, c.cutShortFindings(walks)...)
}

var _ = Register(Scenario{
	ID: "LT-WALK-EMPTY", Area: "walk", Level: MUST, Checker: "CheckEmpty",
	Title: "A listing that matches nothing is tasks [] with nextPageToken \"\" and totalSize 0",
	Reqs:  R("LT-RESP-1", "LT-RESP-3", "LT-RESP-6", "LT-RESP-7"),
	Quote: `tasks is REQUIRED ("Array of tasks matching the specified criteria"); REQUIRED fields "MUST be present and set in valid messages" but "Arrays marked as required MUST contain at least one element" (§5.7, conflicting for an empty result: A7); on the final page nextPageToken "MUST be set to an empty string" (§3.1.4)`,
	Run: func(e *Env) {
		ctx := e.ID("nothing-here")
		e.By("list a context that holds no task (%s)", ctx)
		h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(10)}, 3, nil)
		if len(h.Pages) == 0 || h.Pages[0].Page == nil || h.Pages[0].Malformed != "" {
			// Nothing to judge: an unreadable reply is LT-WALK-SHAPE's.
			e.Skip("the reply to the empty listing could not be read, so its content could not be judged: %s (judged by %s)", h.End, ownerShape)
		}
		e.Report(CheckEmpty(h)...)
	},
})

// CheckEmpty judges the reply to a listing that matches nothing
// (LT-WALK-EMPTY).
func CheckEmpty(h History) []Finding {
	var fs []Finding
	if len(h.Pages) == 0 {
		return nil
	}
	p := h.Pages[0]
	w := h.Witness(1)
	if p.Err != nil {
		return []Finding{Breach(R("LT-RESP-1"), "an empty listing failed instead of returning tasks []: %s", p.Err).WithWitness(w)}
	}
	if p.TasksShape != "" {
		fs = append(fs, tasksShapeFindings(p, w)...)
	} else if len(p.Tasks) != 0 {
		fs = append(fs, Breach(R("LT-REQ-2", "LT-RESP-1"), "a listing for a context nobody used returned %d tasks (\"Array of tasks matching the specified criteria\")", len(p.Tasks)).WithWitness(w))
	}
	switch {
	case p.NextState() != a2aclient.NextString:
		// An absent or null token is LT-WALK-LAST-PAGE's to judge.
		fs = append(fs, Observe(R("LT-RESP-2"), "the empty listing has nextPageToken %s (judged by %s)", describeNext(p), ownerLastPage))
	case p.NextPageToken != "" && len(p.Tasks) == 0:
		fs = append(fs, Breach(R("LT-RESP-3"), "the only page of an empty listing has nextPageToken %s, want \"\"", describeNext(p)).WithWitness(w))
	}
	if p.TotalSize != nil && *p.TotalSize != 0 {
		fs = append(fs, Breach(R("LT-RESP-6"), "totalSize is %d for a listing that matches nothing", *p.TotalSize).WithWitness(w))
	}
	return fs
}

// tasksShapeFindings judges a tasks member that is not an array. A wrong
// type is a Fail (tasks is REQUIRED). An absent or null member on a page
// with no tasks is Non-strict: "Arrays marked as required MUST contain at
// least one element" (§5.7) cannot hold for an empty result, and ProtoJSON
// writers omit empty repeated fields (ambiguities A6, A7), though the TCK
// and the seed expect [].
func tasksShapeFindings(p a2aclient.Step, w string) []Finding {
	switch p.TasksShape {
	case "":
		return nil
	case "tasks is absent", "tasks is null":
		return []Finding{Breach(R("LT-RESP-1", "LT-RESP-7"), "page %d: %s; an empty result should be tasks [] (the REQUIRED array's rules conflict for empty results, A7)", p.N, p.TasksShape).Ambiguous("A7").WithWitness(w)}
	}
	return []Finding{Breach(R("LT-RESP-7", "LT-RESP-1"), "page %d: %s; tasks is a REQUIRED array of Task", p.N, p.TasksShape).WithWitness(w)}
}

func describeNext(p a2aclient.Step) string {
	if s := p.NextState(); s != a2aclient.NextString {
		return s
	}
	return fmt.Sprintf("%q", p.NextPageToken)
}

var _ = Register(Scenario{
	ID: "LT-WALK-ORDER", Area: "walk", Level: MUST, Checker: "CheckOrder",
	Title: "Tasks are newest first by status timestamp, within and across pages",
	Reqs:  R("LT-ORDER-1", "LT-ORDER-2"),
	Quote: `"Implementations MUST return tasks sorted by their status timestamp time in descending order (most recently updated tasks first)." (§3.1.4)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		_, ctx := walkData(e)
		e.Report(CheckOrder(seededWalks(e, ctx, []int{1, 4, 100}))...)
	},
	BlackBox: func(e *Env) {
		w, probe, observed := e.judgeWalks()
		distinct := probe.Distinct + observed.Distinct
		if distinct < 2 {
			e.Skip("order needs tasks with at least 2 distinct status timestamps; the probe set had %d and the existing tasks %d", probe.Distinct, observed.Distinct)
		}
		e.Note("order judged on %d distinct timestamps (probe %d, existing tasks %d)", distinct, probe.Distinct, observed.Distinct)
		e.Report(CheckOrder(append(w.Probe, w.Observed...))...)
	},
})

// CheckOrder judges the order of walks (LT-WALK-ORDER).
func CheckOrder(walks []Walked) []Finding {
	var fs []Finding
	for _, w := range walks {
		c := CheckWalk(w.H, Truth{})
		fs = append(fs, EndFindings(w.H, "LT-WALK-ORDER")...)
		fs = append(fs, WalkFindings(w.H, Truth{}, WalkCheck{OrderBreaks: c.OrderBreaks, NoTimestamp: c.NoTimestamp}, R("LT-OP-4"))...)
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-WALK-EXACT", Area: "walk", Level: MUST, Checker: "CheckExact",
	Title: "A full walk with no writes returns exactly the visible tasks: none twice, none skipped",
	Reqs:  R("LT-OP-4", "LT-RESP-3", "LT-REQ-5"),
	Quote: `"The operation MUST return only tasks visible to the authenticated client and MUST use cursor-based pagination for performance and consistency." (§3.1.4); pageToken: "Provide this to retrieve the subsequent page."`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		truth, ctx := walkData(e)
		ws := seededWalks(e, ctx, []int{1, 2, 5, 22, 23, 24})
		c := CompareWalks(ws, truth)
		fs := CheckExact(ws, c)
		if c.Judged == 0 {
			// Walks that ended before any seeded task: what ended them is
			// reported (or named as another case's); nothing passes.
			e.ReportOrSkip(fs, "no task to judge: every walk ended before serving any of the %d seeded tasks", len(truth))
			return
		}
		e.Report(fs...)
	},
	BlackBox: func(e *Env) {
		w, probe, observed := e.judgeWalks()
		fs := CheckExact(w.Probe, probe)
		if len(w.Observed) > 0 {
			fs = append(fs, CheckExact(w.Observed, observed)...)
		}
		if probe.Judged+observed.Judged == 0 {
			e.ReportOrSkip(fs, "no task to judge: the probe walks and the walks of existing tasks had no task in common range")
			return
		}
		e.Report(fs...)
	},
})

// CheckExact judges walks made with no writes (LT-WALK-EXACT): every task
// served exactly once. Misses at a tie that a page boundary splits are
// LT-TIE-BOUNDARY's; a walk that ended too early is LT-WALK-LAST-PAGE's.
func CheckExact(walks []Walked, c Comparison) []Finding {
	var fs []Finding
	for _, w := range walks {
		fs = append(fs, EndFindings(w.H, ownerExact)...)
	}
	return append(fs, c.exactFindings()...)
}

var _ = Register(Scenario{
	ID: "LT-PAGE-SHORT", Area: "walk", Level: MUST, Checker: "CheckShortPages",
	Title: "Pages may be short, never longer than pageSize",
	Reqs:  R("LT-PAGE-1", "LT-REQ-4"),
	Quote: `pageSize: "The maximum number of tasks to return. The service may return fewer than this value." (proto)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		_, ctx := walkData(e)
		e.Report(CheckShortPages(seededWalks(e, ctx, []int{3, 7, 10}))...)
	},
	BlackBox: func(e *Env) {
		w, _, _ := e.judgeWalks()
		e.Report(CheckShortPages(append(w.Probe, w.Observed...))...)
	},
})

// CheckShortPages judges page lengths against pageSize (LT-PAGE-SHORT):
// longer pages break the proto's maximum; short pages are legal and noted.
func CheckShortPages(walks []Walked) []Finding {
	var fs []Finding
	for _, w := range walks {
		short := 0
		for i, p := range w.H.Pages {
			size := 0
			if p.Request.PageSize != nil {
				size = *p.Request.PageSize
			}
			if size > 0 && len(p.Tasks) > size {
				fs = append(fs, Breach(R("LT-REQ-4"), "%s: page %d holds %d tasks, more than pageSize %d (\"The maximum number of tasks to return\")", w.Label, p.N, len(p.Tasks), size).
					Of("overlong", w.Label).WithWitness(w.H.Witness(p.N)))
			}
			if size > 0 && len(p.Tasks) < size && i < len(w.H.Pages)-1 {
				short++
			}
		}
		if short > 0 {
			fs = append(fs, Observe(R("LT-PAGE-1"), "%s: %d short pages before the last; their tokens were followed", w.Label, short).Of("short", w.Label))
		}
	}
	return fs
}

func first(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("... %d more", len(s)-n))
}
