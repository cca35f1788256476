package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Schedule is how a Runner spreads its attack over the depth buckets: the
// strategy behind --schedule.
type Schedule interface {
	// Name is the schedule's --schedule spelling.
	Name() string
	// run attacks every bucket of the harvest and folds the results into
	// agg. It returns the harvest the attack used and warnings.
	run(ctx context.Context, r *Runner, hv *Harvest, buckets []Bucket, agg *Aggregator) (*Harvest, []string, error)
}

// Schedule names.
const (
	// ScheduleInterleaved is the name of Interleaved.
	ScheduleInterleaved = "interleaved"
	// ScheduleSequential is the name of Sequential.
	ScheduleSequential = "sequential"
)

// DefaultOrderSeed seeds Interleaved's rounds unless told otherwise, so
// that runs reproduce.
const DefaultOrderSeed = 1

// DefaultSchedule is Interleaved with DefaultOrderSeed.
var DefaultSchedule Schedule = Interleaved{Seed: DefaultOrderSeed}

// ParseSchedule returns the schedule named s: "interleaved" (with
// DefaultOrderSeed) or "sequential".
func ParseSchedule(s string) (Schedule, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case ScheduleInterleaved:
		return Interleaved{Seed: DefaultOrderSeed}, nil
	case ScheduleSequential:
		return Sequential{}, nil
	}
	return nil, fmt.Errorf("want %s or %s, got %q", ScheduleInterleaved, ScheduleSequential, s)
}

// Interleaved runs one open-loop attack over every depth bucket at once:
// its requests visit the depths in rounds, each round every depth once in
// a shuffled order (InterleavedOrder), at the rate per depth times the
// number of depths. Every depth so sees the same warm-up, the same
// connections and the same noise of a busy machine over the same span of
// time, which a depth-cost comparison needs. The tokens of one harvest
// must outlast warm-up, duration and the request timeout; with --start-at
// every generator begins the one attack at that time.
type Interleaved struct {
	// Seed seeds the rounds' order (see InterleavedOrder).
	Seed uint64
}

// Name returns "interleaved".
func (Interleaved) Name() string { return ScheduleInterleaved }

// InterleavedOrder returns the order in which round round of an
// interleaved attack seeded with seed visits k depths: a permutation of
// 0..k-1 by a Fisher-Yates shuffle driven by PCG(seed, round). It depends
// on nothing else, so a merge recomputes it from the attack name.
func InterleavedOrder(seed, round uint64, k int) []int {
	p := make([]int, k)
	for i := range p {
		p[i] = i
	}
	src := rand.NewPCG(seed, round)
	for i := k - 1; i > 0; i-- {
		j := int(src.Uint64() % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// interleavedTargeter hands out targets in InterleavedOrder; it is safe for
// vegeta's concurrent workers.
func interleavedTargeter(targets []vegeta.Target, seed uint64) vegeta.Targeter {
	var next atomic.Uint64
	k := uint64(len(targets))
	return func(t *vegeta.Target) error {
		i := next.Add(1) - 1
		*t = targets[InterleavedOrder(seed, i/k, int(k))[i%k]]
		return nil
	}
}

func (s Interleaved) run(ctx context.Context, r *Runner, hv *Harvest, buckets []Bucket, agg *Aggregator) (*Harvest, []string, error) {
	var wait time.Duration
	if !r.startAt.IsZero() {
		wait = max(time.Until(r.startAt), 0)
	}
	hv, err := r.h.Fresh(ctx, wait+r.window())
	if err != nil {
		if errors.Is(err, ErrTTLTooShort) {
			return nil, nil, fmt.Errorf("the interleaved schedule attacks with the tokens of one walk, which must outlast the wait for --start-at (%s), --warmup, --duration and --timeout: %w",
				wait.Round(time.Second), err)
		}
		return nil, nil, err
	}
	targets := make([]vegeta.Target, len(buckets))
	depths := make([]int, len(buckets))
	labels := make([]string, len(buckets))
	for i, b := range buckets {
		tgt, ok := hv.Target(b.Depth)
		if !ok {
			return nil, nil, fmt.Errorf("after walking again, the list no longer reaches depth %d (it has %d pages)", b.Depth, hv.Deepest)
		}
		targets[i], depths[i], labels[i] = tgt, b.Depth, b.Label()
	}
	var warnings []string
	if !r.startAt.IsZero() {
		if err := sleepUntil(ctx, r.startAt); err != nil {
			return nil, nil, err
		}
		if late := time.Since(r.startAt); late > time.Second {
			warnings = append(warnings, fmt.Sprintf("the attack began %s after --start-at %s, so generators may not overlap",
				late.Round(time.Millisecond), r.startAt.Format(time.RFC3339)))
		}
	}
	rate := Rate{Freq: r.rate.Freq * len(buckets), Per: r.rate.Per}
	what := fmt.Sprintf("depths %s interleaved", strings.Join(labels, ", "))
	if r.warmup > 0 {
		r.progress.Logf("%s: warming up at %s per depth (%s in all) for %s (not measured)", what, r.rate, rate, r.warmup)
		if err := r.warm(ctx, interleavedTargeter(targets, s.Seed^0x5bd1e995), rate); err != nil {
			return nil, nil, err
		}
	}
	r.progress.Logf("%s: %s per depth (%s in all) for %s", what, r.rate, rate, r.duration)
	name := r.attackName(Bucket{Last: buckets[len(buckets)-1].Last})
	name.Depths, name.Order, name.Rate = depths, s.Seed, rate
	if err := r.attackNamed(ctx, name, interleavedTargeter(targets, s.Seed), agg); err != nil {
		return nil, nil, err
	}
	return hv, warnings, nil
}

// Sequential attacks the depth buckets one after another, each for the
// whole duration after its own warm-up, walking again when tokens would
// expire before a depth's attack ends. A server whose speed drifts during
// the run (cache warm-up, compaction, a neighbour's load) shows the drift
// as depth cost; Interleaved does not.
type Sequential struct{}

// Name returns "sequential".
func (Sequential) Name() string { return ScheduleSequential }

func (Sequential) run(ctx context.Context, r *Runner, hv *Harvest, buckets []Bucket, agg *Aggregator) (*Harvest, []string, error) {
	var warnings []string
	for i, b := range buckets {
		if !r.startAt.IsZero() {
			at := r.startAt.Add(time.Duration(i) * (r.warmup + r.duration + r.phaseGap))
			if err := sleepUntil(ctx, at); err != nil {
				return nil, nil, err
			}
			if late := time.Since(at); late > time.Second {
				warnings = append(warnings, fmt.Sprintf("depth %d began %s after its scheduled start %s: the previous depth's replies drained late, so generators may not overlap",
					b.Depth, late.Round(time.Millisecond), at.Format(time.RFC3339)))
			}
		}
		var err error
		hv, err = r.h.Fresh(ctx, r.window())
		if err != nil {
			return nil, nil, err
		}
		tgt, ok := hv.Target(b.Depth)
		if !ok {
			return nil, nil, fmt.Errorf("after walking again, the list no longer reaches depth %d (it has %d pages)", b.Depth, hv.Deepest)
		}
		if r.warmup > 0 {
			r.progress.Logf("depth %s: warming up at %s for %s (not measured)", b.Label(), r.rate, r.warmup)
			if err := r.Warmup(ctx, tgt); err != nil {
				return nil, nil, err
			}
		}
		r.progress.Logf("depth %s: %s for %s", b.Label(), r.rate, r.duration)
		if err := r.Attack(ctx, b, tgt, agg); err != nil {
			return nil, nil, err
		}
	}
	return hv, warnings, nil
}
