package scenarios

import (
	"fmt"

	"github.com/pagewalk/pagewalk/scenarios/wire"
)

// Between is called after each page of a recorded walk, before the next is
// requested; scenarios use it to write mid-walk. It returns the writes it
// made.
type Between func(afterPage int, p PageRecord) []Write

// Walk records a full walk of req by client c: every page until
// nextPageToken is "", or until the walk cannot go on (then History.End and
// EndFinding say why). maxPages caps runaway walks. A transport failure
// aborts the scenario.
func (e *Env) Walk(c *wire.Client, req wire.ListRequest, maxPages int, between Between) History {
	var h History
	seen := map[string]int{}
	for n := 1; ; n++ {
		if n > maxPages {
			// A walk that serves the same tasks again is looping: the listing
			// never ends. One that keeps serving new tasks is just longer than
			// this scenario's data (a filter ignored, say): that is reported
			// by the filter cases, and here it only stops the check.
			seenTask := map[string]int{}
			for _, p := range h.Pages {
				for _, t := range p.Tasks {
					if first, ok := seenTask[t.ID]; ok {
						h.End = fmt.Sprintf("runaway walk: task %s, served on page %d, came back on page %d, and the walk was not at nextPageToken \"\" after %d pages", t.ID, first, p.N, maxPages)
						f := Fail(R("LT-RESP-3", "LT-OP-4"), "%s; the listing loops", h.End).WithWitness(h.Witness(first, p.N))
						h.EndFinding = &f
						return h
					}
					seenTask[t.ID] = p.N
				}
			}
			e.Abortf("the walk did not reach nextPageToken \"\" within %d pages, serving %d distinct tasks: the listing is larger than this scenario's data (is a filter ignored?)", maxPages, len(seenTask))
		}
		p, err := c.ListTasks(e.ctx, req)
		e.Check(err, fmt.Sprintf("ListTasks page %d", n))
		rec := PageRecord{N: n, Token: req.PageToken, Tasks: p.Tasks, Next: p.NextPageToken, PageSize: p.PageSize,
			TotalSize: p.TotalSize, TasksShape: p.TasksShape, Err: p.Err, Malformed: p.Malformed, X: p.X}
		switch {
		case !p.NextPresent:
			rec.NextState = "absent"
		case p.NextNull:
			rec.NextState = "null"
		default:
			rec.NextState = "string"
		}
		h.Pages = append(h.Pages, rec)
		var f *Finding
		switch {
		case p.Err != nil && n == 1:
			h.End = "the first page failed: " + p.Err.Error()
			x := Fail(R("LT-OP-1"), "ListTasks with valid parameters failed: %s", p.Err)
			f = &x
		case p.Err != nil:
			h.End = fmt.Sprintf("page %d, requested with the server's own nextPageToken, failed: %s", n, p.Err)
			x := Fail(R("LT-REQ-5", "LT-OP-4"), "%s (a token from the previous page must retrieve the subsequent page)", h.End)
			f = &x
		case p.Malformed != "":
			h.End = fmt.Sprintf("page %d: %s", n, p.Malformed)
			x := Fail(R("LT-RESP-7"), "%s", h.End)
			f = &x
		case rec.NextState == "absent":
			h.End = fmt.Sprintf("page %d has no nextPageToken member", n)
			x := Fail(R("LT-RESP-2"), "nextPageToken is absent on page %d; \"The nextPageToken field MUST always be present in the response.\"", n)
			f = &x
		case rec.NextState == "null":
			h.End = fmt.Sprintf("page %d has nextPageToken null", n)
			x := Fail(R("LT-RESP-2", "LT-RESP-3"), "nextPageToken is null on page %d; on the final page it \"MUST be set to an empty string\"", n)
			f = &x
		}
		if f != nil {
			h.EndFinding = f
			return h
		}
		if p.NextPageToken == "" {
			return h
		}
		if prev, ok := seen[p.NextPageToken]; ok {
			h.End = fmt.Sprintf("page %d returned the same nextPageToken as page %d", n, prev)
			x := Fail(R("LT-RESP-3", "LT-OP-4"), "%s: the walk would loop forever", h.End)
			h.EndFinding = &x
			return h
		}
		seen[p.NextPageToken] = n
		if between != nil {
			h.Writes = append(h.Writes, between(n, rec)...)
		}
		req.PageToken = p.NextPageToken
	}
}
