package loadgen

import (
	"cmp"
	"fmt"
	"strings"
	"time"
)

// Verdicts and threshold statuses.
const (
	// VerdictPass is the verdict when every threshold passed.
	VerdictPass = "pass"
	// VerdictFail is the verdict when a threshold failed or had no samples.
	VerdictFail = "fail"
	// VerdictInconclusive is the verdict when nothing failed but the data
	// could not show a pass: the depth cost's interval straddles its limit,
	// a depth has too few samples, or the walk never reached the list's
	// end. It never counts as a pass.
	VerdictInconclusive = "inconclusive"

	// StatusPass is a threshold that held.
	StatusPass = "pass"
	// StatusFail is a threshold that was breached.
	StatusFail = "fail"
	// StatusNoSamples is a threshold with nothing to judge; it fails.
	StatusNoSamples = "no-samples"
	// StatusInconclusive is a threshold whose data could not decide it
	// (max-depth-ratio only); it makes the verdict inconclusive.
	StatusInconclusive = "inconclusive"
)

// Thresholds are the CI gates. A threshold that is enabled but has no
// samples to judge fails (the k6#4283 lesson): a gate that saw nothing
// must not pass.
type Thresholds struct {
	// MaxDepthRatio bounds median(deepest)/median(first) (corrected), judged
	// by CompareDepths with its confidence interval; 0 disables.
	MaxDepthRatio float64
	// MinSamples is the fewest successful samples per depth the depth
	// ratio is judged on (0: DefaultShiftMinSamples); with fewer it is
	// inconclusive.
	MinSamples int
	// MaxP99 bounds every depth's corrected p99; 0 disables.
	MaxP99 time.Duration
	// MaxErrorRate bounds every depth's errors/requests; negative disables.
	MaxErrorRate float64
}

// DefaultThresholds is a median depth ratio of 1.5, an error rate of 1%
// and no p99 bound.
var DefaultThresholds = Thresholds{MaxDepthRatio: 1.5, MaxErrorRate: 0.01}

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
// (corrected), a figure reported beside the depth shift that decides
// nothing. It returns nil when there are fewer than two depths or either
// end has no samples: it never falls back to another depth.
func RatioOf(depths []DepthStats) *DepthRatio {
	if len(depths) < 2 {
		return nil
	}
	first, deep := ends(depths)
	if first.Depth == deep.Depth || first.Corrected.Samples == 0 || deep.Corrected.Samples == 0 || first.Corrected.P99Ms <= 0 {
		return nil
	}
	return &DepthRatio{Value: deep.Corrected.P99Ms / first.Corrected.P99Ms, FirstDepth: first.Depth, DeepDepth: deep.Depth,
		FirstP99Ms: first.Corrected.P99Ms, DeepP99Ms: deep.Corrected.P99Ms}
}

// SampleSource gives the corrected latencies, in milliseconds, of one
// depth's successful requests (an *Aggregator is one).
type SampleSource interface {
	Samples(depth int) []float64
}

// ends returns the shallowest and the deepest of depths (len ≥ 1).
func ends(depths []DepthStats) (first, deep DepthStats) {
	first, deep = depths[0], depths[len(depths)-1]
	for _, d := range depths {
		if d.Depth < first.Depth {
			first = d
		}
		if d.Depth > deep.Depth {
			deep = d
		}
	}
	return first, deep
}

// DepthShiftOf compares the corrected latency of the shallowest and the
// deepest depth with CompareDepths, judged against maxRatio (0: reported,
// not judged). It returns nil with fewer than two depths, when either end
// has no successful sample (it never falls back to another depth), or
// without a sample source.
func DepthShiftOf(depths []DepthStats, src SampleSource, maxRatio float64, opts ...ShiftOption) *DepthShift {
	if len(depths) < 2 || src == nil {
		return nil
	}
	first, deep := ends(depths)
	if first.Depth == deep.Depth || first.Corrected.Samples == 0 || deep.Corrected.Samples == 0 {
		return nil
	}
	return &DepthShift{BaseDepth: first.Depth, DeepDepth: deep.Depth, DeepIsLast: deep.Last,
		Shift: CompareDepths(src.Samples(first.Depth), src.Samples(deep.Depth), maxRatio, opts...)}
}

