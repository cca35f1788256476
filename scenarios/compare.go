package scenarios

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// This file compares several walks of one listing made with no writes of
// pagewalk's own between them, as black-box cases do over data the server
// already has or that pagewalk created: every walk must serve the same
// tasks, each once, newest first. A task missing or served twice is blamed
// on ties when it shares its timestamp with another task and a page of that
// walk ends on that timestamp (the cursor had to carry a tie across pages:
// LT-TIE-BOUNDARY's business, a hardened practice); otherwise on the cursor
// itself (LT-WALK-EXACT, a MUST).

// Walked is one walk to compare, with a label such as "pageSize 7".
type Walked struct {
	Label string
	H     History
}

// Miss is a task a walk did not serve, or served more than once.
type Miss struct {
	Walk   string
	TaskID string
	TS     time.Time
	// Tie is true when the task shares its timestamp with another and a
	// page of this walk ends on that timestamp.
	Tie bool
	// CutShort is true when the walk ended on nextPageToken "" before
	// reaching the task (it is older than the last task served): the end
	// of the listing came too early, which LT-WALK-LAST-PAGE judges.
	CutShort bool
	// Pages are the pages it was served on (duplicates).
	Pages   []int
	Witness string
	// WalkEnd says how the walk ended, when it ended before nextPageToken
	// "" (a loop, an error, a malformed page): the cause a reader needs
	// next to a miss.
	WalkEnd string
}

// whyEnded renders m.WalkEnd for a message ("" when the walk completed).
func (m Miss) whyEnded() string {
	if m.WalkEnd == "" {
		return ""
	}
	return " (the walk ended early: " + m.WalkEnd + ")"
}

// Comparison is the outcome of CompareWalks.
type Comparison struct {
	// Judged is how many tasks every walk had to serve; Distinct how many
	// distinct timestamps they have; Tied how many of them share one.
	Judged, Distinct, Tied int
	// TieBoundaries counts the tie groups some walk carried across a page
	// boundary (a page ended on the group's timestamp with more to come).
	TieBoundaries int
	// Moved lists tasks whose timestamp or state differed between walks:
	// they changed while pagewalk read, so they are not judged.
	Moved []string
	// Range says what part of the listing was judged.
	Range string
	// Missing and Duplicates list the misses of every walk.
	Missing, Duplicates []Miss
	// Orders holds each walk's own order check.
	Orders map[string]WalkCheck
	// MixedTieOrder lists tied pairs that two walks serve in opposite
	// orders: the tie-break is not stable from walk to walk.
	MixedTieOrder []string
}

// CompareWalks compares walks of one listing. expect, when not nil, is the
// exact set every walk must serve (tasks pagewalk created in a context of
// its own); when nil, the set is the union of what the walks served, over
// the part of the listing every walk covered: all of it for walks that
// ended on nextPageToken "", otherwise the tasks newer than the last task
// a partial walk served.
func CompareWalks(walks []Walked, expect Truth) Comparison {
	c := Comparison{Orders: map[string]WalkCheck{}}
	// What each task looked like, to spot tasks that changed mid-read.
	first := map[string]a2aclient.Task{}
	moved := map[string]bool{}
	var cutoff time.Time // judge only tasks newer than this (zero: all)
	partial := false
	for _, w := range walks {
		for _, p := range w.H.Pages {
			for _, t := range p.Tasks {
				if f, ok := first[t.ID]; ok && (!f.TS.Equal(t.TS) || f.State != t.State) {
					moved[t.ID] = true
				} else if !ok {
					first[t.ID] = t
				}
			}
		}
		if w.H.Ended() {
			partial = true
			if last, ok := lastTS(w.H); ok && (cutoff.IsZero() || last.After(cutoff)) {
				cutoff = last
			} else if !ok {
				cutoff = farFuture // a walk that served nothing covers nothing
			}
		}
	}
	inRange := func(ts time.Time) bool { return !partial || ts.After(cutoff) }
	want := Truth{}
	if expect != nil {
		for id, ts := range expect {
			if inRange(ts) {
				want[id] = ts
			}
		}
	} else {
		for id, t := range first {
			// pagewalk's own tasks (created while the walks ran) are judged
			// by the walks of their own contexts, not here.
			if !t.TS.IsZero() && inRange(t.TS) && !strings.HasPrefix(t.ContextID, runPrefix) {
				want[id] = t.TS
			}
		}
	}
	for id := range moved {
		delete(want, id)
		c.Moved = append(c.Moved, id)
	}
	sort.Strings(c.Moved)
	count := map[time.Time]int{}
	for _, ts := range want {
		count[ts]++
	}
	c.Judged, c.Distinct = len(want), len(count)
	for _, n := range count {
		if n > 1 {
			c.Tied += n
		}
	}
	switch {
	case !partial:
		c.Range = "the whole listing"
	default:
		c.Range = "tasks newer than " + a2aclient.FormatTimestamp(cutoff) + " (every walk covered them)"
	}
	boundary := map[time.Time]bool{}
	for _, w := range walks {
		ends := pageEndTimes(w.H)
		seen := map[string][]int{}
		for _, p := range w.H.Pages {
			for _, t := range p.Tasks {
				seen[t.ID] = append(seen[t.ID], p.N)
			}
		}
		tie := func(ts time.Time) bool { return count[ts] > 1 && ends[ts] }
		last, hasLast := lastTS(w.H)
		// A task tied with the last one served is cut short too when an
		// older one is missing as well: the walk demonstrably ended early,
		// not just inside a tie group (which is LT-TIE-BOUNDARY's).
		olderMissing := false
		for id, ts := range want {
			if len(seen[id]) == 0 && hasLast && ts.Before(last) {
				olderMissing = true
			}
		}
		cutShort := func(ts time.Time) bool {
			return !w.H.Ended() && hasLast && (ts.Before(last) || ts.Equal(last) && olderMissing)
		}
		for ts := range ends {
			if count[ts] > 1 {
				boundary[ts] = true
			}
		}
		newest, hasNewest := firstTS(w.H)
		for id, ts := range want {
			switch pages := seen[id]; {
			case len(pages) == 0 && expect == nil && hasNewest && ts.After(newest):
				// Newer than anything this walk saw: made after it began.
			case len(pages) == 0:
				m := Miss{Walk: w.Label, TaskID: id, TS: ts, Tie: tie(ts), CutShort: cutShort(ts), Witness: w.H.Witness(w.H.pagesAround(ts)...)}
				if w.H.Ended() && !w.H.Bounded {
					m.WalkEnd = w.H.End
				}
				c.Missing = append(c.Missing, m)
			case len(pages) > 1:
				c.Duplicates = append(c.Duplicates, Miss{Walk: w.Label, TaskID: id, TS: ts, Tie: tie(ts), Pages: pages, Witness: w.H.Witness(pages...)})
			}
		}
		c.Orders[w.Label] = CheckWalk(w.H, Truth{})
	}
	c.MixedTieOrder = tieOrderFlips(walks, want, count)
	c.TieBoundaries = len(boundary)
	sortMisses(c.Missing)
	sortMisses(c.Duplicates)
	return c
}

