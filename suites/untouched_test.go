package suites

import (
	"context"
	"fmt"
	"testing"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// TestCheckLeavesOthersDataAlone: pagewalk never touches what it did not
// create. 3,000 tasks seeded for a principal before a full check with the
// control API (hardened, both bindings) are all there afterwards, unchanged:
// same ids, states, timestamps and contexts.
func TestCheckLeavesOthersDataAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite")
	}
	ctx := context.Background()
	ref, err := StartInProcess()
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	tg, err := ReferenceTarget(ctx, ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	var seed []a2aclient.SeedTask
	for i := 0; i < 3000; i++ {
		us := int64(1_780_000_000_000_000) - int64(i)*1000
		seed = append(seed, a2aclient.SeedTask{ID: fmt.Sprintf("vendor-%04d", i), Owner: "alice", ContextID: fmt.Sprintf("vendor-ctx-%d", i%7),
			State: []string{"TASK_STATE_COMPLETED", "TASK_STATE_WORKING", "TASK_STATE_FAILED"}[i%3], TimestampMicros: &us, HistoryMessages: i % 3, Artifacts: i % 2})
	}
	if err := tg.Control.Seed(ctx, seed); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string]a2aclient.Task {
		// A client of the card as it is now: LT-TOKEN-RESTART restarts the
		// server, which may then listen elsewhere.
		c, err := tg.Client(a2aclient.HTTPJSON, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]a2aclient.Task{}
		for st, err := range a2aclient.Walk(ctx, c, a2aclient.ListRequest{PageSize: a2aclient.Ptr(100), HistoryLength: a2aclient.Ptr(0)}) {
			if err != nil {
				t.Fatal(err)
			}
			for _, tk := range st.Tasks {
				if len(tk.ID) > 7 && tk.ID[:7] == "vendor-" {
					out[tk.ID] = tk
				}
			}
		}
		return out
	}
	before := snapshot()
	if len(before) != 3000 {
		t.Fatalf("seeded 3000, listed %d", len(before))
	}
	results := RunAll(ctx, tg, scenarios.Judgement{Profile: scenarios.ProfileHardened, Strict: true})
	ran := 0
	for _, r := range results {
		if r.Verdict != scenarios.Skipped {
			ran++
		}
	}
	after := snapshot()
	if len(after) != 3000 {
		t.Errorf("after the check (%d cases run) %d of the 3000 tasks are left", ran, len(after))
	}
	for id, b := range before {
		a, ok := after[id]
		if ok && (a.State != b.State || a.Timestamp != b.Timestamp || a.ContextID != b.ContextID) {
			t.Errorf("task %s changed: %s %s %s -> %s %s %s", id, b.State, b.Timestamp, b.ContextID, a.State, a.Timestamp, a.ContextID)
		}
	}
}
