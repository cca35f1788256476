package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios"
)

func sampleRun() *Conformance {
	results := []*scenarios.Result{
		{ID: "LT-WALK-ORDER", Title: "order", Level: scenarios.MUST, Reqs: []string{"LT-ORDER-2"}, Binding: "jsonrpc", Verdict: scenarios.VFail,
			Quote: `"MUST return tasks sorted"`, Findings: []scenarios.Finding{{Class: scenarios.ClassFail, Reqs: []string{"LT-ORDER-2"},
				Message: "task <b> follows a", Witness: "page 1: a b\n--> POST /jsonrpc"}}},
		{ID: "LT-ARTIFACTS-OMIT", Title: "artifacts", Level: scenarios.MUST, Reqs: []string{"LT-ART-2"}, Binding: "http", Verdict: scenarios.VNonStict,
			Findings: []scenarios.Finding{{Class: scenarios.ClassNonStrict, Reqs: []string{"LT-ART-2"}, Message: "artifacts []"}}},
		{ID: "LT-TIE-BOUNDARY", Level: scenarios.Hardened, Reqs: []string{"LT-SEED-2"}, Binding: "http", Verdict: scenarios.Skipped, Skip: "hardened practice"},
		{ID: "LT-WALK-EXACT", Level: scenarios.MUST, Reqs: []string{"LT-OP-4"}, Binding: "http", Verdict: scenarios.Pass},
	}
	c := NewConformance(results, scenarios.Judgement{Profile: scenarios.ProfileDefault})
	c.Target, c.Started, c.Duration = "test", time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), time.Second
	return c
}

func TestConformanceSummary(t *testing.T) {
	c := sampleRun()
	if c.Summary.Failed != 1 || c.Summary.NonStrict != 1 || c.Summary.Skipped != 1 || c.Summary.Passed != 1 {
		t.Fatalf("summary %+v", c.Summary)
	}
	if c.ExitCode != 1 || c.Verdict != "FAIL" {
		t.Errorf("exit %d verdict %s", c.ExitCode, c.Verdict)
	}
	if got := c.Line(); got != "conformance: 2 passed, 1 failed, 1 skipped" {
		t.Errorf("line %q", got)
	}
	if len(c.Skipped) != 1 || c.Skipped[0].Requirement != "LT-SEED-2" {
		t.Errorf("skipped requirements %+v", c.Skipped)
	}
	// Sorted by ID, so runs diff cleanly.
	if c.Cases[0].ID != "LT-ARTIFACTS-OMIT" {
		t.Errorf("cases not sorted: %s first", c.Cases[0].ID)
	}
	strict := NewConformance(c.Cases, scenarios.Judgement{Strict: true})
	if strict.Line() != "conformance: 1 passed, 2 failed, 1 skipped" {
		t.Errorf("strict line %q", strict.Line())
	}
}

func TestJSONRoundTripAndErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	if err := sampleRun().WriteJSON(p); err != nil {
		t.Fatal(err)
	}
	c, err := ReadConformance(p)
	if err != nil || len(c.Cases) != 4 {
		t.Fatalf("read back: %v %v", c, err)
	}
	for name, body := range map[string]string{
		"truncated.json": `{"schema":"pagewalk/conformance/v1","cases":[{"id":`,
		"other.json":     `{"schema":"something/else"}`,
		"nocase.json":    `{"schema":"pagewalk/conformance/v1","cases":[{"title":"x"}]}`,
		"text.json":      `hello`,
	} {
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(body), 0o644)
		if _, err := ReadAny(f); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: want an error naming the file, got %v", name, err)
		}
	}
	if _, err := ReadAny(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}

func sampleLoad() *loadgen.Summary {
	return &loadgen.Summary{Kind: loadgen.SummaryKind, SchemaVersion: loadgen.SummarySchemaVersion, Target: "http://x", Binding: "jsonrpc",
		PageSize: 100, Verdict: "pass", Depths: []loadgen.DepthStats{
			{Depth: 1, Label: "1", Requests: 100, Corrected: loadgen.Latency{P50Ms: 1, P99Ms: 2}},
			{Depth: 10000, Label: "10000 (last)", Requests: 100, Corrected: loadgen.Latency{P50Ms: 1.1, P99Ms: 2.2}},
		}, DepthRatio: &loadgen.DepthRatio{Value: 1.1, FirstDepth: 1, DeepDepth: 10000, FirstP99Ms: 2, DeepP99Ms: 2.2},
		DepthShift: &loadgen.DepthShift{BaseDepth: 1, DeepDepth: 10000, DeepIsLast: true, Shift: loadgen.Shift{Ratio: 1.1, Lo: 1.02, Hi: 1.18,
			Confidence: 0.95, BaseMedianMs: 1, DeepMedianMs: 1.1, Base: 100, Deep: 100, Max: 2, Verdict: "pass"}},
		Thresholds: []loadgen.ThresholdResult{{Name: "max-depth-ratio", Limit: 2, Observed: 1.1, Unit: "x", Samples: 200, Status: "pass"}}}
}

func TestRenderers(t *testing.T) {
	b := Bundle{Conformance: sampleRun(), Load: sampleLoad()}
	var md, html bytes.Buffer
	if err := b.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Conformance: FAIL", "LT-WALK-ORDER [jsonrpc]: Fail", "| LT-SEED-2 |", "median(depth 10000) / median(depth 1) = **1.10**", "95% interval 1.02–1.18, 100 and 100 samples", "p99 ratio 1.10 (reported only)", "conformance: 2 passed, 1 failed, 1 skipped"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if err := b.HTML(&html); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	for _, want := range []string{"<svg", "LT-WALK-ORDER", "task &lt;b&gt; follows a", `<details class="witness" open><summary>witness`, "10000 (last)",
		"median(depth 10000) / median(depth 1) = <b>1.10</b>", "95% interval 1.02–1.18", "depth limit: p50 of depth 1 × 2.00"} {
		if !strings.Contains(h, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	// Self-contained: nothing is loaded from elsewhere.
	if regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`).MatchString(h) || strings.Contains(h, "<script") {
		t.Error("html references external resources or scripts")
	}
}

// TestExitCodesDoc: docs/exit-codes.md holds the table of the code.
func TestExitCodesDoc(t *testing.T) {
	b, err := os.ReadFile("../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), ExitCodesMarkdown()) {
		t.Errorf("docs/exit-codes.md does not hold the exit-code table of reports.ExitCodes:\n%s", ExitCodesMarkdown())
	}
}
