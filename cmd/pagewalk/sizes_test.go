package main

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/reference"
)

// TestLoadSizesKillsStoreScan runs `pagewalk load --sizes` against the
// in-process reference: clean, page 1 costs the same at 2,000 and 20,000
// tasks (pass); with the store-scan fault, every page reads the whole
// list, so page 1 slows with the store (fail). It judges only the verdict
// the statistic gives; it asserts no latency and no timing.
func TestLoadSizesKillsStoreScan(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 20,000 tasks and runs about a minute of load")
	}
	for _, tc := range []struct {
		fault    string
		wantCode int
		want     string
	}{
		{"", 0, loadgen.StatusPass},
		{"store-scan", 1, loadgen.StatusFail},
	} {
		name := tc.fault
		if name == "" {
			name = "clean"
		}
		t.Run(name, func(t *testing.T) {
			opts := []reference.Option{reference.WithPrincipal("alice", "alice-token"), reference.WithControlToken("ctl")}
			if tc.fault != "" {
				opts = append(opts, reference.WithFaults(reference.Fault(tc.fault)))
			}
			u := startReference(t, opts...)
			out := filepath.Join(t.TempDir(), "sizes.json")
			err := runCmd(t, loadCmd(), "--target", u, "--principal", "alice=alice-token", "--binding", "jsonrpc", "--control", u+"/control", "--control-token", "ctl",
				"--sizes", "2000,20000", "--depths", "1", "--max-depth-ratio", "0", "--max-error-rate", "-1",
				"--rate", "40", "--duration", "4s", "--warmup", "1s", "--progress", "none", "--json", out)
			code := 0
			var ee *exitError
			if errors.As(err, &ee) {
				code = ee.code
			} else if err != nil {
				t.Fatal(err)
			}
			s := readSummary(t, out)
			if s.Sizes == nil || s.Sizes.PageOne == nil {
				t.Fatalf("no size study in the summary (exit %d, %v)", code, err)
			}
			var got *loadgen.ThresholdResult
			for i := range s.Thresholds {
				if s.Thresholds[i].Name == loadgen.SizeThresholdName {
					got = &s.Thresholds[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s threshold: %+v", loadgen.SizeThresholdName, s.Thresholds)
			}
			one := s.Sizes.PageOne
			t.Logf("%s: page 1 median %.3f ms at 2,000 tasks, %.3f ms at 20,000: ratio %.2f [%.2f, %.2f], %s; exit %d",
				name, one.BaseMedianMs, one.DeepMedianMs, one.Ratio, one.Lo, one.Hi, got.Status, code)
			if got.Status != tc.want || code != tc.wantCode {
				t.Errorf("%s: threshold %s (%s), exit %d; want %s, exit %d", name, got.Status, got.Detail, code, tc.want, tc.wantCode)
			}
			if len(s.Sizes.Levels) != 2 || s.Sizes.Levels[1].Tasks != 20000 || s.Sizes.DeepDepth != 20 {
				t.Errorf("levels %+v, deep depth %d; want 2,000 and 20,000 tasks, page 20", s.Sizes.Levels, s.Sizes.DeepDepth)
			}
		})
	}
}

// TestLoadSizesSkipsWithoutControlAPI: with no control API to seed
// through, the size study is skipped with its reason; the depth study
// still runs and decides the exit code.
func TestLoadSizesSkipsWithoutControlAPI(t *testing.T) {
	u := startReference(t, reference.WithPrincipal("alice", "alice-token"))
	out := filepath.Join(t.TempDir(), "s.json")
	err := runCmd(t, loadCmd(), "--target", u, "--principal", "alice=alice-token", "--binding", "jsonrpc", "--sizes", "10k,100k",
		"--depths", "1", "--max-depth-ratio", "0", "--rate", "20", "--duration", "1s", "--warmup", "0", "--progress", "none", "--json", out)
	if err != nil {
		t.Fatalf("want exit 0 (the depth study passed; the size study is skipped, not an error): %v", err)
	}
	s := readSummary(t, out)
	if s.Sizes == nil || s.Sizes.Skipped == "" {
		t.Fatalf("size study not marked skipped: %+v", s.Sizes)
	}
	for _, th := range s.Thresholds {
		if th.Name == loadgen.SizeThresholdName {
			t.Errorf("a skipped study must judge nothing, got threshold %+v", th)
		}
	}
}
