package scenarios

import (
	"errors"
	"fmt"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Between is called after each page of a recorded walk, before the next is
// requested; scenarios use it to write mid-walk. It returns the writes it
// made.
type Between func(afterPage int, p a2aclient.Step) []Write

// Walk records a full walk of req by client c, page by page as the one
// iterator (a2aclient.Walk) yields them, until nextPageToken is "" or the
// walk cannot go on (then History.End and EndFinding say why). maxPages
// caps runaway walks. A transport failure aborts the scenario.
func (e *Env) Walk(c *a2aclient.Client, req a2aclient.ListRequest, maxPages int, between Between) History {
	var h History
	for st, err := range a2aclient.Walk(e.ctx, c, req, a2aclient.MaxPages(maxPages)) {
		var stop *a2aclient.StopError
		if err != nil && !errors.As(err, &stop) {
			e.Check(err, fmt.Sprintf("ListTasks page %d", st.N))
		}
		if stop != nil && stop.Kind == a2aclient.StopTransport {
			e.Check(stop.Err, fmt.Sprintf("ListTasks page %d", st.N))
		}
		h.Pages = append(h.Pages, st)
		if stop != nil {
			h.End, h.EndFinding = e.classifyStop(h, stop)
			return h
		}
		if between != nil && st.NextPageToken != "" {
			h.Writes = append(h.Writes, between(st.N, st)...)
		}
	}
	return h
}

// classifyStop turns a walk that ended early into the reason and, where a
// rule is broken, the finding. A walk that outgrows its page cap while still
// serving new tasks is longer than the scenario's data (a filter ignored,
// say): that is reported by the cases that own the filter, and here it only
// stops the check.
func (e *Env) classifyStop(h History, stop *a2aclient.StopError) (string, *Finding) {
	n := stop.Page
	var f Finding
	switch stop.Kind {
	case a2aclient.StopProtocolError:
		if n == 1 {
			f = Breach(R("LT-OP-1"), "ListTasks with valid parameters failed: %v", stop.Err)
			return "the first page failed: " + stop.Err.Error(), &f
		}
		end := fmt.Sprintf("page %d, requested with the server's own nextPageToken, failed: %v", n, stop.Err)
		f = Breach(R("LT-OP-4", "LT-REQ-5"), "%s (a token from the previous page must retrieve the subsequent page)", end)
		return end, &f
	case a2aclient.StopMalformed:
		end := fmt.Sprintf("page %d: %v", n, stop.Err)
		f = Breach(R("LT-RESP-7"), "%s", end)
		return end, &f
	case a2aclient.StopNextAbsent:
		f = Breach(R("LT-RESP-2"), "nextPageToken is absent on page %d; \"The nextPageToken field MUST always be present in the response.\"", n)
		return fmt.Sprintf("page %d has no nextPageToken member", n), &f
	case a2aclient.StopNextNull:
		f = Breach(R("LT-RESP-2", "LT-RESP-3"), "nextPageToken is null on page %d; on the final page it \"MUST be set to an empty string\"", n)
		return fmt.Sprintf("page %d has nextPageToken null", n), &f
	case a2aclient.StopLoop:
		end := fmt.Sprintf("page %d returned the same nextPageToken as page %d", n, stop.FirstIssued)
		f = Breach(R("LT-RESP-3", "LT-OP-4"), "%s: the walk would loop forever", end)
		return end, &f
	case a2aclient.StopPageCap:
		seenTask := map[string]int{}
		for _, p := range h.Pages {
			for _, t := range p.Tasks {
				if first, ok := seenTask[t.ID]; ok {
					end := fmt.Sprintf("runaway walk: task %s, served on page %d, came back on page %d, and the walk was not at nextPageToken \"\" after %d pages", t.ID, first, p.N, stop.MaxPages)
					f = Breach(R("LT-RESP-3", "LT-OP-4"), "%s; the listing loops", end).WithWitness(h.Witness(first, p.N))
					return end, &f
				}
				seenTask[t.ID] = p.N
			}
		}
		e.Abortf("the walk did not reach nextPageToken \"\" within %d pages, serving %d distinct tasks: the listing is larger than this scenario's data (is a filter ignored?)", stop.MaxPages, len(seenTask))
	}
	e.Abortf("walk stopped: %v", stop)
	return "", nil
}
