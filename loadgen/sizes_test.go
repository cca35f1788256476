package loadgen

import (
	"bytes"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestParseSizes(t *testing.T) {
	got, err := ParseSizes("100k, 10000")
	if err != nil || len(got) != 2 || got[0] != 10000 || got[1] != 100000 {
		t.Errorf("ParseSizes: %v %v", got, err)
	}
	for _, bad := range []string{"", "10000", "0,10", "ten,20", "10k,10000", "-5,10", "200m,1"} {
		if _, err := ParseSizes(bad); err == nil {
			t.Errorf("ParseSizes(%q) accepted", bad)
		}
	}
}

// sizesWith builds a study result whose page-1 samples are base at the
// small size and big at the large one.
func sizesWith(base, big []float64, max float64) *SizesResult {
	s := CompareDepths(base, big, max)
	return &SizesResult{ContextID: "pwsizes-1", DeepDepth: 100, PageOne: &s,
		Levels: []SizeLevel{{Tasks: 10000}, {Tasks: 100000}}}
}

func spread(center float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = center * (0.9 + 0.2*float64(i%17)/16)
	}
	return out
}

func TestSizeThresholdJudgesTheShift(t *testing.T) {
	cases := []struct {
		name      string
		base, big []float64
		want      string
	}{
		{"flat", spread(2, 300), spread(2.05, 300), StatusPass},
		{"grows", spread(2, 300), spread(20, 300), StatusFail},
		{"too few samples", spread(2, 20), spread(20, 20), StatusInconclusive},
		{"no samples at the large size", spread(2, 300), nil, StatusNoSamples},
	}
	for _, c := range cases {
		r := sizesWith(c.base, c.big, 1.5)
		th, ok := r.SizeThreshold()
		if !ok || th.Status != c.want || th.Name != SizeThresholdName {
			t.Errorf("%s: %+v (judged %v), want %s", c.name, th, ok, c.want)
			continue
		}
		s := &Summary{Verdict: VerdictPass}
		s.AddSizes(r)
		want := map[string]string{StatusPass: VerdictPass, StatusFail: VerdictFail, StatusNoSamples: VerdictFail, StatusInconclusive: VerdictInconclusive}[c.want]
		if s.Verdict != want {
			t.Errorf("%s: verdict %s with threshold %s, want %s", c.name, s.Verdict, th.Status, want)
		}
		if c.want == StatusInconclusive && (th.Advice == "" || len(s.Inconclusive) != 1) {
			t.Errorf("%s: no advice: %+v %q", c.name, th, s.Inconclusive)
		}
	}
	// A server that fell behind the schedule (page 1's latency climbing
	// through the attack) cannot pass: queueing hides a size cost.
	q := sizesWith(spread(2, 300), spread(2.05, 300), 1.5)
	q.Levels[1].Depths = []DepthStats{{Depth: 1, Drift: &Drift{EarlyP50Ms: 50, LateP50Ms: 900, Early: 100, Late: 100}}}
	if th, _ := q.SizeThreshold(); th.Status != StatusInconclusive || !strings.Contains(th.Advice, "fell behind") {
		t.Errorf("queued: %+v", th)
	}
	// ... but a size cost seen even so stands.
	q = sizesWith(spread(2, 300), spread(20, 300), 1.5)
	q.Levels[1].Depths = []DepthStats{{Depth: 1, Drift: &Drift{EarlyP50Ms: 50, LateP50Ms: 900, Early: 100, Late: 100}}}
	if th, _ := q.SizeThreshold(); th.Status != StatusFail {
		t.Errorf("queued and slower: %+v", th)
	}
	// Not judged: MaxRatio 0, or skipped.
	if _, ok := sizesWith(spread(2, 300), spread(20, 300), 0).SizeThreshold(); ok {
		t.Error("judged with max ratio 0")
	}
	s := &Summary{Verdict: VerdictPass}
	s.AddSizes(&SizesResult{Skipped: "no control API"})
	if s.Verdict != VerdictPass || len(s.Thresholds) != 0 {
		t.Errorf("a skipped study judged: %+v", s)
	}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil || !strings.Contains(b.String(), "size study: SKIPPED: no control API") {
		t.Errorf("skip line missing: %v\n%s", err, b.String())
	}
}

