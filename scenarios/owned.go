package scenarios

import (
	"sort"
	"strings"
	"time"
)

// One defect, one finding: a case whose walk shows, in its own data, the
// symptom of a rule another case owns says what it could not judge instead
// of reporting it again. These are the two walk symptoms the walk cases
// own: a walk cut short on nextPageToken "" (LT-WALK-LAST-PAGE) and a page
// that starts with the previous page's last task on a still listing
// (LT-WALK-EXACT).

// cutShort returns the ids of missing (tasks the walk had to serve, by
// truth) that are older than the oldest unchanged task the walk served, or
// tied with it when an older one is missing too, when the walk ended on
// nextPageToken "": the final page said there was no more while they
// remained, which LT-WALK-LAST-PAGE judges (LT-RESP-3). A walk that ends
// inside a tie group with nothing older missing is no proof of an early
// end (a tie-unsafe cursor does that: LT-TIE-BOUNDARY's). Tasks written
// during the walk are not counted: they may have moved anywhere.
func cutShort(h History, truth Truth, missing []string) []string {
	if h.Ended() || len(missing) == 0 {
		return nil
	}
	written := map[string]bool{}
	for _, w := range h.Writes {
		written[w.TaskID] = true
	}
	var last time.Time
	found := false
	for _, p := range h.Pages {
		for _, t := range p.Tasks {
			ts, ok := truth[t.ID]
			if !ok || written[t.ID] {
				continue
			}
			if !found || ts.Before(last) {
				last, found = ts, true
			}
		}
	}
	if !found {
		return nil
	}
	olderMissing := false
	for _, id := range missing {
		if ts, ok := truth[id]; ok && ts.Before(last) {
			olderMissing = true
		}
	}
	var out []string
	for _, id := range missing {
		if ts, ok := truth[id]; ok && (ts.Before(last) || ts.Equal(last) && olderMissing) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// cutShortNote is the Info line of a case that could not judge the tasks a
// walk cut short.
func cutShortNote(reqs []string, what string, ids []string) Finding {
	return Observe(reqs, "%scould not judge %d tasks not newer than the oldest task the walk served (%s): the walk ended on nextPageToken \"\" before them (judged by %s)",
		what, len(ids), idList(ids, 5), ownerLastPage).Of("unfinished", "cut-short")
}

// boundaryRepeats returns the ids a walk served as the last task of one
// page and the first of the next, and whether one such repeat came at a
// boundary with no write made there: then the server repeats a page's last
// task on a still listing, which LT-WALK-EXACT judges, and no repeat at a
// page boundary of this walk can be told from it.
func boundaryRepeats(h History) (map[string]bool, bool) {
	wrote := map[int]bool{}
	for _, w := range h.Writes {
		wrote[w.AfterPage] = true
	}
	rep := map[string]bool{}
	still := false
	for i := 0; i+1 < len(h.Pages); i++ {
		a, b := h.Pages[i].Tasks, h.Pages[i+1].Tasks
		if len(a) == 0 || len(b) == 0 || a[len(a)-1].ID != b[0].ID {
			continue
		}
		rep[b[0].ID] = true
		if !wrote[h.Pages[i].N] {
			still = true
		}
	}
	return rep, still
}

// repeatNote is the Info line of a case that could not judge tasks served
// twice at page boundaries because the server repeats them on a still
// listing.
func repeatNote(reqs []string, what string, ids []string) Finding {
	return Observe(reqs, "%scould not judge %d tasks served twice at page boundaries (%s): pages start with the previous page's last task even where nothing was written (judged by %s)",
		what, len(ids), idList(ids, 5), ownerExact).Of("unfinished", "repeat")
}

// prefixed returns s followed by ": ", or "" for "".
func prefixed(s string) string {
	if s == "" {
		return ""
	}
	return strings.TrimSpace(s) + ": "
}

// setOf returns ids as a set.
func setOf(ids []string) map[string]bool {
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}
