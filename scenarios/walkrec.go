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
	return e.walk(c, req, maxPages, between, false)
}

// WalkUpTo walks at most maxPages pages of req and stops there without a
// verdict: a deliberately partial walk (History.Bounded) of a listing that
// may be longer, such as a server's existing tasks.
func (e *Env) WalkUpTo(c *a2aclient.Client, req a2aclient.ListRequest, maxPages int) History {
	return e.walk(c, req, maxPages, nil, true)
}

func (e *Env) walk(c *a2aclient.Client, req a2aclient.ListRequest, maxPages int, between Between, bounded bool) History {
	if m := e.target.MaxPages; m > 0 && m < maxPages {
		maxPages = m // the user's --max-pages bounds every walk
	}
	var h History
	for st, err := range a2aclient.Walk(e.ctx, a2aclient.ByteBudget(c, a2aclient.DefaultWalkBytes), req, a2aclient.MaxPages(maxPages)) {
		var stop *a2aclient.StopError
		if err != nil && !errors.As(err, &stop) {
			e.Check(err, fmt.Sprintf("ListTasks page %d", st.N))
		}
		// A deliberately partial walk that reaches the byte budget (large
		// tasks) stops there like at its page bound; it keeps what it read.
		var over *a2aclient.BudgetError
		if stop != nil && bounded && errors.As(stop.Err, &over) {
			if st.Page != nil {
				h.Pages = append(h.Pages, st)
			}
			h.End, h.Bounded = fmt.Sprintf("stopped after %d pages: %v", st.N, over), true
			return h
		}
		if stop != nil && stop.Kind == a2aclient.StopTransport {
			e.Check(stop.Err, fmt.Sprintf("ListTasks page %d", st.N))
		}
		h.Pages = append(h.Pages, st)
		if stop != nil && stop.Kind == a2aclient.StopPageCap && bounded {
			h.End, h.Bounded = fmt.Sprintf("stopped after %d pages (pagewalk's bound for this walk)", st.N), true
			return h
		}
		if stop != nil {
			h.End, h.EndFinding, h.Owner = e.classifyStop(h, stop)
			return h
		}
		if between != nil && st.NextPageToken != "" {
			h.Writes = append(h.Writes, between(st.N, st)...)
		}
	}
	return h
}

// The cases that own the rules a walk can break on its way: the end of the
// listing (LT-RESP-2, LT-RESP-3), the shape of a reply (LT-RESP-7), and a
// page token that does not retrieve the next page (LT-OP-4).
const (
	ownerLastPage = "LT-WALK-LAST-PAGE"
	ownerShape    = "LT-WALK-SHAPE"
	ownerExact    = "LT-WALK-EXACT"
)

// classifyStop turns a walk that ended early into the reason, the finding
// where a rule is broken, and the case that owns that rule ("" for the
// walking case itself). A walk that outgrows its page cap while still
// serving new tasks is longer than the scenario's data (a filter ignored,
// say): that is reported by the cases that own the filter, and here it only
// stops the check.
func (e *Env) classifyStop(h History, stop *a2aclient.StopError) (string, *Finding, string) {
	end, f := e.stopFinding(h, stop)
	owner := ""
	switch stop.Kind {
	case a2aclient.StopNextAbsent, a2aclient.StopNextNull, a2aclient.StopLoop, a2aclient.StopPageCap:
		owner = ownerLastPage
	case a2aclient.StopMalformed:
		owner = ownerShape
	case a2aclient.StopProtocolError:
		if stop.Page > 1 {
			owner = ownerExact
		}
	}
	return end, f, owner
}

func (e *Env) stopFinding(h History, stop *a2aclient.StopError) (string, *Finding) {
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
		e.Skip("the walk did not reach nextPageToken \"\" within %d pages, serving %d distinct tasks: the listing is larger than this case's data, so it cannot judge it (a filter ignored? the filter cases judge that)", stop.MaxPages, len(seenTask))
	}
	e.Abortf("walk stopped: %v", stop)
	return "", nil
}
