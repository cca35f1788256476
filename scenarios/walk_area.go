package scenarios

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "walk": the response shape, the last page, order across pages, and
// the exact set a full walk returns.

// walkData seeds 23 tasks for A (distinct timestamps, some with history and
// artifacts) and 3 for B, and returns A's truth.
func walkData(e *Env) Truth {
	e.Fresh()
	tasks := Series("w", 0, 1, 23)
	for i := range tasks {
		if i%4 == 0 {
			tasks[i].State = "TASK_STATE_WORKING"
		}
		if i%5 == 0 {
			tasks[i].History, tasks[i].Artifacts = 3, 1
		}
	}
	tasks = append(tasks, Series("other", 1, 100, 3)...)
	e.By("seed 23 tasks for %s with distinct status timestamps, and 3 for another principal", e.Owner(0))
	truth, _ := e.Seed(tasks)
	return truth
}

// blackBoxData creates 7 tasks with SendMessage in a fresh context and
// returns the truth and the context filter the walk must use.
func blackBoxData(e *Env) (Truth, *string) {
	ctx := e.ID("ctx")
	e.By("create 7 tasks with SendMessage in context %s", ctx)
	return e.Create(e.A(), 7, ctx), &ctx
}

var _ = Register(Scenario{
	ID: "LT-WALK-SHAPE", Area: "walk", Level: MUST, Checker: "CheckShape",
	Title: "Every page carries tasks, nextPageToken, pageSize and totalSize, and every task its id and status",
	Reqs:  R("LT-RESP-1", "LT-RESP-2", "LT-RESP-5", "LT-RESP-6", "LT-RESP-7", "LT-JSON-1", "LT-JSON-2"),
	Quote: `ListTasksResponse fields tasks, next_page_token, page_size and total_size are REQUIRED; REQUIRED fields "MUST be present and set in valid messages" (§5.7). "The nextPageToken field MUST always be present in the response." (§3.1.4)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		walkData(e)
		e.By("walk every page with pageSize 5 and check each page's shape")
		h := e.Walk(e.A(), a2aclient.ListRequest{PageSize: a2aclient.Ptr(5), HistoryLength: a2aclient.Ptr(0)}, 100, nil)
		e.Report(CheckShape(h)...)
	},
	BlackBox: func(e *Env) {
		_, ctx := blackBoxData(e)
		h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: ctx, PageSize: a2aclient.Ptr(3), HistoryLength: a2aclient.Ptr(0)}, 100, nil)
		e.Report(CheckShape(h)...)
	},
})

// rfc3339UTC is the §5.6.1 timestamp form: UTC, "Z", optional fraction.
var rfc3339UTC = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$`)

var taskStates = map[string]bool{"TASK_STATE_SUBMITTED": true, "TASK_STATE_WORKING": true, "TASK_STATE_COMPLETED": true,
	"TASK_STATE_FAILED": true, "TASK_STATE_CANCELED": true, "TASK_STATE_INPUT_REQUIRED": true, "TASK_STATE_REJECTED": true,
	"TASK_STATE_AUTH_REQUIRED": true}

// CheckShape judges the members of every page of a walk (LT-WALK-SHAPE).
func CheckShape(h History) []Finding {
	var fs []Finding
	fs = append(fs, EndFindings(h)...)
	for _, p := range h.Pages {
		if p.Err != nil || p.Malformed != "" {
			continue
		}
		w := h.Witness(p.N)
		fs = append(fs, tasksShapeFindings(p, w)...)
		if p.PageSize == nil {
			fs = append(fs, Breach(R("LT-RESP-7", "LT-RESP-5"), "page %d: pageSize is missing or not an integer; it is REQUIRED", p.N).WithWitness(w))
		}
		if p.TotalSize == nil {
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
		walkData(e)
		for _, size := range []int{5, 23, 50} {
			e.By("walk with pageSize %d to the end", size)
			h := e.Walk(e.A(), a2aclient.ListRequest{PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 100, nil)
			e.Report(CheckLastPage(h)...)
		}
	},
	BlackBox: func(e *Env) {
		_, ctx := blackBoxData(e)
		for _, size := range []int{3, 7, 50} {
			h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: ctx, PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 100, nil)
			e.Report(CheckLastPage(h)...)
		}
	},
})

// CheckLastPage judges how a walk ended (LT-WALK-LAST-PAGE).
func CheckLastPage(h History) []Finding {
	if fs := EndFindings(h); len(fs) > 0 {
		return fs
	}
	if n := len(h.Pages); n == 0 || h.Pages[n-1].NextPageToken != "" || h.Pages[n-1].NextState() != a2aclient.NextString {
		return []Finding{Breach(R("LT-RESP-3"), "the walk did not end on a page with nextPageToken \"\"")}
	}
	return nil
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
	if p.NextState() != a2aclient.NextString || (p.NextPageToken != "" && len(p.Tasks) == 0) {
		fs = append(fs, Breach(R("LT-RESP-2", "LT-RESP-3"), "the only page of an empty listing has nextPageToken %s, want \"\"", describeNext(p)).WithWitness(w))
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
		walkData(e)
		for _, size := range []int{1, 4, 100} {
			e.By("walk with pageSize %d and check the timestamps never increase", size)
			h := e.Walk(e.A(), a2aclient.ListRequest{PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 100, nil)
			e.Report(CheckOrder(h)...)
		}
	},
	BlackBox: func(e *Env) {
		_, ctx := blackBoxData(e)
		for _, size := range []int{2, 50} {
			h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: ctx, PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 100, nil)
			e.Report(CheckOrder(h)...)
		}
	},
})

