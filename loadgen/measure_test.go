package loadgen

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

var t0 = time.Unix(1767225600, 0)

// synth builds the results of one attack: rate 10/s (100 ms interval),
// duration 1 s, so 10 sends are expected. Each request is sent lag after
// its intended time and takes lat.
type synth struct {
	name AttackName
	res  []*vegeta.Result
}

func newSynth(gen string, depth int, start time.Time) *synth {
	return &synth{name: AttackName{Generator: gen, Depth: depth, Rate: Rate{10, time.Second}, Duration: time.Second,
		Start: start, Binding: "jsonrpc", PageSize: 100}}
}

func (s *synth) add(seq uint64, lag, lat time.Duration, code uint16, errText string) *synth {
	s.res = append(s.res, &vegeta.Result{Attack: s.name.String(), Seq: seq, Code: code, Error: errText,
		Timestamp: s.name.Intended(seq).Add(lag), Latency: lat, Method: "POST",
		URL: TagURL("http://127.0.0.1:9/jsonrpc", s.name.Depth)})
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) <= 0.002*math.Max(math.Abs(a), math.Abs(b))+1e-9 }

func TestAggregatorCorrectsCoordinatedOmission(t *testing.T) {
	s := newSynth("a", 1, t0)
	for seq := uint64(0); seq < 8; seq++ { // 8 of 10 sent: 2 dropped
		lag := 100 * time.Microsecond
		if seq == 5 {
			lag = 450 * time.Millisecond // the generator stalled: sent 450 ms late
		}
		s.add(seq, lag, 10*time.Millisecond, 200, "")
	}
	agg := NewAggregator(0)
	for _, r := range s.res {
		if err := agg.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	d := agg.Depths()
	if len(d) != 1 {
		t.Fatalf("%d depths", len(d))
	}
	st := d[0]
	if st.Requests != 8 || st.Expected != 10 || st.Dropped != 2 || st.Late != 1 || st.Successes != 8 || st.Errors != 0 {
		t.Fatalf("counts %+v", st)
	}
	// Corrected: seq 5 took 450 ms + 10 ms from its intended time.
	if !near(st.Corrected.MaxMs, 460) || !near(st.Corrected.P50Ms, 10.1) {
		t.Errorf("corrected max %.3f p50 %.3f, want 460 and 10.1", st.Corrected.MaxMs, st.Corrected.P50Ms)
	}
	// vegeta's own figures stay uncorrected: the stall is invisible there.
	if st.Vegeta.Requests != 8 || !near(st.Vegeta.MaxMs, 10) {
		t.Errorf("vegeta max %.3f (requests %d), want 10", st.Vegeta.MaxMs, st.Vegeta.Requests)
	}
	if !near(st.SendLag.MaxMs, 450) {
		t.Errorf("send lag max %.3f", st.SendLag.MaxMs)
	}
	if st.RatePerSecond != 10 || st.DurationSeconds != 1 {
		t.Errorf("rate %v duration %v", st.RatePerSecond, st.DurationSeconds)
	}
}

func TestAggregatorBucketsByDepthAndCountsErrorKinds(t *testing.T) {
	agg := NewAggregator(time.Second)
	a1 := newSynth("a", 1, t0).add(0, 0, time.Millisecond, 200, "").add(1, 0, 2*time.Millisecond, 200, "")
	a10 := newSynth("a", 10, t0.Add(2*time.Second)).
		add(0, 0, time.Millisecond, 200, "").
		add(1, 0, time.Millisecond, 200, JSONRPCErrorPrefix+"-32602: pageToken expired").
		add(2, 0, time.Millisecond, 500, "500 Internal Server Error").
		add(3, 0, 30*time.Second, 0, "Post \"x\": context deadline exceeded (Client.Timeout exceeded)")
	for _, r := range append(a1.res, a10.res...) {
		if err := agg.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	d := agg.Depths()
	if len(d) != 2 || d[0].Depth != 1 || d[1].Depth != 10 {
		t.Fatalf("depths %+v", d)
	}
	if d[0].Requests != 2 || d[0].Errors != 0 || d[0].Corrected.Samples != 2 {
		t.Errorf("depth 1: %+v", d[0])
	}
	want := map[string]int64{"jsonrpc -32602": 1, "http 500": 1, "transport: timeout": 1}
	if d[1].Requests != 4 || d[1].Errors != 3 || d[1].Successes != 1 || d[1].Corrected.Samples != 1 || len(d[1].ErrorKinds) != 3 {
		t.Fatalf("depth 10: %+v", d[1])
	}
	for k, v := range want {
		if d[1].ErrorKinds[k] != v {
			t.Errorf("error kind %q = %d, want %d (%v)", k, d[1].ErrorKinds[k], v, d[1].ErrorKinds)
		}
	}
	// The HDR log of depth 10 reads back with the successful sample.
	var buf bytes.Buffer
	if err := agg.WriteHDRLog(&buf, 10); err != nil {
		t.Fatal(err)
	}
	r := hdr.NewHistogramLogReader(&buf)
	var total int64
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		if h.Tag() != "depth=10" {
			t.Errorf("tag %q", h.Tag())
		}
		total += h.TotalCount()
	}
	if total != 1 {
		t.Errorf("HDR log holds %d samples, want 1", total)
	}
}

func TestAggregatorRejectsBadResults(t *testing.T) {
	good := newSynth("a", 3, t0).add(0, 0, time.Millisecond, 200, "").res[0]
	cases := map[string]func(r *vegeta.Result){
		"not a pagewalk attack": func(r *vegeta.Result) { r.Attack = "hostA" },
		"no depth tag":          func(r *vegeta.Result) { r.URL = "http://127.0.0.1:9/jsonrpc" },
		"tag disagrees":         func(r *vegeta.Result) { r.URL = TagURL(r.URL, 4) },
	}
	for name, mutate := range cases {
		r := *good
		mutate(&r)
		if err := NewAggregator(0).Add(&r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	agg := NewAggregator(0)
	if err := agg.Add(good); err != nil {
		t.Fatal(err)
	}
	if err := agg.Add(good); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate accepted: %v", err)
	}
}

func depthsWith(p99s map[int]float64, samples map[int]int64) []DepthStats {
	var out []DepthStats
	for _, d := range []int{1, 10, 100, 1000, 10000} {
		p, ok := p99s[d]
		if !ok {
			continue
		}
		n := int64(100)
		if s, ok := samples[d]; ok {
			n = s
		}
		out = append(out, DepthStats{Depth: d, Requests: 100, Successes: n, Errors: 100 - n,
			Corrected: Latency{Samples: n, P50Ms: p / 2, P99Ms: p}})
	}
	return out
}

func statusOf(rs []ThresholdResult, name string) string {
	for _, r := range rs {
		if r.Name == name {
			return r.Status
		}
	}
	return "absent"
}

// synthSamples is a SampleSource for depthsWith: each depth's successful
// samples, log-normal around its p50 (spread 10%), from a fixed seed.
func synthSamples(depths []DepthStats) SampleSource {
	m := fixedSamples{}
	for _, d := range depths {
		m[d.Depth] = latencies(uint64(d.Depth), int(d.Corrected.Samples), d.Corrected.P50Ms, 0.1, 0)
	}
	return m
}

type fixedSamples map[int][]float64

func (f fixedSamples) Samples(depth int) []float64 { return f[depth] }

// thresholdsOf evaluates t over depths and their synthetic samples.
func thresholdsOf(depths []DepthStats, t Thresholds) []ThresholdResult {
	return EvaluateThresholds(depths, DepthShiftOf(depths, synthSamples(depths), t.MaxDepthRatio), t)
}

func TestThresholds(t *testing.T) {
	flat := depthsWith(map[int]float64{1: 2, 10: 2.1, 100: 2, 10000: 2.4}, nil)
	steep := depthsWith(map[int]float64{1: 2, 10: 2.2, 100: 4, 10000: 30}, nil)
	all := Thresholds{MaxDepthRatio: 1.5, MaxP99: 10 * time.Millisecond, MaxErrorRate: 0.01}

	rs := thresholdsOf(flat, all)
	for _, n := range []string{"max-depth-ratio", "max-p99", "max-error-rate"} {
		if statusOf(rs, n) != StatusPass {
			t.Errorf("flat: %s = %s (%+v)", n, statusOf(rs, n), rs)
		}
	}
	rs = thresholdsOf(steep, all)
	if statusOf(rs, "max-depth-ratio") != StatusFail || statusOf(rs, "max-p99") != StatusFail || statusOf(rs, "max-error-rate") != StatusPass {
		t.Errorf("steep: %+v", rs)
	}
	for _, r := range rs {
		if r.Name == "max-depth-ratio" && (math.Abs(r.Observed-15) > 1.5 || r.Low > r.Observed || r.High < r.Observed || r.Samples != 100) {
			t.Errorf("median ratio observed %v [%v, %v] on %d samples, want about 15 on 100", r.Observed, r.Low, r.High, r.Samples)
		}
		if r.Name == "max-p99" && r.Observed != 30 {
			t.Errorf("p99 observed %v, want 30", r.Observed)
		}
	}
	// Disabled thresholds are not evaluated.
	if rs := thresholdsOf(flat, Thresholds{MaxErrorRate: -1}); len(rs) != 0 {
		t.Errorf("disabled: %+v", rs)
	}
	errs := depthsWith(map[int]float64{1: 2, 10000: 2}, map[int]int64{10000: 90})
	if statusOf(thresholdsOf(errs, all), "max-error-rate") != StatusFail {
		t.Error("10% errors passed a 1% limit")
	}
}

func TestThresholdsWithoutSamplesFail(t *testing.T) {
	all := Thresholds{MaxDepthRatio: 2, MaxP99: time.Second, MaxErrorRate: 0.5}
	// The deepest depth got no successful sample (every request failed):
	// the ratio must not fall back to another depth, and must not pass.
	deepEmpty := depthsWith(map[int]float64{1: 2, 10: 2, 10000: 0}, map[int]int64{10000: 0})
	rs := thresholdsOf(deepEmpty, all)
	if statusOf(rs, "max-depth-ratio") != StatusNoSamples || statusOf(rs, "max-p99") != StatusNoSamples {
		t.Errorf("deep depth without samples: %+v", rs)
	}
	// One depth only: no ratio to judge.
	if s := statusOf(thresholdsOf(depthsWith(map[int]float64{1: 2}, nil), all), "max-depth-ratio"); s != StatusNoSamples {
		t.Errorf("one depth: ratio %s", s)
	}
	// No requests at all at a depth.
	none := []DepthStats{{Depth: 1}, {Depth: 5}}
	for _, r := range thresholdsOf(none, all) {
		if r.Status != StatusNoSamples {
			t.Errorf("no requests: %s = %s", r.Name, r.Status)
		}
	}
	// And a summary with no-samples thresholds, or nothing at all, fails.
	s := &Summary{Depths: deepEmpty}
	s.Evaluate(all, synthSamples(deepEmpty))
	if s.Passed() || s.Verdict != VerdictFail {
		t.Errorf("summary with a no-samples threshold: verdict %s", s.Verdict)
	}
	s = &Summary{}
	s.Evaluate(Thresholds{MaxErrorRate: -1}, nil)
	if s.Passed() || s.Verdict != VerdictFail {
		t.Errorf("empty summary: verdict %s", s.Verdict)
	}
}

// TestVerdictInconclusive: too few samples, an interval across the limit,
// or a walk that never reached the list's end make the verdict
// inconclusive, never pass; a failure stays a failure.
func TestVerdictInconclusive(t *testing.T) {
	gate := Thresholds{MaxDepthRatio: 2, MaxErrorRate: 0.01}
	flat := depthsWith(map[int]float64{1: 2, 10000: 2.2}, nil)

	s := &Summary{Depths: flat}
	s.Evaluate(gate, synthSamples(flat))
	if s.Verdict != VerdictPass || s.DepthShift == nil || s.DepthShift.Base != 100 || s.DepthShift.DeepDepth != 10000 {
		t.Fatalf("flat, 100 samples a depth: verdict %s shift %+v", s.Verdict, s.DepthShift)
	}

	few := depthsWith(map[int]float64{1: 2, 10000: 2.2}, map[int]int64{1: 40, 10000: 40})
	s = &Summary{Depths: few, DurationSeconds: 2}
	s.Evaluate(Thresholds{MaxDepthRatio: 2, MaxErrorRate: -1}, synthSamples(few))
	if s.Verdict != VerdictInconclusive || statusOf(s.Thresholds, "max-depth-ratio") != StatusInconclusive || len(s.Inconclusive) != 1 ||
		!strings.Contains(s.Inconclusive[0], "--duration") {
		t.Errorf("40 samples a depth: verdict %s, inconclusive %q", s.Verdict, s.Inconclusive)
	}

	for _, stop := range []string{StoppedMaxPages, StoppedMaxWalk, StoppedLoop} {
		s = &Summary{Depths: flat, Harvest: &HarvestInfo{Pages: 10000, StoppedBy: stop}}
		s.Evaluate(gate, synthSamples(flat))
		if s.Verdict != VerdictInconclusive || !strings.Contains(strings.Join(s.Inconclusive, ";"), "stopped at page 10000 ("+stop+")") {
			t.Errorf("walk stopped by %s: verdict %s, inconclusive %q", stop, s.Verdict, s.Inconclusive)
		}
		// With the depth gate off too: an endless list never passes.
		s.Evaluate(Thresholds{MaxErrorRate: -1}, synthSamples(flat))
		if s.Verdict != VerdictInconclusive {
			t.Errorf("walk stopped by %s, no gate: verdict %s", stop, s.Verdict)
		}
	}
	s = &Summary{Depths: flat, Harvest: &HarvestInfo{Pages: 10000, StoppedBy: StoppedDeepestWanted}}
	s.Evaluate(gate, synthSamples(flat))
	if s.Verdict != VerdictPass {
		t.Errorf("a walk that stopped at the deepest depth wanted: verdict %s", s.Verdict)
	}

	// A server that fell behind the schedule: the latency is the queue's,
	// shared by every depth, so a flat ratio shows nothing.
	queuedFlat := depthsWith(map[int]float64{1: 2000, 10000: 2100}, nil)
	queuedFlat[0].Drift = &Drift{EarlyP50Ms: 50, LateP50Ms: 1900, Early: 33, Late: 33}
	s = &Summary{Depths: queuedFlat}
	s.Evaluate(gate, synthSamples(queuedFlat))
	if s.Verdict != VerdictInconclusive || !strings.Contains(strings.Join(s.Inconclusive, ";"), "fell behind the schedule") {
		t.Errorf("queued: verdict %s, inconclusive %q", s.Verdict, s.Inconclusive)
	}
	queuedFlat[0].Drift = &Drift{EarlyP50Ms: 900, LateP50Ms: 1100, Early: 33, Late: 33} // noisy, not climbing
	s.Evaluate(gate, synthSamples(queuedFlat))
	if s.Verdict != VerdictPass {
		t.Errorf("not queued: verdict %s, inconclusive %q", s.Verdict, s.Inconclusive)
	}

	steep := depthsWith(map[int]float64{1: 2, 10000: 30}, nil)
	steep[1].Drift = &Drift{EarlyP50Ms: 10, LateP50Ms: 500}
	s = &Summary{Depths: steep, Harvest: &HarvestInfo{Pages: 10000, StoppedBy: StoppedMaxWalk}}
	s.Evaluate(gate, synthSamples(steep))
	if s.Verdict != VerdictFail {
		t.Errorf("steep with an unfinished walk: verdict %s, want fail", s.Verdict)
	}
}

func TestSlopeAndRatio(t *testing.T) {
	// p50 = 1 ms + 2 µs per page, so 2,000 µs per 1,000 pages.
	var ds []DepthStats
	for _, d := range []int{1, 10, 100, 1000} {
		ms := 1 + 0.002*float64(d)
		ds = append(ds, DepthStats{Depth: d, Corrected: Latency{Samples: 10, P50Ms: ms, P99Ms: 2 * ms}})
	}
	s := SlopeOf(ds)
	if s == nil || !near(s.P50UsPer1000Pages, 2000) || !near(s.P99UsPer1000Pages, 4000) {
		t.Fatalf("slope %+v", s)
	}
	r := RatioOf(ds)
	if r == nil || r.FirstDepth != 1 || r.DeepDepth != 1000 || !near(r.Value, 3/1.002) {
		t.Fatalf("ratio %+v", r)
	}
	if SlopeOf(ds[:1]) != nil || RatioOf(ds[:1]) != nil {
		t.Error("one depth gave a slope or ratio")
	}
}
