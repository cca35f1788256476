package loadgen

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestHumanFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FormatCount(0), "0"},
		{FormatCount(999), "999"},
		{FormatCount(1000), "1,000"},
		{FormatCount(1234567), "1,234,567"},
		{FormatCount(-4940), "-4,940"},
		{FormatNumber(4940.2, 1), "4,940.2"},
		{FormatNumber(12, 2), "12"},
		{FormatNumber(-0.0001, 2), "0"},
		{FormatMsValue(4940.4), "4,940"},
		{FormatMsValue(7.2171), "7.22"},
		{FormatMsValue(0.789), "0.789"},
		{FormatLatency(4940), "4.94 s"},
		{FormatLatency(1775907.8), "1,776 s"},
		{FormatLatency(130.2), "130 ms"},
		{FormatLatency(0.789), "0.789 ms"},
		{FormatRate(5000), "5,000/s"},
		{FormatRate(12345.6), "12,346/s"},
		{FormatRate(100.0 / 3), "33.3/s"},
		{FormatSeconds(1800), "1,800s"},
		{FormatSeconds(2.5), "2.5s"},
		{FormatSlope(1775907.8), "+1.78 s per 1,000 pages"},
		{FormatSlope(56581.8), "+56.6 ms per 1,000 pages"},
		{FormatSlope(-10), "-10.0 µs per 1,000 pages"},
		{FormatSlope(0.4), "+0.40 µs per 1,000 pages"},
		{FormatRatio(4165.98), "4,165.98"},
		{FormatRatio(1), "1.00"},
		{FormatThreshold("fraction", 0.648), "64.8%"},
		{FormatThreshold("ms", 4940), "4.94 s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestTextHasNoExponents renders a summary with large figures: no figure
// may come out in e-notation, and the slope picks its unit.
func TestTextHasNoExponents(t *testing.T) {
	d1 := DepthStats{Depth: 1, Label: "1", Requests: 12000, Expected: 12000, Successes: 12000, ThroughputPerSecond: 12000,
		Corrected: Latency{Samples: 12000, P50Ms: 2, P90Ms: 3, P99Ms: 7, P999Ms: 20, MaxMs: 22}}
	d2 := DepthStats{Depth: 2222, Label: "2222", Requests: 12000, Expected: 12000, Successes: 12000, ThroughputPerSecond: 12000,
		Corrected: Latency{Samples: 12000, P50Ms: 4940, P90Ms: 28100, P99Ms: 29960, P999Ms: 30010, MaxMs: 1775907}}
	s := &Summary{Source: "load", Target: "http://x", Binding: "jsonrpc", PageSize: 100, DurationSeconds: 1800,
		Rate: RateInfo{Spec: "12345/1s", PerSecond: 12345}, Depths: []DepthStats{d1, d2}}
	s.Evaluate(Thresholds{MaxDepthRatio: 1.5, MaxP99: 5 * time.Second, MaxErrorRate: 0.01}, nil)
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"e+0", "e+1", "e-0"} {
		if strings.Contains(out, bad) {
			t.Errorf("text has %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{"12,345/s", "1,800s", "12,000", "s per 1,000 pages", "4,280.00"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// TestSeedProgressShowsTasksPerSecond: a whole batch counted at once must
// not read as billions per second; later lines give tasks/s.
func TestSeedProgressShowsTasksPerSecond(t *testing.T) {
	if r := rateOf(100000, time.Microsecond, "tasks"); r != "" {
		t.Errorf("rate after 1 µs: %q, want none", r)
	}
	if r := rateOf(700000, 5*time.Second, "tasks"); r != "140,000 tasks/s" {
		t.Errorf("rate: %q", r)
	}
	if u := unitOf("seed tasks"); u != "tasks" {
		t.Errorf("unit %q", u)
	}
}
