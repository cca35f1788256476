package scenarios

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Write is a change made to the store while a walk was under way.
type Write struct {
	Kind   string // insert, move
	TaskID string
	// AfterPage is the page after which the write completed (before the
	// next page was requested).
	AfterPage int
	NewTS     time.Time
}

// String describes the write for witnesses.
func (w Write) String() string {
	return fmt.Sprintf("after page %d: %s %s (status timestamp now %s)", w.AfterPage, w.Kind, w.TaskID, w.NewTS.UTC().Format(time.RFC3339Nano))
}

// History is a recorded walk: its pages and the writes made during it.
type History struct {
	Pages  []a2aclient.Step
	Writes []Write
	// End says why the walk stopped if not on nextPageToken "" ("" when it
	// ended there). EndFinding is the verdict on it, which only the case
	// that owns the broken rule reports (Owner; "" means the walking case
	// itself); the others note that they could not judge past it.
	End        string
	EndFinding *Finding
	Owner      string
	// Bounded is true when pagewalk itself stopped the walk at its page
	// bound (WalkUpTo): no rule is broken.
	Bounded bool
}

// Ended reports whether the walk ended early (not on nextPageToken "").
func (h History) Ended() bool { return h.End != "" }

// Served returns the ids served, in order, over every page.
func (h History) Served() []string {
	var out []string
	for _, p := range h.Pages {
		out = append(out, p.IDs()...)
	}
	return out
}

// Truth is what a walk must return: the tasks that exist for the whole walk
// and match its filters.
type Truth map[string]time.Time // id -> status timestamp

// MovedClass classifies a task written during a walk (design-notes rule 3).
type MovedClass string

// The classes of a task written during a walk.
const (
	Missed     MovedClass = "missed"
	SeenOld    MovedClass = "seen old"
	SeenNew    MovedClass = "seen new"
	SeenBoth   MovedClass = "seen old and new"
	SeenTwiceN MovedClass = "seen new twice"
)

// OrderBreak is a place where a later task has a newer timestamp.
type OrderBreak struct {
	PrevPage, Page int
	Prev, Cur      a2aclient.Task
}

// WalkCheck is the checked outcome of a History against its Truth.
type WalkCheck struct {
	// Seen maps each served id to the pages it appeared on.
	Seen map[string][]int
	// Duplicates and Missing are unchanged tasks served twice or never
	// (rule 1). Unexpected are served tasks neither in the truth nor
	// written during the walk.
	Duplicates, Missing, Unexpected []string
	// OrderBreaks lists timestamp increases across the walk (rule 2).
	OrderBreaks []OrderBreak
	// NoTimestamp lists tasks served without a parseable status.timestamp.
	NoTimestamp []string
	// Moved classifies every written task (rule 3).
	Moved map[string]MovedClass
}

// CheckWalk applies the walk-history invariants of design-notes.md to h.
func CheckWalk(h History, truth Truth) WalkCheck {
	c := WalkCheck{Seen: map[string][]int{}, Moved: map[string]MovedClass{}}
	written := map[string]Write{}
	for _, w := range h.Writes {
		written[w.TaskID] = w
	}
	var prev *a2aclient.Task
	prevPage := 0
	for _, p := range h.Pages {
		for i := range p.Tasks {
			t := p.Tasks[i]
			c.Seen[t.ID] = append(c.Seen[t.ID], p.N)
			if t.TS.IsZero() {
				c.NoTimestamp = append(c.NoTimestamp, t.ID)
				continue
			}
			if prev != nil && t.TS.After(prev.TS) {
				c.OrderBreaks = append(c.OrderBreaks, OrderBreak{PrevPage: prevPage, Page: p.N, Prev: *prev, Cur: t})
			}
			prev, prevPage = &p.Tasks[i], p.N
		}
	}
	for id, pages := range c.Seen {
		if w, ok := written[id]; ok {
			var old, nu int
			for _, n := range pages {
				if n <= w.AfterPage {
					old++
				} else {
					nu++
				}
			}
			switch {
			case old > 0 && nu > 0:
				c.Moved[id] = SeenBoth
			case old > 0:
				c.Moved[id] = SeenOld
			case nu > 1:
				c.Moved[id] = SeenTwiceN
			default:
				c.Moved[id] = SeenNew
			}
			continue
		}
		if _, ok := truth[id]; !ok {
			c.Unexpected = append(c.Unexpected, id)
		} else if len(pages) > 1 {
			c.Duplicates = append(c.Duplicates, id)
		}
	}
	for id := range written {
		if _, ok := c.Seen[id]; !ok {
			c.Moved[id] = Missed
		}
	}
	for id := range truth {
		if _, w := written[id]; !w && len(c.Seen[id]) == 0 {
			c.Missing = append(c.Missing, id)
		}
	}
	sort.Strings(c.Duplicates)
	sort.Strings(c.Missing)
	sort.Strings(c.Unexpected)
	return c
}