func TestStudyValidate(t *testing.T) {
	ok := SizeStudy{Sizes: []int{10, 100}, PageSize: 10, MaxRatio: 1.5}
	if err := ok.Validate(); err == nil || !strings.Contains(err.Error(), "control API") {
		t.Errorf("no control: %v", err)
	}
	bad := ok
	bad.MaxRatio = 0.5
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "--max-size-ratio") {
		t.Errorf("ratio 0.5: %v", err)
	}
}

// TestAttackProgressLine feeds results and reads the line at a chosen
// instant: no timer is waited for.
func TestAttackProgressLine(t *testing.T) {
	var b bytes.Buffer
	ap := NewAttackProgress(NewProgress(&b, false, 0), time.Hour)
	defer ap.Stop()
	if l := ap.Line(t0); l != "" {
		t.Errorf("line before any result: %q", l)
	}
	s := newSynth("g", 1000, t0)
	s.name.Store = 20000
	for i := uint64(0); i < 4; i++ {
		s.add(i, 0, 2*time.Millisecond, 200, "")
	}
	s.add(4, 0, time.Millisecond, 503, "503 Service Unavailable")
	for _, r := range s.res {
		_ = ap.Sink(r)
	}
	l := ap.Line(t0.Add(600 * time.Millisecond))
	for _, want := range []string{"20,000 tasks, depth 1000", "0.6s of 1s", "5/10 results", "1 errors", "p50 so far 2 ms"} {
		if !strings.Contains(l, want) {
			t.Errorf("line %q lacks %q", l, want)
		}
	}
	for i := uint64(5); i < 10; i++ {
		s.add(i, 0, time.Millisecond, 200, "")
		_ = ap.Sink(s.res[len(s.res)-1])
	}
	if l := ap.Line(t0.Add(time.Second)); l == "" {
		t.Error("no final line once every result is in")
	}
	if l := ap.Line(t0.Add(2 * time.Second)); l != "" {
		t.Errorf("a finished attack keeps printing: %q", l)
	}
	if b.Len() != 0 {
		t.Errorf("printed before its interval: %q", b.String())
	}
}

// TestUncorrectedNeverExceedsCorrected: the uncorrected figures come from
// the same requests and estimator, so they cannot invert, even for a
// request the timer sent before its intended time.
func TestUncorrectedNeverExceedsCorrected(t *testing.T) {
	agg := NewAggregator(0)
	s := newSynth("g", 1, t0)
	for i := uint64(0); i < 10; i++ {
		lag := time.Duration(i) * time.Millisecond
		if i == 9 {
			lag = -3 * time.Millisecond // sent early
		}
		s.add(i, lag, time.Duration(10+i)*time.Millisecond, 200, "")
	}
	s.add(10, 0, 30*time.Second, 0, "timeout") // an error: in neither histogram
	for _, r := range s.res {
		if err := agg.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	d := agg.Depths()[0]
	c, u := d.Corrected, d.Uncorrected
	if u.Samples != c.Samples || u.Samples != 10 {
		t.Fatalf("samples: uncorrected %d, corrected %d", u.Samples, c.Samples)
	}
	for _, p := range [][2]float64{{u.P50Ms, c.P50Ms}, {u.P90Ms, c.P90Ms}, {u.P99Ms, c.P99Ms}, {u.MaxMs, c.MaxMs}} {
		if p[0] > p[1] {
			t.Errorf("uncorrected %v > corrected %v", p[0], p[1])
		}
	}
	if u.MaxMs >= 30000 {
		t.Errorf("an error's latency leaked into the uncorrected figures: %v", u.MaxMs)
	}
}

// TestAttackProgressLineInterleaved: an interleaved attack names all its
// depths.
func TestAttackProgressLineInterleaved(t *testing.T) {
	ap := NewAttackProgress(NoProgress, time.Hour)
	defer ap.Stop()
	n := AttackName{Generator: "g", Depths: []int{1, 100}, Order: 7, Last: true, Rate: Rate{10, time.Second}, Duration: time.Second,
		Start: t0, Binding: "jsonrpc", PageSize: 100}
	_ = ap.Sink(&vegeta.Result{Attack: n.String(), Seq: 0, Code: 200, Timestamp: n.Intended(0), Latency: time.Millisecond, URL: TagURL("http://x/jsonrpc", 1)})
	if l := ap.Line(t0.Add(500 * time.Millisecond)); !strings.Contains(l, "depths 1, 100 (last)") || !strings.Contains(l, "1/10 results") {
		t.Errorf("line %q", l)
	}
}