// Evaluate fills s.Slope, s.DepthRatio, s.DepthShift, s.Thresholds,
// s.Inconclusive and s.Verdict from s.Depths and the samples of src (nil:
// the depth ratio has nothing to judge). The verdict is fail when any
// threshold fails or has no samples, or when there are no results at all;
// else inconclusive when the depth ratio is, or when the walk stopped
// before the list's last page; else pass.
func (s *Summary) Evaluate(t Thresholds, src SampleSource) {
	s.Slope = SlopeOf(s.Depths)
	s.DepthRatio = RatioOf(s.Depths)
	opts := []ShiftOption{WithMinSamples(cmp.Or(t.MinSamples, DefaultShiftMinSamples))}
	if s.DurationSeconds > 0 {
		opts = append(opts, WithDurationAdvice(time.Duration(s.DurationSeconds*float64(time.Second))))
	}
	s.DepthShift = DepthShiftOf(s.Depths, src, t.MaxDepthRatio, opts...)
	s.Thresholds = EvaluateThresholds(s.Depths, s.DepthShift, t)
	queued(s.Depths, s.Thresholds)
	s.Inconclusive = nil
	s.Verdict = VerdictPass
	if len(s.Depths) == 0 {
		s.Verdict = VerdictFail
		s.Warnings = append(s.Warnings, "no results at all: nothing was measured")
	}
	for _, r := range s.Thresholds {
		if r.Status == StatusInconclusive {
			s.Inconclusive = append(s.Inconclusive, r.Name+": "+r.Advice)
		}
	}
	if h := s.Harvest; h != nil && !h.LastPageReached && h.StoppedBy != StoppedDeepestWanted {
		s.Inconclusive = append(s.Inconclusive, fmt.Sprintf("the walk stopped at page %d (%s) without reaching nextPageToken \"\": page %d is not the list's last page, so the depth cost at the list's end is unknown",
			h.Pages, h.StoppedBy, h.Pages))
	}
	if len(s.Inconclusive) > 0 && s.Verdict == VerdictPass {
		s.Verdict = VerdictInconclusive
	}
	for _, r := range s.Thresholds {
		if r.Status == StatusFail || r.Status == StatusNoSamples {
			s.Verdict = VerdictFail
		}
	}
}

// queued turns a passing max-depth-ratio into an inconclusive one when the
// first or the deepest depth's latency climbed through the attack (see
// Drift.Queued): the server fell behind the schedule, so the latency is
// mostly queueing, which every depth shares, and a flat ratio shows
// nothing. A failing ratio stands: the deep pages were slower even so.
func queued(depths []DepthStats, rs []ThresholdResult) {
	if len(depths) < 2 {
		return
	}
	first, deep := ends(depths)
	var at []string
	for _, d := range []DepthStats{first, deep} {
		if d.Drift.Queued() {
			at = append(at, fmt.Sprintf("depth %d's p50 rose from %s in the first third of the attack to %s in the last", d.Depth, fmtMs(d.Drift.EarlyP50Ms), fmtMs(d.Drift.LateP50Ms)))
		}
	}
	if len(at) == 0 {
		return
	}
	for i, r := range rs {
		if r.Name != "max-depth-ratio" || (r.Status != StatusPass && r.Status != StatusInconclusive) {
			continue
		}
		why := fmt.Sprintf("the server fell behind the schedule (%s), so the latency is mostly queueing, which hides a depth cost; lower --rate", strings.Join(at, "; "))
		if r.Advice != "" {
			why = r.Advice + "; and " + why
		}
		rs[i].Status, rs[i].Advice = StatusInconclusive, why
	}
}

// EvaluateThresholds judges every enabled threshold against the depths;
// shift is the depth comparison of DepthShiftOf (nil when it had nothing to
// compare).
func EvaluateThresholds(depths []DepthStats, shift *DepthShift, t Thresholds) []ThresholdResult {
	var out []ThresholdResult
	if t.MaxDepthRatio > 0 {
		r := ThresholdResult{Name: "max-depth-ratio", Limit: t.MaxDepthRatio, Unit: "ratio"}
		switch {
		case len(depths) < 2:
			r.Status = StatusNoSamples
			r.Detail = fmt.Sprintf("needs results at two depths or more, have %d", len(depths))
		case shift == nil:
			r.Status = StatusNoSamples
			first, deep := ends(depths)
			r.Detail = fmt.Sprintf("the median ratio needs successful samples at depth %d (has %d) and depth %d (has %d)",
				first.Depth, first.Corrected.Samples, deep.Depth, deep.Corrected.Samples)
			r.Samples = min(first.Corrected.Samples, deep.Corrected.Samples)
		default:
			sh := shift.Shift
			r.Observed = sh.Ratio
			r.Low, r.High = sh.Lo, sh.Hi
			r.Samples = int64(min(sh.Base, sh.Deep))
			r.Status = sh.Verdict
			r.Detail = fmt.Sprintf("median(depth %d) %s / median(depth %d) %s = %.2f, %.0f%% interval %.2f–%.2f; %d samples at depth %d, %d at depth %d",
				shift.DeepDepth, fmtMs(sh.DeepMedianMs), shift.BaseDepth, fmtMs(sh.BaseMedianMs), sh.Ratio, 100*sh.Confidence, sh.Lo, sh.Hi,
				sh.Base, shift.BaseDepth, sh.Deep, shift.DeepDepth)
			r.Advice = sh.Advice
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