// tieOrderFlips compares, for tasks that share a timestamp, the order in
// which each walk served them: a stable tie-break (whatever its key: the
// spec names none) serves every tied pair in the same order in every walk.
// It returns a description of each pair two walks serve in opposite orders
// (at most a few). Nothing is assumed about how ids sort.
func tieOrderFlips(walks []Walked, want Truth, count map[time.Time]int) []string {
	pos := make([]map[string]int, len(walks))
	for i, w := range walks {
		pos[i] = map[string]int{}
		n := 0
		for _, p := range w.H.Pages {
			for _, t := range p.Tasks {
				if _, seen := pos[i][t.ID]; !seen {
					pos[i][t.ID] = n
				}
				n++
			}
		}
	}
	groups := map[time.Time][]string{}
	for id, ts := range want {
		if count[ts] > 1 {
			groups[ts] = append(groups[ts], id)
		}
	}
	var keys []time.Time
	for ts := range groups {
		keys = append(keys, ts)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].After(keys[j]) })
	var out []string
	for _, ts := range keys {
		ids := groups[ts]
		sort.Strings(ids)
		for a := 0; a < len(ids) && len(out) < 5; a++ {
			for b := a + 1; b < len(ids) && len(out) < 5; b++ {
				first := -1 // the first walk holding both, and its order
				var before bool
				for i := range walks {
					pa, okA := pos[i][ids[a]]
					pb, okB := pos[i][ids[b]]
					if !okA || !okB {
						continue
					}
					if first < 0 {
						first, before = i, pa < pb
					} else if (pa < pb) != before {
						out = append(out, fmt.Sprintf("tasks %s and %s (tied at %s) come in one order in %q and in the other in %q",
							ids[a], ids[b], a2aclient.FormatTimestamp(ts), walks[first].Label, walks[i].Label))
						break
					}
				}
			}
		}
	}
	return out
}

func sortMisses(ms []Miss) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].Walk != ms[j].Walk {
			return ms[i].Walk < ms[j].Walk
		}
		return ms[i].TaskID < ms[j].TaskID
	})
}

var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// firstTS returns the timestamp of the first task a walk served.
func firstTS(h History) (time.Time, bool) {
	for _, p := range h.Pages {
		if len(p.Tasks) > 0 {
			return p.Tasks[0].TS, !p.Tasks[0].TS.IsZero()
		}
	}
	return time.Time{}, false
}

// lastTS returns the timestamp of the last task a walk served.
func lastTS(h History) (time.Time, bool) {
	for i := len(h.Pages) - 1; i >= 0; i-- {
		if ts := h.Pages[i].Tasks; len(ts) > 0 {
			return ts[len(ts)-1].TS, !ts[len(ts)-1].TS.IsZero()
		}
	}
	return time.Time{}, false
}

