package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

func TestLoadFlagErrorsNameTheFlag(t *testing.T) {
	ok := []string{"--target", "http://127.0.0.1:1", "--principal", "alice=alice-token"}
	cases := map[string][]string{
		"--target":          {"--principal", "alice=t"},
		"--target ":         {"--target", "ftp://x", "--principal", "alice=t"},
		"--binding":         append(ok, "--binding", "grpc"),
		"--principal":       {"--target", "http://127.0.0.1:1", "--principal", "alice"},
		"--rate":            append(ok, "--rate", "0"),
		"--rate ":           append(ok, "--rate", "fast"),
		"--depths":          append(ok, "--depths", "0,last"),
		"--schedule":        append(ok, "--schedule", "random"),
		"--max-depth-ratio": append(ok, "--max-depth-ratio", "-1"),
		"--max-p99":         append(ok, "--max-p99", "-1s"),
		"--max-error-rate":  append(ok, "--max-error-rate", "2"),
		"--page-size":       append(ok, "--page-size", "0"),
		"--progress":        append(ok, "--progress", "fancy"),
		"--generator":       append(ok, "--generator", "a b"),
		"--warmup":          append(ok, "--warmup", "-1s"),
		"--seed":            append(ok, "--seed", "-5"),
		"--control":         append(ok, "--control", "127.0.0.1:8080/control"),
		"--start-at":        append(ok, "--start-at", "tomorrow"),
		"--start-at ":       append(ok, "--start-at", "2001-01-01T00:00:00Z"),
		"--sizes":           append(ok, "--sizes", "10000"),
		"--sizes ":          append(ok, "--sizes", "10k,ten"),
		"--max-size-ratio":  append(ok, "--max-size-ratio", "0.5"),
	}
	for flag, args := range cases {
		err := runCmd(t, loadCmd(), args...)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), strings.TrimSpace(flag)) {
			t.Errorf("%s: err %v, want exit code 2 naming %s", flag, err, flag)
		}
	}
	// A target that does not answer is a setup error (exit 2), not a verdict.
	err := runCmd(t, loadCmd(), ok...)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "--target") {
		t.Errorf("unreachable target: %v", err)
	}
}

// TestVerdictExit: pass exits 0; fail exits 1; inconclusive exits 0, or 1
// with --fail-inconclusive, naming why.
func TestVerdictExit(t *testing.T) {
	inc := &loadgen.Summary{Verdict: loadgen.VerdictInconclusive, Inconclusive: []string{"max-depth-ratio: too few samples"}}
	if err := verdictExit(inc, false); err != nil {
		t.Errorf("inconclusive without --fail-inconclusive: %v", err)
	}
	var ee *exitError
	if err := verdictExit(inc, true); !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "INCONCLUSIVE") || !strings.Contains(err.Error(), "too few samples") {
		t.Errorf("inconclusive with --fail-inconclusive: %v", err)
	}
	if err := verdictExit(&loadgen.Summary{Verdict: loadgen.VerdictPass}, true); err != nil {
		t.Errorf("pass: %v", err)
	}
	fail := &loadgen.Summary{Verdict: loadgen.VerdictFail, Thresholds: []loadgen.ThresholdResult{{Name: "max-depth-ratio", Status: loadgen.StatusFail}}}
	if err := verdictExit(fail, false); !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "max-depth-ratio fail") {
		t.Errorf("fail: %v", err)
	}
}

func runCmd(t *testing.T, c interface {
	SetArgs([]string)
	SetOut(io.Writer)
	SetErr(io.Writer)
	Execute() error
}, args ...string) error {
	t.Helper()
	c.SetArgs(args)
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	return c.Execute()
}

func readSummary(t *testing.T, path string) *loadgen.Summary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s loadgen.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &s
}

