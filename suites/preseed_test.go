package suites

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// preseedViaControl gives each principal of t n existing tasks through the
// control API, the way a server that has been in use holds them: several
// contexts, every state, tie groups of equal timestamps (some at whole
// seconds), history and artifacts. Seeded randomness: the same seed gives
// the same data.
func preseedViaControl(tb testing.TB, t *scenarios.Target, n int, seed uint64) {
	tb.Helper()
	states := []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
		"TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"}
	rng := rand.New(rand.NewPCG(seed, 7))
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range t.Principals {
		var tasks []a2aclient.SeedTask
		ts := base
		for i := 0; i < n; {
			w := 1
			if rng.IntN(5) == 0 {
				w = 2 + rng.IntN(6) // a tie group
			}
			ts = ts.Add(-time.Duration(1+rng.IntN(3000)) * time.Millisecond)
			if rng.IntN(4) == 0 {
				ts = ts.Truncate(time.Second)
			}
			for j := 0; j < w && i < n; j, i = j+1, i+1 {
				us := ts.UnixMicro()
				tasks = append(tasks, a2aclient.SeedTask{ID: fmt.Sprintf("pre-%s-%05d", p.Name, i), Owner: p.Name, ContextID: fmt.Sprintf("pre-ctx-%d", rng.IntN(12)),
					State: states[rng.IntN(len(states))], TimestampMicros: &us, HistoryMessages: rng.IntN(5), Artifacts: rng.IntN(3)})
			}
		}
		if err := t.Control.Seed(context.Background(), tasks); err != nil {
			tb.Fatalf("preseed %s: %v", p.Name, err)
		}
	}
}
