package loadgen

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// HDR histogram range: 1 µs to 1 h in nanoseconds, 3 significant digits.
const (
	hdrLowest  = int64(time.Microsecond)
	hdrHighest = int64(time.Hour)
	hdrDigits  = 3
)

// LateAfter returns how far behind its intended send time a request may
// start before it counts as late: one interval, but at least 1 ms, so
// scheduler jitter at high rates is not reported as lateness.
func LateAfter(interval time.Duration) time.Duration { return max(interval, time.Millisecond) }

// Aggregator folds vegeta results into per-depth figures. Each result must
// carry a pagewalk attack name (AttackName) and a "#depth=N" URL tag that
// agree. Latency is measured from the intended send time recomputed from
// the attack name, so coordinated omission is corrected; vegeta's own
// Metrics are kept beside it. The same code serves a live run and a merge.
//
// An Aggregator is not safe for concurrent use.
type Aggregator struct {
	depths      map[int]*depthAgg
	attacks     map[string]*attackState
	endpoints   map[string]bool
	logInterval time.Duration
}

type attackState struct {
	name AttackName
	seen []uint64 // bitset of seqs
}

type depthAgg struct {
	depth     int
	last      bool
	corrected *hdr.Histogram
	// uncorrected holds, for the same successful requests and with the
	// same estimator, the latency from the actual send.
	uncorrected *hdr.Histogram
	early       *hdr.Histogram // corrected, requests in the first third of their attack's schedule
	lateH       *hdr.Histogram // corrected, the last third
	lag         *hdr.Histogram
	intervals   map[int64]*hdr.Histogram
	metrics     vegeta.Metrics
	attacks     map[string]bool
	gens        map[string]bool
	requests    int64
	successes   int64
	late        int64
	errorKinds  map[string]int64
	firstStart  time.Time
	lastEnd     time.Time
}

// NewAggregator returns an empty Aggregator. logInterval > 0 also keeps
// interval histograms of that length for WriteHDRLog.
func NewAggregator(logInterval time.Duration) *Aggregator {
	return &Aggregator{depths: map[int]*depthAgg{}, attacks: map[string]*attackState{}, endpoints: map[string]bool{}, logInterval: logInterval}
}