// CheckOrder judges the order of a walk (LT-WALK-ORDER).
func CheckOrder(h History) []Finding {
	c := CheckWalk(h, Truth{})
	fs := WalkFindings(h, Truth{}, WalkCheck{OrderBreaks: c.OrderBreaks, NoTimestamp: c.NoTimestamp}, R("LT-OP-4"))
	return append(EndFindings(h), fs...)
}

var _ = Register(Scenario{
	ID: "LT-WALK-EXACT", Area: "walk", Level: MUST, Checker: "CheckExact",
	Title: "A full walk with no writes returns exactly the visible tasks: none twice, none skipped",
	Reqs:  R("LT-OP-4", "LT-RESP-3", "LT-REQ-5"),
	Quote: `"The operation MUST return only tasks visible to the authenticated client and MUST use cursor-based pagination for performance and consistency." (§3.1.4); pageToken: "Provide this to retrieve the subsequent page."`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		truth := walkData(e)
		for _, size := range []int{1, 2, 5, 22, 23, 24} {
			e.By("walk with pageSize %d and compare the union of pages with the seeded set", size)
			h := e.Walk(e.A(), a2aclient.ListRequest{PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 200, nil)
			e.Report(CheckExact(h, truth)...)
		}
	},
	BlackBox: func(e *Env) {
		truth, ctx := blackBoxData(e)
		for _, size := range []int{1, 3, 7} {
			h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: ctx, PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 200, nil)
			e.Report(CheckExact(h, truth)...)
		}
	},
})

// CheckExact judges a walk made with no writes against the truth
// (LT-WALK-EXACT). Tasks with tied timestamps are left to LT-TIE-BOUNDARY.
func CheckExact(h History, truth Truth) []Finding {
	t := untied(truth)
	c := CheckWalk(h, t)
	c.OrderBreaks = nil
	// Tied tasks are judged by the hardened tie scenario, not here.
	var unexpected []string
	for _, id := range c.Unexpected {
		if _, tied := truth[id]; !tied {
			unexpected = append(unexpected, id)
		}
	}
	c.Unexpected = unexpected
	return append(EndFindings(h), WalkFindings(h, t, c, R("LT-OP-4", "LT-RESP-3"))...)
}

var _ = Register(Scenario{
	ID: "LT-PAGE-SHORT", Area: "walk", Level: MUST, Checker: "CheckShortPages",
	Title: "Pages may be short, never longer than pageSize; a short page is not the end unless nextPageToken is \"\"",
	Reqs:  R("LT-PAGE-1", "LT-REQ-4", "LT-RESP-3"),
	Quote: `pageSize: "The maximum number of tasks to return. The service may return fewer than this value." On the final page nextPageToken "MUST be set to an empty string" (§3.1.4)`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		truth := walkData(e)
		for _, size := range []int{3, 7, 10} {
			e.By("walk with pageSize %d, following every short page that carries a token", size)
			h := e.Walk(e.A(), a2aclient.ListRequest{PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 200, nil)
			e.Report(CheckShortPages(h, truth, size)...)
		}
	},
	BlackBox: func(e *Env) {
		truth, ctx := blackBoxData(e)
		for _, size := range []int{2, 3} {
			h := e.Walk(e.A(), a2aclient.ListRequest{ContextID: ctx, PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)}, 200, nil)
			e.Report(CheckShortPages(h, truth, size)...)
		}
	},
})

// CheckShortPages judges page lengths against pageSize and whether a walk
// that ended on a short page left tasks unserved (LT-PAGE-SHORT).
func CheckShortPages(h History, truth Truth, size int) []Finding {
	var fs []Finding
	short := 0
	for i, p := range h.Pages {
		if len(p.Tasks) > size {
			fs = append(fs, Breach(R("LT-REQ-4"), "page %d holds %d tasks, more than pageSize %d (\"The maximum number of tasks to return\")", p.N, len(p.Tasks), size).WithWitness(h.Witness(p.N)))
		}
		if len(p.Tasks) < size && i < len(h.Pages)-1 {
			short++
		}
	}
	if short > 0 {
		fs = append(fs, Observe(R("LT-PAGE-1"), "the server returned %d short pages before the last, and the walk followed their tokens", short))
	}
	if n := len(h.Pages); n > 0 && h.End == "" {
		last := h.Pages[n-1]
		c := CheckWalk(h, untied(truth))
		if len(c.Missing) > 0 && len(last.Tasks) < size {
			fs = append(fs, Breach(R("LT-RESP-3", "LT-PAGE-1"), "the walk ended on a short page (%d of %d) with nextPageToken \"\", but %d tasks were never served (%s)",
				len(last.Tasks), size, len(c.Missing), strings.Join(first(c.Missing, 5), ", ")).WithWitness(h.Witness(last.N)))
		}
	}
	return append(EndFindings(h), fs...)
}

func first(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("... %d more", len(s)-n))
}
