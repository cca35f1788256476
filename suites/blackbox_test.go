package suites

import (
	"context"
	"testing"

	"github.com/pagewalk/pagewalk/scenarios"
)

// blackBoxTarget is the in-process reference without its control API, as a
// vendor's production endpoint would look.
func blackBoxTarget(t *testing.T, faults ...string) *scenarios.Target {
	t.Helper()
	ref, err := StartInProcess(faults...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	tg, err := ReferenceTarget(context.Background(), ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	preseedViaControl(t, tg, 600, 1)
	tg.Control, tg.Restart, tg.TokenTTL = nil, nil, 0
	return tg
}

// TestBlackBoxVariants runs the suite with no control API: the black-box
// variants must pass on the clean reference, every other case must be
// skipped with its reason, and the black-box checks must still fail against
// mutants they are meant to catch.
func TestBlackBoxVariants(t *testing.T) {
	ctx := context.Background()
	ran := map[string]bool{}
	for _, r := range RunAll(ctx, blackBoxTarget(t), scenarios.Judgement{Profile: scenarios.ProfileHardened, Strict: true}) {
		switch {
		case r.Verdict == scenarios.Skipped:
			if r.Skip == "" {
				t.Errorf("%s skipped without a reason", r.Name())
			}
		case r.Verdict != scenarios.Pass:
			t.Errorf("clean reference, black-box: %s is %s: %s %v", r.Name(), r.Verdict, r.Error, r.Findings)
		case r.Variant == "black-box":
			ran[r.ID] = true
		}
	}
	for _, id := range []string{"LT-WALK-EXACT", "LT-WALK-ORDER", "LT-MOVE-INSERT-HEAD", "LT-MOVE-BEHIND", "LT-TOKEN-REPLAY-PRINCIPAL",
		"LT-TOKEN-TAMPER", "LT-SCOPE-LIST", "LT-SCOPE-GET", "LT-HISTORY-GET", "LT-PAGESIZE-DEFAULT", "LT-FILTER-CONTEXT", "LT-FILTER-STATUS"} {
		if !ran[id] {
			t.Errorf("black-box variant of %s did not run", id)
		}
	}
	for fault, want := range map[string]string{
		"offset-cursor":   "LT-MOVE-INSERT-HEAD",
		"leak-principal":  "LT-TOKEN-REPLAY-PRINCIPAL",
		"unscoped-list":   "LT-SCOPE-LIST",
		"history-ignored": "LT-HISTORY-GET",
	} {
		killed := false
		tg := blackBoxTarget(t, fault)
		for _, r := range RunAll(ctx, tg, scenarios.Judgement{Profile: scenarios.ProfileHardened, Strict: true}) {
			if r.ID == want && r.Variant == "black-box" && r.Verdict == scenarios.VFail {
				killed = true
			}
		}
		if !killed {
			t.Errorf("black-box %s did not fail against the %s mutant", want, fault)
		}
	}
}
