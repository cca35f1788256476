package loadgen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// latencies draws n synthetic latencies in ms: log-normal around median
// (spread sigma), with a fraction tail of them replaced by heavy-tailed
// stalls (Pareto, up to hundreds of ms), from a fixed seed.
func latencies(seed uint64, n int, median, sigma, tail float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float64, n)
	for i := range out {
		out[i] = median * math.Exp(sigma*rng.NormFloat64())
		if rng.Float64() < tail {
			out[i] += 5 * math.Pow(rng.Float64(), -1/1.2) // Pareto α=1.2 from 5 ms
		}
	}
	return out
}

func TestCompareDepthsFlatHeavyTailsPasses(t *testing.T) {
	// Same median, but the deep sample has ten times the stalls: its p99
	// is several times the base's, which a tail ratio would fail.
	base := latencies(1, 1000, 1.7, 0.2, 0.01)
	deep := latencies(2, 1000, 1.7, 0.2, 0.10)
	s := CompareDepths(base, deep, 2.0)
	if p99 := tailRatio(base, deep, 0.99); p99 < 2 {
		t.Fatalf("the synthetic samples should have a p99 ratio over 2 (the noise the old gate failed on), got %.2f", p99)
	}
	if s.Verdict != ShiftPass {
		t.Fatalf("verdict %q, want pass: %+v", s.Verdict, s)
	}
	// The stalls add to a tenth of the deep values, so its median moves a
	// little; the interval stays far below the limit.
	if s.Lo < 0.9 || s.Hi > 1.25 {
		t.Errorf("interval %.3f–%.3f should be near 1 and narrow", s.Lo, s.Hi)
	}
	if s.Base != 1000 || s.Deep != 1000 || s.Advice != "" {
		t.Errorf("samples %d/%d, advice %q", s.Base, s.Deep, s.Advice)
	}
}

func tailRatio(base, deep []float64, q float64) float64 {
	return quantile(cleanSorted(deep), q) / quantile(cleanSorted(base), q)
}

func TestCompareDepthsDoubledMedianFails(t *testing.T) {
	base := latencies(3, 500, 2, 0.3, 0.02)
	deep := latencies(4, 500, 4, 0.3, 0.02)
	s := CompareDepths(base, deep, 1.5)
	if s.Verdict != ShiftFail {
		t.Fatalf("verdict %q, want fail: %+v", s.Verdict, s)
	}
	if s.Lo <= 1.5 || s.Ratio < 1.7 || s.Ratio > 2.3 {
		t.Errorf("ratio %.2f [%.2f, %.2f]: want about 2 with the interval above 1.5", s.Ratio, s.Lo, s.Hi)
	}
	// Six times the median against the default limit of 2.
	if s := CompareDepths(base, latencies(5, 500, 12, 0.3, 0.02), 2.0); s.Verdict != ShiftFail {
		t.Errorf("6× median: verdict %q, want fail", s.Verdict)
	}
}

func TestCompareDepthsTooFewSamplesIsInconclusive(t *testing.T) {
	base := latencies(6, 40, 2, 0.2, 0)
	deep := latencies(7, 40, 20, 0.2, 0) // 10×: plain, but 40 samples are below the minimum
	s := CompareDepths(base, deep, 2.0, WithDurationAdvice(2*time.Second))
	if s.Verdict != ShiftInconclusive {
		t.Fatalf("verdict %q, want inconclusive", s.Verdict)
	}
	if s.Base != 40 || s.Deep != 40 || s.NeedSamples < DefaultShiftMinSamples {
		t.Errorf("samples %d/%d, need %d", s.Base, s.Deep, s.NeedSamples)
	}
	if !strings.Contains(s.Advice, "too few samples") || !strings.Contains(s.Advice, "--duration") {
		t.Errorf("advice %q should say too few samples and name --duration", s.Advice)
	}
	if s := CompareDepths(nil, deep, 2.0); s.Verdict != ShiftInconclusive || s.Base != 0 {
		t.Errorf("no base samples: %+v", s)
	}
}

