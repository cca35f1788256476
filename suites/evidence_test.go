package suites

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// runFake checks a fakeA2A black-box, hardened and strict, with the given
// principals.
func runFake(t *testing.T, f *fakeA2A, principals ...string) []*scenarios.Result {
	t.Helper()
	url := startFake(t, f)
	ps, err := a2aclient.ParsePrincipals(principals)
	if err != nil {
		t.Fatal(err)
	}
	// No real-time waits: the fake's clock is its own.
	tg, err := ExternalTarget(context.Background(), TargetOptions{URL: url, Principals: ps, MaxWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return RunAll(context.Background(), tg, scenarios.Judgement{Profile: scenarios.ProfileHardened, Strict: true})
}

// TestNoPassWithoutEvidence: against a correct server whose data cannot show
// a case's property (every task one timestamp, one state, no history, no
// artifacts, one principal, nothing that can move them), those cases are
// Skipped with the reason, never passed. One case per area at least.
func TestNoPassWithoutEvidence(t *testing.T) {
	flat := &fakeA2A{fixedTS: true}
	results := runFake(t, flat, "alice=alice-token")
	mustSkip := map[string]string{
		"LT-WALK-ORDER":       "walk: order needs two distinct timestamps",
		"LT-MOVE-BEHIND":      "moving: nothing can move a task",
		"LT-MOVE-AHEAD":       "moving: nothing can move a task",
		"LT-TOKEN-EXPIRED":    "tokens: no token lifetime given",
		"LT-ARTIFACTS-OMIT":   "params: no task has artifacts",
		"LT-HISTORY-LIST":     "params: no task has history",
		"LT-HISTORY-GET":      "params: no task has history",
		"LT-PAGESIZE-DEFAULT": "params: fewer than 51 tasks",
		"LT-FILTER-STATUS":    "filters: one state only",
		"LT-FILTER-TSA":       "filters: one timestamp only",
		"LT-FILTER-COMBINED":  "filters: one timestamp only",
		"LT-SCOPE-LIST":       "scoping: one principal",
		"LT-SCOPE-GET":        "scoping: one principal",
		"LT-SCOPE-TENANT":     "scoping: no other tenant",
	}
	seen := map[string]bool{}
	for _, r := range results {
		why, ok := mustSkip[r.ID]
		if !ok {
			continue
		}
		seen[r.ID] = true
		if r.Verdict != scenarios.Skipped {
			t.Errorf("%s is %s on data that cannot show it (%s); it must be Skipped: %s", r.Name(), r.Verdict, why, r.Headline())
		} else if r.Skip == "" {
			t.Errorf("%s skipped without a reason", r.Name())
		}
	}
	for id := range mustSkip {
		if !seen[id] {
			t.Errorf("%s did not run", id)
		}
	}
	for _, r := range results {
		for _, f := range r.Findings {
			if f.Class != scenarios.ClassInfo {
				t.Errorf("the flat fake is correct, yet %s reported %v", r.Name(), f)
			}
		}
	}
}

// TestCleanIndependentServer: a correct server written apart from the
// reference (its own store, token and clock) gets no finding above Info,
// and its cases pass or skip with a reason.
func TestCleanIndependentServer(t *testing.T) {
	results := runFake(t, &fakeA2A{history: true, artifacts: true}, "alice=alice-token", "bob=bob-token")
	passed := 0
	for _, r := range results {
		switch {
		case r.Verdict == scenarios.Pass:
			passed++
		case r.Verdict == scenarios.Skipped && r.Skip != "":
		default:
			t.Errorf("%s: %s %s", r.Name(), r.Verdict, r.Headline())
		}
		for _, f := range r.Findings {
			if f.Class != scenarios.ClassInfo {
				t.Errorf("%s reported %v", r.Name(), f)
			}
		}
	}
	if passed < 20 {
		t.Errorf("only %d cases passed; the independent server should let most cases judge", passed)
	}
}

// TestOneDefectOneFinding: a server with exactly one defect gets findings
// (above Info) that name only that defect's requirements, from the case
// that owns them, and at least one.
func TestOneDefectOneFinding(t *testing.T) {
	for _, c := range []struct {
		name  string
		fake  *fakeA2A
		owner string
		reqs  []string
	}{
		{"absent nextPageToken on the last page", &fakeA2A{absentToken: true, history: true, artifacts: true}, "LT-WALK-LAST-PAGE", []string{"LT-RESP-2"}},
		{"sorted by task id", &fakeA2A{idOrder: true, history: true, artifacts: true}, "LT-WALK-ORDER", []string{"LT-ORDER-2"}},
		{"whole-second timestamps and a timestamp-only cursor", &fakeA2A{precision: "s", timestampOnly: true, history: true, artifacts: true}, "LT-TIE-BOUNDARY", []string{"LT-SEED-2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			results := runFake(t, c.fake, "alice=alice-token", "bob=bob-token")
			allowed := map[string]bool{}
			for _, r := range c.reqs {
				allowed[r] = true
			}
			owned := false
			var others []string
			for _, r := range results {
				for _, f := range r.Findings {
					if f.Class == scenarios.ClassInfo {
						continue
					}
					if !allowed[f.Reqs[0]] {
						others = append(others, r.Name()+": "+f.String())
						continue
					}
					owned = owned || r.ID == c.owner
				}
			}
			sort.Strings(others)
			if len(others) > 0 {
				t.Errorf("findings beyond the one defect (%v):\n%s", c.reqs, strings.Join(others, "\n"))
			}
			if !owned {
				t.Errorf("%s reported no finding on %v", c.owner, c.reqs)
			}
		})
	}
}
