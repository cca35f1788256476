package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/loadgen"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// writeRun writes one generator's results: depths 1 and 10, 5 requests
// each, at pageSize.
func writeRun(t *testing.T, path, gen string, pageSize int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := vegeta.NewEncoder(f)
	start := time.Unix(1767225600, 0)
	for i, depth := range []int{1, 10} {
		n := loadgen.AttackName{Generator: gen, Depth: depth, Rate: loadgen.Rate{Freq: 5, Per: time.Second}, Duration: time.Second,
			Start: start.Add(time.Duration(i) * 2 * time.Second), Binding: "jsonrpc", PageSize: pageSize}
		for seq := uint64(0); seq < 5; seq++ {
			r := &vegeta.Result{Attack: n.String(), Seq: seq, Code: 200, Timestamp: n.Intended(seq), Latency: time.Millisecond,
				Method: "POST", URL: loadgen.TagURL("http://127.0.0.1:9/jsonrpc", depth)}
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReportMergeRefusesDifferentPageSizesUnlessForced(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin")
	writeRun(t, a, "gen-a", 100)
	writeRun(t, b, "gen-b", 50)
	out := filepath.Join(dir, "merged.json")
	err := runCmd(t, reportMergeCmd(), a, b, "--json", out)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "page size") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("different page sizes: %v, want exit 2 naming the page size and --force", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused merge wrote --json")
	}
	if err := runCmd(t, reportMergeCmd(), a, b, "--json", out, "--force", "--max-depth-ratio", "0"); err != nil {
		t.Fatalf("--force: %v", err)
	}
	s := readSummary(t, out)
	if s.Depths[0].Requests != 10 || !strings.Contains(strings.Join(s.Warnings, "\n"), "page size") {
		t.Errorf("forced merge: requests %d, warnings %q", s.Depths[0].Requests, s.Warnings)
	}
}