func TestCompareDepthsStraddleAdvisesMoreSamples(t *testing.T) {
	base := latencies(8, 150, 2, 0.6, 0.02)
	deep := latencies(9, 150, 3.6, 0.6, 0.02) // 1.8×, limit 2: the interval straddles
	s := CompareDepths(base, deep, 2.0, WithDurationAdvice(3*time.Second))
	if s.Verdict != ShiftInconclusive {
		t.Fatalf("verdict %q, want inconclusive: ratio %.2f [%.2f, %.2f]", s.Verdict, s.Ratio, s.Lo, s.Hi)
	}
	if s.NeedSamples <= 150 || !strings.Contains(s.Advice, "raise --duration to about") || !strings.Contains(s.Advice, "straddles") {
		t.Errorf("need %d, advice %q", s.NeedSamples, s.Advice)
	}
	// The advice is right in kind: with the samples it asks for, the same
	// populations are judged.
	big := CompareDepths(latencies(10, s.NeedSamples*2, 2, 0.6, 0.02), latencies(11, s.NeedSamples*2, 3.6, 0.6, 0.02), 2.0)
	if big.Verdict != ShiftPass {
		t.Errorf("with %d samples per side: verdict %q, ratio %.2f [%.2f, %.2f]", s.NeedSamples*2, big.Verdict, big.Ratio, big.Lo, big.Hi)
	}
}

func TestCompareDepthsDeterministicAndPure(t *testing.T) {
	base := latencies(12, 300, 2, 0.4, 0.05)
	deep := latencies(13, 300, 2.2, 0.4, 0.05)
	b0, d0 := slices.Clone(base), slices.Clone(deep)
	a := CompareDepths(base, deep, 2.0)
	b := CompareDepths(base, deep, 2.0)
	if a != b {
		t.Errorf("two comparisons of the same samples differ:\n%+v\n%+v", a, b)
	}
	if !slices.Equal(base, b0) || !slices.Equal(deep, d0) {
		t.Error("CompareDepths modified its input")
	}
	if c := CompareDepths(base, deep, 2.0, WithShiftSeed(99)); c.Ratio != a.Ratio {
		t.Errorf("the point estimate depends on the seed: %v vs %v", c.Ratio, a.Ratio)
	}
	// Order does not matter; junk values are ignored.
	rev := slices.Clone(deep)
	slices.Reverse(rev)
	rev = append(rev, math.NaN(), -1, 0, math.Inf(1))
	if c := CompareDepths(base, rev, 2.0); c != a {
		t.Errorf("reordered input with junk values: %+v, want %+v", c, a)
	}
}

func TestCompareDepthsUnjudged(t *testing.T) {
	s := CompareDepths(latencies(14, 200, 2, 0.2, 0), latencies(15, 200, 8, 0.2, 0), 0)
	if s.Verdict != "" || s.Ratio < 3 {
		t.Errorf("max 0 reports without a verdict: %+v", s)
	}
	if s.P90Ratio < 3 || s.P90Lo > s.P90Ratio || s.P90Hi < s.P90Ratio {
		t.Errorf("p90 ratio %.2f [%.2f, %.2f]", s.P90Ratio, s.P90Lo, s.P90Hi)
	}
}

// TestBootstrapMedianCoverage checks the interval's construction: over
// many synthetic pairs with equal medians, the 95% interval of the ratio
// holds 1 about 95% of the time.
func TestBootstrapMedianCoverage(t *testing.T) {
	const trials = 200
	hold := 0
	for i := range trials {
		s := CompareDepths(latencies(uint64(100+2*i), 301, 2, 0.5, 0.03), latencies(uint64(101+2*i), 301, 2, 0.5, 0.03), 2.0,
			WithResamples(500))
		if s.Lo <= 1 && 1 <= s.Hi {
			hold++
		}
	}
	if hold < trials*88/100 || hold > trials*995/1000 {
		t.Errorf("the 95%% interval held the true ratio 1 in %d of %d trials", hold, trials)
	}
}

// TestCompareDepthsSpreadGuard: when the base's median is far above its
// 5th percentile (most of the latency is waiting, which dilutes a depth
// cost), a ratio under the limit is inconclusive, not a pass; a failure
// stands.
func TestCompareDepthsSpreadGuard(t *testing.T) {
	base := latencies(20, 2000, 2, 1.0, 0) // spread e^(1.645) ≈ 5
	deep := latencies(21, 2000, 2.4, 1.0, 0)
	s := CompareDepths(base, deep, 1.5)
	if s.Verdict != ShiftInconclusive || s.Spread < 3 || s.Hi > 1.5 || !strings.Contains(s.Advice, "waiting") {
		t.Fatalf("spread %.1f, ratio %.2f [%.2f, %.2f]: verdict %q, advice %q; want inconclusive", s.Spread, s.Ratio, s.Lo, s.Hi, s.Verdict, s.Advice)
	}
	if s := CompareDepths(base, deep, 1.5, WithMaxSpread(0)); s.Verdict != ShiftPass {
		t.Errorf("guard off: verdict %q", s.Verdict)
	}
	if s := CompareDepths(base, latencies(22, 2000, 8, 1.0, 0), 1.5); s.Verdict != ShiftFail {
		t.Errorf("4× with a wide spread: verdict %q, want fail", s.Verdict)
	}
}
