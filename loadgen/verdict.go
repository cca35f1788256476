package loadgen

import (
	"fmt"
	"time"
)

// Verdicts and threshold statuses.
const (
	// VerdictPass is the verdict when every threshold passed.
	VerdictPass = "pass"
	// VerdictFail is the verdict when a threshold failed or had no samples.
	VerdictFail = "fail"

	// StatusPass is a threshold that held.
	StatusPass = "pass"
	// StatusFail is a threshold that was breached.
	StatusFail = "fail"
	// StatusNoSamples is a threshold with nothing to judge; it fails.
	StatusNoSamples = "no-samples"
)

// Thresholds are the CI gates. A threshold that is enabled but has no
// samples to judge fails (the k6#4283 lesson): a gate that saw nothing
// must not pass.
type Thresholds struct {
	// MaxDepthRatio bounds p99(deepest)/p99(first) (corrected); 0 disables.
	MaxDepthRatio float64
	// MaxP99 bounds every depth's corrected p99; 0 disables.
	MaxP99 time.Duration
	// MaxErrorRate bounds every depth's errors/requests; negative disables.
	MaxErrorRate float64
}

// DefaultThresholds is a depth ratio of 2.0, an error rate of 1% and no
// p99 bound.
var DefaultThresholds = Thresholds{MaxDepthRatio: 2.0, MaxErrorRate: 0.01}

// SlopeOf fits corrected p50 and p99 against depth by least squares over
// the depths with samples. It returns nil with fewer than two such depths.
func SlopeOf(depths []DepthStats) *Slope {
	var xs, y50, y99 []float64
	s := &Slope{}
	for _, d := range depths {
		if d.Corrected.Samples == 0 {
			continue
		}
		xs = append(xs, float64(d.Depth))
		y50 = append(y50, d.Corrected.P50Ms*1000) // µs
		y99 = append(y99, d.Corrected.P99Ms*1000)
		s.Depths = append(s.Depths, d.Depth)
	}
	if len(xs) < 2 {
		return nil
	}
	b50, ok := leastSquares(xs, y50)
	if !ok {
		return nil
	}
	b99, _ := leastSquares(xs, y99)
	s.P50UsPer1000Pages, s.P99UsPer1000Pages = b50*1000, b99*1000
	return s
}

// leastSquares returns the slope of the least-squares line through (x, y).
func leastSquares(x, y []float64) (float64, bool) {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	if sxx == 0 {
		return 0, false
	}
	return sxy / sxx, true
}

// RatioOf returns p99(deepest)/p99(shallowest) over the depths given
// (corrected). It returns nil when there are fewer than two depths or
// either end has no samples: it never falls back to another depth.
func RatioOf(depths []DepthStats) *DepthRatio {
	if len(depths) < 2 {
		return nil
	}
	first, deep := depths[0], depths[len(depths)-1]
	for _, d := range depths {
		if d.Depth < first.Depth {
			first = d
		}
		if d.Depth > deep.Depth {
			deep = d
		}
	}
	if first.Depth == deep.Depth || first.Corrected.Samples == 0 || deep.Corrected.Samples == 0 || first.Corrected.P99Ms <= 0 {
		return nil
	}
	return &DepthRatio{Value: deep.Corrected.P99Ms / first.Corrected.P99Ms, FirstDepth: first.Depth, DeepDepth: deep.Depth,
		FirstP99Ms: first.Corrected.P99Ms, DeepP99Ms: deep.Corrected.P99Ms}
}

// Evaluate fills s.Slope, s.DepthRatio, s.Thresholds and s.Verdict from
// s.Depths. The verdict is fail when any threshold fails or has no
// samples, or when there are no results at all.
func (s *Summary) Evaluate(t Thresholds) {
	s.Slope = SlopeOf(s.Depths)
	s.DepthRatio = RatioOf(s.Depths)
	s.Thresholds = EvaluateThresholds(s.Depths, t)
	s.Verdict = VerdictPass
	if len(s.Depths) == 0 {
		s.Verdict = VerdictFail
		s.Warnings = append(s.Warnings, "no results at all: nothing was measured")
	}
	for _, r := range s.Thresholds {
		if r.Status != StatusPass {
			s.Verdict = VerdictFail
		}
	}
}