// Add folds one result in. It fails on a result that is not from a
// pagewalk attack, whose depth tag disagrees with its attack name, or that
// was already added (the same attack and seq twice).
func (a *Aggregator) Add(res *vegeta.Result) error {
	st, ok := a.attacks[res.Attack]
	if !ok {
		n, err := ParseAttackName(res.Attack)
		if err != nil {
			return err
		}
		if n.Rate.Interval() <= 0 {
			return fmt.Errorf("attack %q: zero rate", res.Attack)
		}
		st = &attackState{name: n}
		a.attacks[res.Attack] = st
	}
	n := st.name
	d, ok := DepthOf(res.URL)
	if !ok {
		return fmt.Errorf("attack %q seq %d: URL %q has no #%s=N tag", res.Attack, res.Seq, res.URL, DepthFragment)
	}
	if !n.Covers(d) {
		if n.Interleaved() {
			return fmt.Errorf("attack %q seq %d: URL is tagged depth %d but the attack is for depths %v", res.Attack, res.Seq, d, n.Depths)
		}
		return fmt.Errorf("attack %q seq %d: URL is tagged depth %d but the attack is for depth %d", res.Attack, res.Seq, d, n.Depth)
	}
	if res.Seq > 1<<32 {
		return fmt.Errorf("attack %q: seq %d out of range", res.Attack, res.Seq)
	}
	w, bit := res.Seq/64, uint64(1)<<(res.Seq%64)
	if int(w) >= len(st.seen) {
		st.seen = append(st.seen, make([]uint64, int(w)+1-len(st.seen))...)
	}
	if st.seen[w]&bit != 0 {
		return fmt.Errorf("attack %q seq %d appears twice (the same results added twice?)", res.Attack, res.Seq)
	}
	st.seen[w] |= bit
	a.endpoints[Endpoint(res.URL)] = true

	da := a.depths[d]
	if da == nil {
		da = &depthAgg{depth: d, corrected: hdr.New(hdrLowest, hdrHighest, hdrDigits), uncorrected: hdr.New(hdrLowest, hdrHighest, hdrDigits), lag: hdr.New(hdrLowest, hdrHighest, hdrDigits),
			early: hdr.New(hdrLowest, hdrHighest, hdrDigits), lateH: hdr.New(hdrLowest, hdrHighest, hdrDigits),
			attacks: map[string]bool{}, gens: map[string]bool{}, errorKinds: map[string]int64{}}
		if a.logInterval > 0 {
			da.intervals = map[int64]*hdr.Histogram{}
		}
		a.depths[d] = da
	}
	da.last = da.last || n.LastAt(d)
	da.attacks[res.Attack] = true
	da.gens[n.Generator] = true
	if da.firstStart.IsZero() || n.Start.Before(da.firstStart) {
		da.firstStart = n.Start
	}
	end := res.End()
	if end.After(da.lastEnd) {
		da.lastEnd = end
	}
	da.requests++
	da.metrics.Add(res)
	intended := n.Intended(res.Seq)
	lag := res.Timestamp.Sub(intended)
	if lag > LateAfter(n.Rate.Interval()) {
		da.late++
	}
	_ = da.lag.RecordValue(min(max(int64(lag), 0), hdrHighest))
	if k := ErrorKind(res); k != "" {
		da.errorKinds[k]++
		return nil
	}
	da.successes++
	v := min(max(int64(end.Sub(intended)), 0), hdrHighest)
	_ = da.corrected.RecordValue(v)
	// A request the timer fired slightly early for has an actual send
	// before its intended one; its uncorrected latency is capped at the
	// corrected one, so that every uncorrected percentile stays at or
	// below the corrected one (both come from the same estimator).
	_ = da.uncorrected.RecordValue(min(max(int64(res.Latency), 0), v))
	if n.Duration > 0 {
		switch at := intended.Sub(n.Start); {
		case at <= n.Duration/3:
			_ = da.early.RecordValue(v)
		case at > n.Duration-n.Duration/3:
			_ = da.lateH.RecordValue(v)
		}
	}
	if da.intervals != nil {
		k := intended.UnixNano() / int64(a.logInterval)
		h := da.intervals[k]
		if h == nil {
			h = hdr.New(hdrLowest, hdrHighest, hdrDigits)
			h.SetTag(fmt.Sprintf("depth=%d", d))
			ms := k * int64(a.logInterval) / int64(time.Millisecond)
			h.SetStartTimeMs(ms)
			h.SetEndTimeMs(ms + a.logInterval.Milliseconds())
			da.intervals[k] = h
		}
		_ = h.RecordValue(v)
	}
	return nil
}

// Depths returns the figures of every depth seen, shallowest first.
func (a *Aggregator) Depths() []DepthStats {
	keys := slices.Sorted(maps.Keys(a.depths))
	out := make([]DepthStats, 0, len(keys))
	for _, d := range keys {
		out = append(out, a.depths[d].stats(a.attacks))
	}
	return out
}

// Samples returns the corrected latencies, in milliseconds, of depth's
// successful requests, read back from its HDR histogram (each value at its
// bucket's midpoint, within the histogram's 3 significant digits), in
// ascending order; nil for a depth not seen. It serves CompareDepths.
func (a *Aggregator) Samples(depth int) []float64 {
	da := a.depths[depth]
	if da == nil {
		return nil
	}
	out := make([]float64, 0, da.corrected.TotalCount())
	for _, bar := range da.corrected.Distribution() {
		if bar.Count == 0 {
			continue
		}
		v := nsToMs(bar.From + (bar.To-bar.From)/2)
		for range bar.Count {
			out = append(out, v)
		}
	}
	return out
}

// Attacks returns the parsed names of every attack seen, sorted by name.
func (a *Aggregator) Attacks() []AttackName {
	keys := slices.Sorted(maps.Keys(a.attacks))
	out := make([]AttackName, 0, len(keys))
	for _, k := range keys {
		out = append(out, a.attacks[k].name)
	}
	return out
}

