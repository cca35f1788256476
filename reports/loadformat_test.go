package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pagewalk/pagewalk/loadgen"
)

// TestLoadRenderingIsHuman renders a load summary with large figures and a
// size study: no figure may come out in e-notation, the chart is on a log
// scale and draws the thresholds, and the size study is shown.
func TestLoadRenderingIsHuman(t *testing.T) {
	l := &loadgen.Summary{Kind: loadgen.SummaryKind, SchemaVersion: loadgen.SummarySchemaVersion, Target: "http://x", Binding: "jsonrpc",
		PageSize: 100, Verdict: "fail", Rate: loadgen.RateInfo{PerSecond: 12345}, DurationSeconds: 1800, Seeded: 1000000,
		Depths: []loadgen.DepthStats{
			{Depth: 1, Label: "1", Requests: 12000, Corrected: loadgen.Latency{Samples: 12000, P50Ms: 2, P90Ms: 3, P99Ms: 7.2}},
			{Depth: 2222, Label: "2222", Requests: 12000, Corrected: loadgen.Latency{Samples: 12000, P50Ms: 4940, P90Ms: 28100, P99Ms: 29960, MaxMs: 1775907}},
		},
		DepthRatio: &loadgen.DepthRatio{Value: 4161.1, FirstDepth: 1, DeepDepth: 2222, FirstP99Ms: 7.2, DeepP99Ms: 29960},
		DepthShift: &loadgen.DepthShift{BaseDepth: 1, DeepDepth: 2222, Shift: loadgen.Shift{Ratio: 2470, Lo: 2100, Hi: 2900, Confidence: 0.95,
			BaseMedianMs: 2, DeepMedianMs: 4940, Base: 12000, Deep: 12000}},
		Slope: &loadgen.Slope{P50UsPer1000Pages: 1775907.8, P99UsPer1000Pages: 15158635.1},
		Thresholds: []loadgen.ThresholdResult{
			{Name: "max-depth-ratio", Limit: 1.5, Observed: 4161.1, Unit: "ratio", Samples: 12000, Status: "fail"},
			{Name: "max-p99", Limit: 50, Observed: 29960, Unit: "ms", Samples: 24000, Status: "fail"},
		}}
	one := loadgen.CompareDepths([]float64{1, 1.1, 1.2}, []float64{40, 41, 42}, 1.5)
	l.Sizes = &loadgen.SizesResult{ContextID: "pwsizes-1", DeepDepth: 100, PageOne: &one,
		Levels: []loadgen.SizeLevel{{Tasks: 10000, Depths: l.Depths[:1]}, {Tasks: 100000, Depths: l.Depths[:1]}}}
	b := Bundle{Load: l}
	var md, html bytes.Buffer
	if err := b.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := b.HTML(&html); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "html": html.String()} {
		if strings.Contains(out, "e+0") || strings.Contains(out, "e+1") {
			t.Errorf("%s has e-notation:\n%s", name, out)
		}
		for _, want := range []string{"4,940", "12,345/s", "4,161.10", "100,000", "Size study", "1.78 s per 1,000 pages", "Depth cost: median(depth 2222) / median(depth 1) = ", "2,470.00", "2,100.00"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	h := html.String()
	if testing.Verbose() {
		t.Log(h)
	}
	for _, want := range []string{"log scale", `class="threshold"`, "max-p99 50 ms", "depth limit: p50 of depth 1 × 1.50"} {
		if !strings.Contains(h, want) {
			t.Errorf("html chart lacks %q", want)
		}
	}
}

// TestChartDrawsTheMedianGate: with a median-ratio depth gate, the chart's
// depth-limit line is the first depth's median times the limit.
func TestChartDrawsTheMedianGate(t *testing.T) {
	l := &loadgen.Summary{Depths: []loadgen.DepthStats{
		{Depth: 1, Label: "1", Corrected: loadgen.Latency{Samples: 100, P50Ms: 2, P90Ms: 3, P99Ms: 9}},
		{Depth: 100, Label: "100", Corrected: loadgen.Latency{Samples: 100, P50Ms: 2.2, P90Ms: 3, P99Ms: 10}},
	},
		DepthShift: &loadgen.DepthShift{BaseDepth: 1, DeepDepth: 100, Shift: loadgen.Shift{BaseMedianMs: 2, DeepMedianMs: 2.2}},
		DepthRatio: &loadgen.DepthRatio{Value: 10.0 / 9, FirstDepth: 1, DeepDepth: 100, FirstP99Ms: 9, DeepP99Ms: 10},
		Thresholds: []loadgen.ThresholdResult{{Name: "max-depth-ratio", Limit: 1.5, Unit: "ratio", Status: "pass"}}}
	c := chartOf(l)
	if len(c.Lines) != 1 || c.Lines[0].Value != 3 || !strings.Contains(c.Lines[0].Label, "p50 of depth 1 × 1.50 = 3 ms") {
		t.Errorf("lines %+v", c.Lines)
	}
	if c.LogMin > 2 || c.LogMax < 10 {
		t.Errorf("log axis %v–%v does not hold the figures", c.LogMin, c.LogMax)
	}
}