// EvaluateThresholds judges every enabled threshold against the depths.
func EvaluateThresholds(depths []DepthStats, t Thresholds) []ThresholdResult {
	var out []ThresholdResult
	if t.MaxDepthRatio > 0 {
		r := ThresholdResult{Name: "max-depth-ratio", Limit: t.MaxDepthRatio, Unit: "ratio"}
		ratio := RatioOf(depths)
		switch {
		case len(depths) < 2:
			r.Status = StatusNoSamples
			r.Detail = fmt.Sprintf("needs results at two depths or more, have %d", len(depths))
		case ratio == nil:
			r.Status = StatusNoSamples
			first, deep := depths[0], depths[len(depths)-1]
			r.Detail = fmt.Sprintf("p99 needs successful samples at depth %d (has %d) and depth %d (has %d)",
				first.Depth, first.Corrected.Samples, deep.Depth, deep.Corrected.Samples)
			r.Samples = min(first.Corrected.Samples, deep.Corrected.Samples)
		default:
			r.Observed = ratio.Value
			r.Samples = min(depths[0].Corrected.Samples, depths[len(depths)-1].Corrected.Samples)
			r.Status = pick(ratio.Value <= t.MaxDepthRatio)
			r.Detail = fmt.Sprintf("p99(depth %d) %s / p99(depth %d) %s = %.2f", ratio.DeepDepth, fmtMs(ratio.DeepP99Ms),
				ratio.FirstDepth, fmtMs(ratio.FirstP99Ms), ratio.Value)
		}
		out = append(out, r)
	}
	if t.MaxP99 > 0 {
		r := ThresholdResult{Name: "max-p99", Limit: ms(t.MaxP99), Unit: "ms", Status: StatusPass}
		worst := -1
		for i, d := range depths {
			if d.Corrected.Samples == 0 {
				r.Status = StatusNoSamples
				r.Detail = fmt.Sprintf("depth %d has no successful samples", d.Depth)
				break
			}
			if worst < 0 || d.Corrected.P99Ms > depths[worst].Corrected.P99Ms {
				worst = i
			}
			r.Samples += d.Corrected.Samples
		}
		switch {
		case len(depths) == 0:
			r.Status, r.Detail = StatusNoSamples, "no depths measured"
		case r.Status == StatusPass && worst >= 0:
			r.Observed = depths[worst].Corrected.P99Ms
			r.Status = pick(r.Observed <= r.Limit)
			r.Detail = fmt.Sprintf("worst p99 is %s at depth %d", fmtMs(r.Observed), depths[worst].Depth)
		}
		out = append(out, r)
	}
	if t.MaxErrorRate >= 0 {
		r := ThresholdResult{Name: "max-error-rate", Limit: t.MaxErrorRate, Unit: "fraction", Status: StatusPass}
		worst := -1
		rate := func(d DepthStats) float64 { return float64(d.Errors) / float64(d.Requests) }
		for i, d := range depths {
			if d.Requests == 0 {
				r.Status, r.Detail = StatusNoSamples, fmt.Sprintf("depth %d has no requests", d.Depth)
				break
			}
			if worst < 0 || rate(d) > rate(depths[worst]) {
				worst = i
			}
			r.Samples += d.Requests
		}
		switch {
		case len(depths) == 0:
			r.Status, r.Detail = StatusNoSamples, "no depths measured"
		case r.Status == StatusPass && worst >= 0:
			d := depths[worst]
			r.Observed = rate(d)
			r.Status = pick(r.Observed <= r.Limit)
			r.Detail = fmt.Sprintf("worst is depth %d: %d errors in %d requests", d.Depth, d.Errors, d.Requests)
		}
		out = append(out, r)
	}
	return out
}

func pick(ok bool) string {
	if ok {
		return StatusPass
	}
	return StatusFail
}

func fmtMs(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0fms", v)
	case v >= 10:
		return fmt.Sprintf("%.1fms", v)
	}
	return fmt.Sprintf("%.3fms", v)
}