// WriteHDRLog writes depth's interval histograms of corrected latency
// (nanoseconds) as an HdrHistogram log (hdrhistogram-go's log writer), then
// frees them. It writes a header only when there is no interval data.
func (a *Aggregator) WriteHDRLog(w io.Writer, depth int) error {
	lw := hdr.NewHistogramLogWriter(w)
	da := a.depths[depth]
	var keys []int64
	if da != nil {
		keys = slices.Sorted(maps.Keys(da.intervals))
	}
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "#[pagewalk: corrected latency (from the intended send time) of successful ListTasks requests at page depth %d, in nanoseconds]\n", depth); err != nil {
		return err
	}
	if len(keys) > 0 {
		base := da.intervals[keys[0]].StartTimeMs()
		lw.SetBaseTime(base)
		if err := lw.OutputStartTime(base); err != nil {
			return err
		}
		if err := lw.OutputBaseTime(base); err != nil {
			return err
		}
	}
	if err := lw.OutputLegend(); err != nil {
		return err
	}
	for _, k := range keys {
		if err := lw.OutputIntervalHistogram(da.intervals[k]); err != nil {
			return err
		}
	}
	if da != nil {
		da.intervals = nil
	}
	return nil
}

func (da *depthAgg) stats(attacks map[string]*attackState) DepthStats {
	s := DepthStats{
		Depth: da.depth, Last: da.last, Label: Bucket{Depth: da.depth, Last: da.last}.Label(),
		Requests: da.requests, Successes: da.successes, Late: da.late,
		ErrorKinds: map[string]int64{},
	}
	s.Attacks = slices.Sorted(maps.Keys(da.attacks))
	s.Generators = slices.Sorted(maps.Keys(da.gens))
	var maxDur time.Duration
	for _, name := range s.Attacks {
		n := attacks[name].name
		s.Expected += int64(n.ExpectedAt(da.depth))
		s.RatePerSecond += n.RateAt(da.depth)
		maxDur = max(maxDur, n.Duration)
	}
	s.DurationSeconds = maxDur.Seconds()
	s.Dropped = max(s.Expected-s.Requests, 0)
	for k, v := range da.errorKinds {
		s.ErrorKinds[k] = v
		s.Errors += v
	}
	if span := da.lastEnd.Sub(da.firstStart); span > 0 {
		s.ThroughputPerSecond = float64(da.successes) / span.Seconds()
	}
	s.Corrected = latencyOf(da.corrected)
	s.Uncorrected = latencyOf(da.uncorrected)
	if da.early.TotalCount() > 0 && da.lateH.TotalCount() > 0 {
		s.Drift = &Drift{EarlyP50Ms: nsToMs(da.early.ValueAtQuantile(50)), LateP50Ms: nsToMs(da.lateH.ValueAtQuantile(50)),
			Early: da.early.TotalCount(), Late: da.lateH.TotalCount()}
	}
	s.SendLag = latencyOf(da.lag)
	m := da.metrics
	m.Close()
	s.Vegeta = VegetaStats{
		Note:     "uncorrected: vegeta Metrics over all results, timed from the actual send, percentiles from a t-digest",
		Requests: int64(m.Requests), RatePerSecond: m.Rate, ThroughputPerSecond: m.Throughput, Success: m.Success,
		P50Ms: ms(m.Latencies.P50), P90Ms: ms(m.Latencies.P90), P95Ms: ms(m.Latencies.P95), P99Ms: ms(m.Latencies.P99),
		MaxMs: ms(m.Latencies.Max), MeanMs: ms(m.Latencies.Mean), BytesIn: int64(m.BytesIn.Total), BytesOut: int64(m.BytesOut.Total),
		StatusCodes: m.StatusCodes,
	}
	return s
}

func latencyOf(h *hdr.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	q := h.ValueAtPercentiles([]float64{50, 90, 99, 99.9})
	return Latency{
		Samples: h.TotalCount(),
		P50Ms:   nsToMs(q[50]), P90Ms: nsToMs(q[90]), P99Ms: nsToMs(q[99]), P999Ms: nsToMs(q[99.9]),
		MaxMs: nsToMs(h.Max()), MinMs: nsToMs(h.Min()), MeanMs: h.Mean() / 1e6,
	}
}

func nsToMs(ns int64) float64 { return float64(ns) / 1e6 }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