// TestThreeGeneratorsMerge runs three `pagewalk load` processes at a third
// of the rate each against one reference server, merges their results with
// `pagewalk report merge`, and checks that the counts add up. It asserts
// no latency and no timing.
func TestThreeGeneratorsMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs subprocesses")
	}
	bin := pwBinary(t) // cli_test.go
	url := startServe(t, "--control-token", "ctl", "--principal", "alice=alice-token", "--db", ":memory:").url
	ctl := &a2aclient.Control{URL: url + "/control", Token: "ctl"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := ctl.SeedGenerate(ctx, a2aclient.Generate{Count: 2000, Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const gens = 3
	var wg sync.WaitGroup
	outs := make([][]byte, gens)
	errs := make([]error, gens)
	for i := 0; i < gens; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			gen := "gen-" + string(rune('0'+i))
			cmd := exec.CommandContext(ctx, bin, "load", "--target", url, "--principal", "alice=alice-token",
				"--rate", "60/3s", "--duration", "2s", "--warmup", "0", "--depths", "1,10,last",
				"--generator", gen, "--out", filepath.Join(dir, gen), "--progress", "none",
				"--max-depth-ratio", "0", "--max-error-rate", "-1")
			outs[i], errs[i] = cmd.CombinedOutput()
		}(i)
	}
	wg.Wait()
	var files []string
	want := map[int]loadgen.DepthStats{}
	for i := 0; i < gens; i++ {
		if errs[i] != nil {
			t.Fatalf("generator %d: %v\n%s", i, errs[i], outs[i])
		}
		gdir := filepath.Join(dir, "gen-"+string(rune('0'+i)))
		files = append(files, filepath.Join(gdir, loadgen.ResultsFile))
		s := readSummary(t, filepath.Join(gdir, loadgen.SummaryFile))
		if len(s.Depths) != 3 {
			t.Fatalf("generator %d measured depths %+v", i, s.Depths)
		}
		for _, d := range s.Depths {
			w := want[d.Depth]
			w.Requests += d.Requests
			w.Expected += d.Expected
			w.Successes += d.Successes
			w.Errors += d.Errors
			want[d.Depth] = w
			if d.Expected != 40 { // 2 s at one request every 50 ms
				t.Errorf("generator %d depth %d expected %d sends, want 40", i, d.Depth, d.Expected)
			}
		}
	}
	merged := filepath.Join(dir, "merged.json")
	cmd := exec.CommandContext(ctx, bin, "report", "merge", "--json", merged, "--max-depth-ratio", "0", files[0], files[1], files[2])
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	m := readSummary(t, merged)
	if m.Source != "merge" || len(m.Generators) != gens || len(m.Files) != gens || m.Verdict != "pass" {
		t.Fatalf("merged summary: source %s generators %v files %v verdict %s", m.Source, m.Generators, m.Files, m.Verdict)
	}
	if len(m.Depths) != 3 || m.Depths[0].Depth != 1 || m.Depths[1].Depth != 10 || m.Depths[2].Depth != 20 || !m.Depths[2].Last {
		t.Fatalf("merged depths %+v", m.Depths)
	}
	for _, d := range m.Depths {
		w := want[d.Depth]
		if d.Requests != w.Requests || d.Expected != w.Expected || d.Successes != w.Successes || d.Errors != w.Errors {
			t.Errorf("depth %d: merged requests/expected/ok/errors %d/%d/%d/%d, generators add up to %d/%d/%d/%d",
				d.Depth, d.Requests, d.Expected, d.Successes, d.Errors, w.Requests, w.Expected, w.Successes, w.Errors)
		}
		if d.Expected != 120 || len(d.Generators) != gens || d.RatePerSecond != 60 {
			t.Errorf("depth %d: expected %d, generators %v, rate %v; want 120, 3, 60/s", d.Depth, d.Expected, d.Generators, d.RatePerSecond)
		}
	}

	// A bad input fails the merge (exit 2) naming the file, and the good
	// summary already written is left alone.
	before, _ := os.ReadFile(merged)
	bogus := filepath.Join(dir, "bogus.bin")
	os.WriteFile(bogus, []byte("not results"), 0o644)
	var stderr bytes.Buffer
	cmd = exec.CommandContext(ctx, bin, "report", "merge", "--json", merged, files[0], bogus)
	cmd.Stderr = &stderr
	err := cmd.Run()
	var xe *exec.ExitError
	if !errors.As(err, &xe) || xe.ExitCode() != 2 || !strings.Contains(stderr.String(), bogus) {
		t.Errorf("merge with a bad file: %v, stderr %q", err, stderr.String())
	}
	if after, _ := os.ReadFile(merged); !bytes.Equal(before, after) {
		t.Error("a failed merge changed the existing --json file")
	}
	// --json naming an input is refused.
	cmd = exec.CommandContext(ctx, bin, "report", "merge", "--json", files[1], files[0], files[1])
	if err := cmd.Run(); !errors.As(err, &xe) || xe.ExitCode() != 2 {
		t.Errorf("--json over an input: %v", err)
	}
	// Thresholds judged on the merged data fail with exit 1 when breached.
	cmd = exec.CommandContext(ctx, bin, "report", "merge", "--max-p99", "1ns", files[0], files[1], files[2])
	if err := cmd.Run(); !errors.As(err, &xe) || xe.ExitCode() != 1 {
		t.Errorf("breached --max-p99: %v, want exit 1", err)
	}
}
