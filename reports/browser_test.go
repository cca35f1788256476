package reports

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pagewalk/pagewalk/loadgen"
)

// chromium finds a Chromium (or Chrome) binary.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestHTMLInBrowser opens the HTML report of a failing run (conformance
// failures plus a load summary) in headless Chromium and checks what a
// person sees: the verdict banner, the failure entries with their
// witnesses, and the load chart with its three series and its threshold
// line. It saves a screenshot to reports/testdata/out/ (ignored by git).
// Without Chromium it skips, except where PAGEWALK_REQUIRE_CHROMIUM=1 (CI).
func TestHTMLInBrowser(t *testing.T) {
	exe := chromium()
	if exe == "" {
		if os.Getenv("PAGEWALK_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("PAGEWALK_REQUIRE_CHROMIUM=1 but no chromium binary is on PATH (apt-get install chromium)")
		}
		t.Skip("Chromium is not installed (apt-get install chromium): the HTML report is not checked in a browser here")
	}
	l := sampleLoad()
	l.Depths = append(l.Depths[:1], loadgen.DepthStats{Depth: 100, Label: "100", Requests: 100, Corrected: loadgen.Latency{Samples: 100, P50Ms: 1.4, P90Ms: 2.5, P99Ms: 9}}, l.Depths[1])
	for i := range l.Depths {
		l.Depths[i].Corrected.Samples = 100
		l.Depths[i].Corrected.P90Ms = l.Depths[i].Corrected.P50Ms * 1.5
	}
	l.Thresholds = append(l.Thresholds, loadgen.ThresholdResult{Name: "max-p99", Limit: 20, Observed: 9, Unit: "ms", Samples: 300, Status: "pass"})
	var page bytes.Buffer
	if err := (Bundle{Conformance: sampleRun(), Load: l}).HTML(&page); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1200, 1600), chromedp.UserDataDir(filepath.Join(dir, "profile")))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 2*time.Minute) // a hang guard
	defer cancel()

	var banner, failure, witness string
	var polylines, thresholds, dots int
	var shot []byte
	// visible: the element has a box and is not hidden by CSS.
	const visible = `(sel) => [...document.querySelectorAll(sel)].filter(e => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e); return (r.width > 0 || r.height > 0) && s.visibility !== "hidden" && s.display !== "none"; }).length`
	err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+file),
		chromedp.WaitVisible("#verdict", chromedp.ByQuery),
		chromedp.Text("#verdict", &banner, chromedp.ByQuery),
		chromedp.WaitVisible("#case-LT-WALK-ORDER-jsonrpc", chromedp.ByQuery),
		chromedp.Text("#case-LT-WALK-ORDER-jsonrpc", &failure, chromedp.ByQuery),
		chromedp.WaitVisible("#case-LT-WALK-ORDER-jsonrpc details.witness pre", chromedp.ByQuery),
		chromedp.Text("#case-LT-WALK-ORDER-jsonrpc details.witness pre", &witness, chromedp.ByQuery),
		chromedp.WaitVisible("#load-chart", chromedp.ByQuery),
		chromedp.Evaluate("("+visible+`)("#load-chart polyline")`, &polylines),
		chromedp.Evaluate("("+visible+`)("#load-chart circle")`, &dots),
		chromedp.Evaluate("("+visible+`)("#load-chart line.threshold")`, &thresholds),
		chromedp.FullScreenshot(&shot, 100),
	)
	if err != nil {
		t.Fatalf("driving %s: %v", exe, err)
	}
	if !strings.HasPrefix(banner, "FAIL: conformance: 2 passed, 1 failed, 1 skipped") {
		t.Errorf("verdict banner %q", banner)
	}
	if !strings.Contains(failure, "LT-WALK-ORDER [jsonrpc]") || !strings.Contains(failure, "task <b> follows a") {
		t.Errorf("failure entry %q", failure)
	}
	if !strings.Contains(witness, "--> POST /jsonrpc") {
		t.Errorf("witness %q", witness)
	}
	if polylines != 3 || dots != 9 || thresholds != 2 {
		t.Errorf("load chart: %d series, %d points, %d threshold lines; want 3, 9, 2", polylines, dots, thresholds)
	}
	out := filepath.Join("testdata", "out")
	if err := os.MkdirAll(out, 0o755); err == nil {
		os.WriteFile(filepath.Join(out, "report-failing-run.png"), shot, 0o644)
		os.WriteFile(filepath.Join(out, "report-failing-run.html"), page.Bytes(), 0o644)
		t.Logf("screenshot: reports/testdata/out/report-failing-run.png (%d bytes)", len(shot))
	}
}
