package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Shift verdicts. A shift that was not judged (no maximum ratio given) has
// an empty Verdict.
const (
	// ShiftPass: the whole confidence interval of the median ratio lies at
	// or below the maximum ratio.
	ShiftPass = "pass"
	// ShiftFail: the whole confidence interval lies above the maximum.
	ShiftFail = "fail"
	// ShiftInconclusive: the interval straddles the maximum, or a sample
	// is smaller than the minimum; Advice says what would settle it.
	ShiftInconclusive = "inconclusive"
)

// Defaults of CompareDepths.
const (
	// DefaultShiftConfidence is the two-sided confidence of the interval.
	DefaultShiftConfidence = 0.95
	// DefaultShiftMinSamples is the fewest samples per side that are judged.
	DefaultShiftMinSamples = 100
	// DefaultShiftResamples is the number of bootstrap replicates.
	DefaultShiftResamples = 2000
	// DefaultShiftMaxSpread is the largest base spread (median over 5th
	// percentile) a pass is trusted with.
	DefaultShiftMaxSpread = 3
	// DefaultShiftSeed seeds the bootstrap, so that a comparison of the same
	// samples always gives the same interval.
	DefaultShiftSeed = 1
)

// Shift compares two samples of latencies (milliseconds): a base (e.g.
// page depth 1) and a deep one (e.g. the last page). The gated figure is
// the ratio of their medians, median(deep)/median(base), with a percentile
// bootstrap confidence interval [Lo, Hi]; the p90 ratio and its interval
// are reported beside it and decide nothing. Medians, unlike p99s, rest on
// half the samples, so scheduling noise on a busy machine moves them
// little.
type Shift struct {
	// Ratio is median(deep)/median(base); Lo and Hi bound it with
	// Confidence (two-sided).
	Ratio float64 `json:"ratio"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// Confidence is the interval's two-sided confidence, e.g. 0.95.
	Confidence float64 `json:"confidence"`
	// P90Ratio, P90Lo and P90Hi are the same for the 90th percentile:
	// reported, not gated.
	P90Ratio float64 `json:"p90Ratio"`
	P90Lo    float64 `json:"p90Lo"`
	P90Hi    float64 `json:"p90Hi"`
	// BaseMedianMs, DeepMedianMs, BaseP90Ms and DeepP90Ms are the point
	// estimates the ratios divide.
	BaseMedianMs float64 `json:"baseMedianMs"`
	DeepMedianMs float64 `json:"deepMedianMs"`
	BaseP90Ms    float64 `json:"baseP90Ms"`
	DeepP90Ms    float64 `json:"deepP90Ms"`
	// BaseP5Ms is the base's 5th percentile: about what a request costs
	// when it does not wait. Spread is BaseMedianMs/BaseP5Ms.
	BaseP5Ms float64 `json:"baseP5Ms"`
	Spread   float64 `json:"spread"`
	// MaxSpread is the largest Spread a pass is trusted with (0: any).
	MaxSpread float64 `json:"maxSpread"`
	// Base and Deep are the samples compared (positive finite values only).
	Base int `json:"baseSamples"`
	Deep int `json:"deepSamples"`
	// MinSamples is the fewest samples per side that are judged.
	MinSamples int `json:"minSamples"`
	// Max is the largest acceptable median ratio (0: not judged).
	Max float64 `json:"maxRatio"`
	// Verdict is ShiftPass, ShiftFail, ShiftInconclusive, or "" when Max
	// is 0.
	Verdict string `json:"verdict,omitempty"`
	// NeedSamples is, for an inconclusive verdict, about how many samples
	// per side would make the interval clear Max if the ratio stayed where
	// it is (0 when more samples would not settle it).
	NeedSamples int `json:"needSamples,omitempty"`
	// Advice says, for an inconclusive verdict, what would settle it.
	Advice string `json:"advice,omitempty"`
	// Method names the statistic and its interval.
	Method string `json:"method"`
}

// ShiftOption configures CompareDepths.
type ShiftOption func(*shiftConfig)

type shiftConfig struct {
	confidence float64
	minSamples int
	resamples  int
	maxSpread  float64
	seed       uint64
	duration   time.Duration
}

// WithShiftConfidence sets the interval's two-sided confidence, in (0, 1)
// (default DefaultShiftConfidence).
func WithShiftConfidence(c float64) ShiftOption { return func(s *shiftConfig) { s.confidence = c } }

// WithMinSamples sets the fewest samples per side that are judged (default
// DefaultShiftMinSamples); with fewer, the verdict is inconclusive.
func WithMinSamples(n int) ShiftOption { return func(s *shiftConfig) { s.minSamples = n } }

// WithResamples sets the number of bootstrap replicates (default
// DefaultShiftResamples).
func WithResamples(n int) ShiftOption { return func(s *shiftConfig) { s.resamples = n } }

// WithMaxSpread sets the largest base spread, median/p5, that a pass is
// trusted with (default DefaultShiftMaxSpread; 0: any). See CompareDepths.
func WithMaxSpread(k float64) ShiftOption { return func(s *shiftConfig) { s.maxSpread = k } }

// WithShiftSeed seeds the bootstrap (default DefaultShiftSeed).
func WithShiftSeed(seed uint64) ShiftOption { return func(s *shiftConfig) { s.seed = seed } }

// WithDurationAdvice says the samples came from a measurement of length d
// (samples grow in proportion to it), so that the advice of an
// inconclusive verdict names a --duration instead of a sample count.
func WithDurationAdvice(d time.Duration) ShiftOption { return func(s *shiftConfig) { s.duration = d } }

// CompareDepths compares two samples of latencies in milliseconds, base
// and deep, and judges the ratio of their medians against maxRatio (0: report
// the ratio without a verdict). Values that are not positive finite
// numbers are ignored; the inputs are not modified.
//
// The interval is a percentile bootstrap of median(deep)/median(base),
// the two samples resampled independently. It is exact and cheap for any
// sample size: the k-th order statistic of a resample of n values is the
// ⌈n·U⌉-th order statistic of the sample, with U ~ Beta(k, n−k+1), so each
// replicate draws one Beta variate per sample instead of n values. The
// bootstrap's random numbers come from a fixed seed, so the same samples
// always give the same interval and verdict.
//
// Verdicts: pass when Hi ≤ maxRatio; fail when Lo > maxRatio; inconclusive
// when the interval straddles maxRatio or either sample has fewer than the
// minimum number of values, with Advice.
//
// A pass is trusted only while the base's median is at most MaxSpread
// times its 5th percentile. Waiting that every request shares (a busy
// machine, a queue) adds the same time W to both medians and dilutes the
// ratio: (W+deep)/(W+base). With the base's p5 as its cost without
// waiting, a spread s bounds W to about (s−1)·base, so a measured ratio of
// at most R bounds the true one to s·R − (s−1): 2.5 for s = 3 and R = 1.5.
// Beyond MaxSpread a pass says too little and is inconclusive; a fail
// stands (waiting only hides a depth cost).
func CompareDepths(base, deep []float64, maxRatio float64, opts ...ShiftOption) Shift {
	cfg := shiftConfig{confidence: DefaultShiftConfidence, minSamples: DefaultShiftMinSamples,
		resamples: DefaultShiftResamples, maxSpread: DefaultShiftMaxSpread, seed: DefaultShiftSeed}
	for _, o := range opts {
		o(&cfg)
	}
	if !(cfg.confidence > 0 && cfg.confidence < 1) {
		cfg.confidence = DefaultShiftConfidence
	}
	cfg.minSamples = max(cfg.minSamples, 1)
	cfg.resamples = max(cfg.resamples, 100)
	b, d := cleanSorted(base), cleanSorted(deep)
	s := Shift{Base: len(b), Deep: len(d), Max: maxRatio, Confidence: cfg.confidence, MinSamples: cfg.minSamples, MaxSpread: cfg.maxSpread,
		Method: fmt.Sprintf("median ratio, %.0f%% percentile bootstrap (%d replicates, seed %d)", 100*cfg.confidence, cfg.resamples, cfg.seed)}
	if len(b) > 0 && len(d) > 0 {
		rng := rand.New(rand.NewPCG(cfg.seed, 0x9e3779b97f4a7c15))
		s.BaseMedianMs, s.DeepMedianMs = quantile(b, 0.5), quantile(d, 0.5)
		s.BaseP90Ms, s.DeepP90Ms = quantile(b, 0.9), quantile(d, 0.9)
		s.BaseP5Ms = quantile(b, 0.05)
		s.Spread = s.BaseMedianMs / s.BaseP5Ms
		s.Ratio, s.Lo, s.Hi = bootRatio(b, d, 0.5, cfg, rng)
		s.P90Ratio, s.P90Lo, s.P90Hi = bootRatio(b, d, 0.9, cfg, rng)
	}
	if maxRatio <= 0 {
		return s
	}
	switch {
	case len(b) < cfg.minSamples || len(d) < cfg.minSamples:
		s.Verdict = ShiftInconclusive
		s.NeedSamples = cfg.minSamples
		if len(b) > 0 && len(d) > 0 {
			s.NeedSamples = max(cfg.minSamples, needSamples(s, maxRatio, min(len(b), len(d))))
		}
		s.Advice = fmt.Sprintf("too few samples to judge: %d and %d, fewer than the %d needed per side; %s",
			len(b), len(d), cfg.minSamples, cfg.more(s.NeedSamples, min(len(b), len(d))))
	case s.Hi <= maxRatio && cfg.maxSpread > 0 && s.Spread > cfg.maxSpread:
		s.Verdict = ShiftInconclusive
		s.Advice = fmt.Sprintf("the base's median %s is %.1f× its 5th percentile %s (more than %.0f×): most of the latency is waiting (a busy machine or a queue), which every depth shares and which dilutes a depth cost, so the %.2f–%.2f interval cannot show a pass; run where the machine is quieter, or lower --rate",
			fmtMs(s.BaseMedianMs), s.Spread, fmtMs(s.BaseP5Ms), cfg.maxSpread, s.Lo, s.Hi)
	case s.Hi <= maxRatio:
		s.Verdict = ShiftPass
	case s.Lo > maxRatio:
		s.Verdict = ShiftFail
	default:
		s.Verdict = ShiftInconclusive
		n := min(len(b), len(d))
		s.NeedSamples = needSamples(s, maxRatio, n)
		if s.NeedSamples == 0 {
			s.Advice = fmt.Sprintf("the median ratio %.2f is within 1%% of the limit %.2f: only a far longer run could settle it", s.Ratio, maxRatio)
		} else {
			s.Advice = fmt.Sprintf("the %.0f%% interval %.2f–%.2f straddles the limit %.2f; %s", 100*cfg.confidence, s.Lo, s.Hi, maxRatio, cfg.more(s.NeedSamples, n))
		}
	}
	return s
}

// more advises collecting about need samples per side, from have.
func (c shiftConfig) more(need, have int) string {
	if c.duration > 0 && have > 0 {
		d := time.Duration(math.Ceil(float64(c.duration)*float64(need)/float64(have)/float64(time.Second))) * time.Second
		d = max(d, c.duration+time.Second)
		return fmt.Sprintf("raise --duration to about %s (about %d samples per depth; this run had %d)", d, need, have)
	}
	return fmt.Sprintf("collect about %d samples per side (this comparison had %d)", need, have)
}

// needSamples estimates the samples per side at which the interval, which
// narrows as 1/√n, would clear max if the ratio stayed where it is; 0 when
// the ratio is (practically) at maxRatio. It adds a quarter for margin.
func needSamples(s Shift, maxRatio float64, n int) int {
	if s.Lo <= 0 || s.Hi <= 0 || s.Ratio <= 0 || n == 0 {
		return 0
	}
	half := (math.Log(s.Hi) - math.Log(s.Lo)) / 2
	dist := math.Abs(math.Log(s.Ratio) - math.Log(maxRatio))
	if dist < 0.01 { // within 1% of the limit
		return 0
	}
	if half <= 0 { // a degenerate interval (constant samples): more will not narrow it
		return 0
	}
	need := float64(n) * (half / dist) * (half / dist) * 1.25
	if need > 1e9 {
		return 0
	}
	return max(int(math.Ceil(need)), n+1)
}

// bootRatio returns the point estimate and the percentile-bootstrap
// interval of quantile q of d over quantile q of b (both sorted).
func bootRatio(b, d []float64, q float64, cfg shiftConfig, rng *rand.Rand) (ratio, lo, hi float64) {
	ratio = quantile(d, q) / quantile(b, q)
	rs := make([]float64, cfg.resamples)
	for i := range rs {
		rs[i] = resampledQuantile(d, q, rng) / resampledQuantile(b, q, rng)
	}
	slices.Sort(rs)
	alpha := (1 - cfg.confidence) / 2
	return ratio, quantile(rs, alpha), quantile(rs, 1-alpha)
}

// quantile returns the q-quantile of sorted x: its ⌈q·n⌉-th smallest value
// (the inverted empirical CDF; the lower median for q = 0.5).
func quantile(x []float64, q float64) float64 {
	return x[rankOf(len(x), q)-1]
}

// rankOf is the 1-based rank ⌈q·n⌉ clamped to [1, n].
func rankOf(n int, q float64) int {
	return min(max(int(math.Ceil(q*float64(n)-1e-9)), 1), n)
}

// resampledQuantile draws the q-quantile of one bootstrap resample of the
// sorted sample x without building it: the k-th smallest of n uniform
// draws is Beta(k, n−k+1), and the resample's k-th smallest value is
// x[⌈n·U⌉−1] for that U.
func resampledQuantile(x []float64, q float64, rng *rand.Rand) float64 {
	n := len(x)
	k := rankOf(n, q)
	u := betaVariate(float64(k), float64(n-k+1), rng)
	i := int(math.Ceil(u*float64(n))) - 1
	return x[min(max(i, 0), n-1)]
}

// betaVariate draws from Beta(a, b), a, b ≥ 1, as X/(X+Y) of two gamma
// variates.
func betaVariate(a, b float64, rng *rand.Rand) float64 {
	x, y := gammaVariate(a, rng), gammaVariate(b, rng)
	return x / (x + y)
}

// gammaVariate draws from Gamma(a, 1), a ≥ 1, by Marsaglia and Tsang's
// method (ACM TOMS 26(3), 2000).
func gammaVariate(a float64, rng *rand.Rand) float64 {
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// cleanSorted returns the positive finite values of x, sorted, in a new
// slice.
func cleanSorted(x []float64) []float64 {
	out := make([]float64, 0, len(x))
	for _, v := range x {
		if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}
