package loadgen

import (
	"context"
	"fmt"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// SeedBatch is how many tasks Seed asks for in one control request.
const SeedBatch = 100_000

// SeedSpec describes the tasks Seed generates.
type SeedSpec struct {
	// Count is the number of tasks.
	Count int
	// Owner is the principal that owns them; Tenant is optional.
	Owner, Tenant string
	// ContextID and State, if set, are given to every task (so that the
	// same filters can walk them); the server's defaults apply otherwise.
	ContextID, State string
	// IDPrefix starts every task id (default "pwload-UNIXNANOS-"), so that
	// repeated seeding never collides.
	IDPrefix string
}

// Seed fills the store through the control API's generate request, in
// batches of SeedBatch tasks, one request each. Timestamps continue from
// batch to batch one millisecond apart, newest first, starting at the
// server clock's now (or the local clock if the server has none). It
// returns how many tasks were inserted.
func Seed(ctx context.Context, ctl *a2aclient.Control, spec SeedSpec, p Progress) (int, error) {
	if spec.Count < 1 {
		return 0, fmt.Errorf("seed: count must be at least 1, got %d", spec.Count)
	}
	if p == nil {
		p = NoProgress
	}
	prefix := spec.IDPrefix
	if prefix == "" {
		prefix = fmt.Sprintf("pwload-%d-", time.Now().UnixNano())
	}
	base := time.Now().UnixMicro()
	if c, err := ctl.Now(ctx); err == nil && c.NowMicros > 0 {
		base = c.NowMicros
	}
	const step = int64(-1000)
	tr := p.Start("seed tasks", int64(spec.Count))
	defer tr.Done()
	done := 0
	for batch := 0; done < spec.Count; batch++ {
		n := min(SeedBatch, spec.Count-done)
		start, st := base+int64(done)*step, step
		g := a2aclient.Generate{Count: n, Owner: spec.Owner, Tenant: spec.Tenant,
			IDPrefix: fmt.Sprintf("%sb%04d-", prefix, batch), StartMicros: &start, StepMicros: &st}
		if spec.ContextID != "" {
			g.ContextIDs = []string{spec.ContextID}
		}
		if spec.State != "" {
			g.States = []string{spec.State}
		}
		if err := ctl.SeedGenerate(ctx, g); err != nil {
			return done, fmt.Errorf("seed: batch %d (%d tasks after %d): %w", batch+1, n, done, err)
		}
		done += n
		tr.Add(int64(n))
	}
	return done, nil
}