// Witness renders the pages numbered ns (deduplicated, in order) and the
// writes made before the last of them, as wire transcripts.
func (h History) Witness(ns ...int) string {
	want := map[int]bool{}
	maxN := 0
	for _, n := range ns {
		want[n] = true
		maxN = max(maxN, n)
	}
	var b strings.Builder
	for _, w := range h.Writes {
		if w.AfterPage < maxN {
			fmt.Fprintf(&b, "write %s\n", w)
		}
	}
	for _, p := range h.Pages {
		if !want[p.N] {
			continue
		}
		fmt.Fprintf(&b, "page %d: %s\n", p.N, strings.Join(p.IDs(), " "))
		if p.X != nil {
			b.WriteString(p.X.Transcript())
			b.WriteByte('\n')
		}
	}
	return strings.TrimSpace(b.String())
}

// pagesAround returns the pages a task stamped ts should have been served
// between: the first page whose last task is not newer than ts, and the
// page before it.
func (h History) pagesAround(ts time.Time) []int {
	for i, p := range h.Pages {
		if len(p.Tasks) == 0 {
			continue
		}
		last := p.Tasks[len(p.Tasks)-1].TS
		if !last.After(ts) {
			if i > 0 {
				return []int{h.Pages[i-1].N, p.N}
			}
			return []int{p.N}
		}
	}
	if n := len(h.Pages); n > 0 {
		return []int{h.Pages[n-1].N}
	}
	return nil
}

// WalkFindings turns a WalkCheck into findings: lost or repeated unchanged
// tasks break reqs (the MUST of cursor pagination for the walk cases, the
// seed's tie-safe cursor for the tie case), order breaks break LT-ORDER-2.
// Written tasks are classified as Info, never failed.
func WalkFindings(h History, truth Truth, c WalkCheck, reqs []string) []Finding {
	var fs []Finding
	for _, id := range c.Duplicates {
		fs = append(fs, Breach(reqs, "task %s, unchanged during the walk, was served %d times (pages %v)", id, len(c.Seen[id]), c.Seen[id]).
			Of("duplicate", id).WithWitness(h.Witness(c.Seen[id]...)))
	}
	for _, id := range c.Missing {
		fs = append(fs, Breach(reqs, "task %s (status timestamp %s), unchanged during the walk, was never served", id, truth[id].UTC().Format(time.RFC3339Nano)).
			Of("missing", id).WithWitness(h.Witness(h.pagesAround(truth[id])...)))
	}
	for _, ob := range c.OrderBreaks {
		fs = append(fs, Breach(R("LT-ORDER-2", "LT-ORDER-1"), "task %s (%s) follows %s (%s): status timestamps increase, so the walk is not newest first",
			ob.Cur.ID, ob.Cur.Timestamp, ob.Prev.ID, ob.Prev.Timestamp).Of("order", ob.Cur.ID).WithWitness(h.Witness(ob.PrevPage, ob.Page)))
	}
	if len(c.Unexpected) > 0 {
		ids := c.Unexpected
		if len(ids) > 10 {
			ids = append(ids[:10:10], fmt.Sprintf("... (%d in all)", len(c.Unexpected)))
		}
		fs = append(fs, Observe(R("LT-RESP-1"), "the walk served tasks the scenario did not create: %s", strings.Join(ids, ", ")))
	}
	if len(c.NoTimestamp) > 0 {
		fs = append(fs, Observe(R("LT-ORDER-3"), "%d tasks have no parseable status.timestamp, so their order cannot be checked (timestamp is optional in the proto)", len(c.NoTimestamp)))
	}
	var moved []string
	for id, cl := range c.Moved {
		moved = append(moved, fmt.Sprintf("%s: %s", id, cl))
	}
	if len(moved) > 0 {
		sort.Strings(moved)
		fs = append(fs, Observe(R("LT-PAGE-3"), "tasks written during the walk (the spec leaves their fate open): %s", strings.Join(moved, "; ")))
	}
	return fs
}

// EndFindings reports, for case self, a walk that did not end on
// nextPageToken "": the finding itself when self owns the broken rule (or
// nobody else does), otherwise an Info note saying what self could not
// judge and which case judges the cause. One defect, one finding.
func EndFindings(h History, self string) []Finding {
	if h.End == "" || h.Bounded {
		return nil
	}
	if h.EndFinding == nil || (h.Owner != "" && h.Owner != self) {
		owner := h.Owner
		if owner == "" {
			owner = "the case that owns the rule"
		}
		reqs := R("LT-OP-4")
		if h.EndFinding != nil {
			reqs = h.EndFinding.Reqs
		}
		return []Finding{Observe(reqs, "could not judge past page %d: %s (judged by %s)", len(h.Pages), h.End, owner).Of("unfinished", "")}
	}
	f := *h.EndFinding
	if n := len(h.Pages); n > 0 && f.Witness == "" {
		f.Witness = h.Witness(h.Pages[n-1].N)
	}
	return []Finding{f}
}