// pageEndTimes returns the timestamps that end a page which is followed by
// another: where the cursor had to carry that timestamp across pages.
func pageEndTimes(h History) map[time.Time]bool {
	out := map[time.Time]bool{}
	for i, p := range h.Pages {
		if i == len(h.Pages)-1 || len(p.Tasks) == 0 {
			continue
		}
		out[p.Tasks[len(p.Tasks)-1].TS] = true
	}
	return out
}

// Summary says in a line what the comparison judged.
func (c Comparison) Summary(walks int) string {
	s := fmt.Sprintf("%d walks compared over %s: %d tasks judged, %d distinct timestamps, %d tasks tied, %d tie groups carried across a page boundary",
		walks, c.Range, c.Judged, c.Distinct, c.Tied, c.TieBoundaries)
	if len(c.Moved) > 0 {
		s += fmt.Sprintf("; %d tasks changed while pagewalk read and were not judged", len(c.Moved))
	}
	return s
}

// exactFindings are the misses not caused by ties: the MUST of cursor
// pagination (LT-WALK-EXACT).
func (c Comparison) exactFindings() []Finding {
	var fs []Finding
	for _, m := range c.Missing {
		if !m.Tie && !m.CutShort {
			fs = append(fs, Breach(R("LT-OP-4", "LT-RESP-3"), "%s: task %s (status timestamp %s), unchanged while pagewalk read, was never served%s",
				m.Walk, m.TaskID, a2aclient.FormatTimestamp(m.TS), m.whyEnded()).Of("missing", m.Walk).WithWitness(m.Witness))
		}
	}
	for _, m := range c.Duplicates {
		if !m.Tie {
			fs = append(fs, Breach(R("LT-OP-4", "LT-RESP-3"), "%s: task %s, unchanged while pagewalk read, was served %d times (pages %v)",
				m.Walk, m.TaskID, len(m.Pages), m.Pages).Of("duplicate", m.Walk).WithWitness(m.Witness))
		}
	}
	return fs
}

// tieFindings are the misses at tie boundaries, and tie orders that change
// from page to page: the seed's tie-safe cursor (LT-TIE-BOUNDARY).
func (c Comparison) tieFindings() []Finding {
	var fs []Finding
	for _, m := range c.Missing {
		if m.Tie && !m.CutShort {
			fs = append(fs, Breach(R("LT-SEED-2", "LT-ORDER-3"), "%s: task %s, tied with others at %s where a page ends, was never served%s",
				m.Walk, m.TaskID, a2aclient.FormatTimestamp(m.TS), m.whyEnded()).Of("missing", m.Walk).WithWitness(m.Witness))
		}
	}
	for _, m := range c.Duplicates {
		if m.Tie {
			fs = append(fs, Breach(R("LT-SEED-2", "LT-ORDER-3"), "%s: task %s, tied with others at %s where a page ends, was served %d times (pages %v)",
				m.Walk, m.TaskID, a2aclient.FormatTimestamp(m.TS), len(m.Pages), m.Pages).Of("duplicate", m.Walk).WithWitness(m.Witness))
		}
	}
	for _, m := range c.MixedTieOrder {
		fs = append(fs, Breach(R("LT-SEED-2", "LT-ORDER-3"), "%s: the tie-break is not stable, so a cursor cannot carry a tie across pages", m).Of("tie-order", ""))
	}
	return fs
}

// cutShortFindings are the walks that ended on nextPageToken "" while
// tasks remained (LT-WALK-LAST-PAGE).
func (c Comparison) cutShortFindings(walks []Walked) []Finding {
	left := map[string][]string{}
	for _, m := range c.Missing {
		if m.CutShort {
			left[m.Walk] = append(left[m.Walk], m.TaskID)
		}
	}
	var fs []Finding
	for _, w := range walks {
		ids := left[w.Label]
		if len(ids) == 0 {
			continue
		}
		sort.Strings(ids)
		n := len(w.H.Pages)
		fs = append(fs, Breach(R("LT-RESP-3", "LT-PAGE-1"), "%s: page %d said nextPageToken \"\" (the final page), but %d older tasks were never served (%s)",
			w.Label, n, len(ids), idList(ids, 5)).Of("cut-short", w.Label).WithWitness(w.H.Witness(n)))
	}
	return fs
}

// orderFindings are the order breaks of every walk (LT-WALK-ORDER).
func (c Comparison) orderFindings(walks []Walked) []Finding {
	var fs []Finding
	for _, w := range walks {
		chk := c.Orders[w.Label]
		fs = append(fs, WalkFindings(w.H, Truth{}, WalkCheck{OrderBreaks: chk.OrderBreaks, NoTimestamp: chk.NoTimestamp}, R("LT-OP-4"))...)
	}
	return fs
}
