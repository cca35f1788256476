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

	"github.com/spf13/pflag"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/reference"
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
		"--seed-tasks":      append(ok, "--seed-tasks", "-5"),
		"--seed":            append(ok, "--seed", "-5"), // the deprecated alias sets --seed-tasks
		"--seed-only":       append(ok, "--seed-only"),
		"--principal ":      {"--target", "http://127.0.0.1:1"},
		"--principal  ":     append(ok, "--principal", "alice=other"),
		"--control":         append(ok, "--control", "127.0.0.1:8080/control"),
		"--start-at":        append(ok, "--start-at", "tomorrow"),
		"--start-at ":       append(ok, "--start-at", "2001-01-01T00:00:00Z"),
		"--sizes":           append(ok, "--sizes", "10000"),
		"--sizes ":          append(ok, "--sizes", "10k,ten"),
		"--max-size-ratio":  append(ok, "--max-size-ratio", "0.5"),
		"--json":            append(ok, "--json", os.TempDir()),
	}
	for flag, args := range cases {
		err := runCmd(t, loadCmd(), args...)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), strings.TrimSpace(flag)) {
			t.Errorf("%s: err %v, want exit code 2 naming %s", flag, err, flag)
		}
	}
	// --start-at needs one binding: with --binding all (the default) the
	// error names both flags.
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, args := range [][]string{append(ok, "--start-at", future), append(ok, "--start-at", future, "--binding", "all")} {
		err := runCmd(t, loadCmd(), args...)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "--start-at") || !strings.Contains(err.Error(), "--binding") {
			t.Errorf("%v: err %v, want exit code 2 naming --start-at and --binding", args, err)
		}
	}
	// A target that does not answer is a setup error (exit 2), not a verdict.
	err := runCmd(t, loadCmd(), ok...)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "--target") {
		t.Errorf("unreachable target: %v", err)
	}
}

// TestLoadSeedAlias: the deprecated --seed sets --seed-tasks.
func TestLoadSeedAlias(t *testing.T) {
	for _, flag := range []string{"--seed", "--seed-tasks"} {
		o := defaultLoadOptions()
		fs := pflag.NewFlagSet("load", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.register(fs)
		if err := fs.Parse([]string{flag, "1234"}); err != nil || o.seedTasks != 1234 {
			t.Errorf("%s 1234: seedTasks %d, err %v", flag, o.seedTasks, err)
		}
	}
}

// TestBindingPath: one binding writes where --json and --out say; several
// write a file per binding beside --json (stdout stays stdout).
func TestBindingPath(t *testing.T) {
	for _, c := range []struct {
		path string
		n    int
		want string
	}{
		{"load.json", 1, "load.json"},
		{"out/load.json", 2, "out/load-http.json"},
		{"summary", 2, "summary-http"},
		{"-", 2, "-"},
		{"", 2, ""},
	} {
		if got := bindingPath(c.path, a2aclient.HTTPJSON, c.n); got != c.want {
			t.Errorf("bindingPath(%q, http, %d) = %q, want %q", c.path, c.n, got, c.want)
		}
	}
}

// TestLoadEveryBinding: --binding all (the default) measures each binding
// the card offers, one after the other: --out DIR writes DIR/<binding>,
// --json - writes both summaries to stdout, --seed-tasks seeds once, a
// second --principal is noted and ignored, and the exit status is the
// worst of the runs (here both fail --max-p99 1ns: exit 1 naming both).
func TestLoadEveryBinding(t *testing.T) {
	u := startReference(t, reference.WithPrincipal("alice", "alice-token"), reference.WithPrincipal("bob", "bob-token"), reference.WithControlToken("ctl"))
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	o := defaultLoadOptions()
	o.target, o.control, o.controlToken = u, u+"/control", "ctl"
	o.principals = []string{"alice=alice-token", "bob=bob-token"}
	o.seedTasks, o.depths, o.rate, o.duration, o.warmup, o.progress = 300, "1,last", "20", time.Second, 0, "none"
	o.th.maxRatio, o.th.maxErrorRate, o.th.maxP99 = 0, -1, time.Nanosecond
	o.jsonPath, o.outDir = "-", filepath.Join(dir, "out")
	sums, err := loadMain(context.Background(), &stdout, &stderr, o)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "jsonrpc: verdict FAIL") || !strings.Contains(err.Error(), "http: verdict FAIL") {
		t.Fatalf("err %v, want exit 1 naming both bindings' verdicts\n%s%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "--principal bob ignored") {
		t.Errorf("no note that bob is ignored: %s", stderr.String())
	}
	if len(sums) != 2 || sums[0].Binding != "jsonrpc" || sums[1].Binding != "http" {
		t.Fatalf("summaries %d, want jsonrpc then http", len(sums))
	}
	// Both summaries on stdout, each after its table.
	var printed []string
	for rest := stdout.String(); ; {
		i := strings.Index(rest, "\n{\n")
		if i < 0 {
			break
		}
		var s loadgen.Summary
		dec := json.NewDecoder(strings.NewReader(rest[i+1:]))
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("stdout: %v", err)
		}
		printed = append(printed, s.Binding)
		rest = rest[i+1+int(dec.InputOffset()):]
	}
	if strings.Join(printed, ",") != "jsonrpc,http" {
		t.Errorf("--json - printed the summaries of %v, want jsonrpc,http\n%s", printed, stdout.String())
	}
	for _, b := range []string{"jsonrpc", "http"} {
		s := readSummary(t, filepath.Join(dir, "out", b, loadgen.SummaryFile))
		if s.Binding != b || s.Seeded != 300 || s.Harvest == nil || s.Harvest.Pages != 3 {
			t.Errorf("out/%s: binding %s, seeded %d, harvest %+v; want %s, 300 tasks seeded once (3 pages)", b, s.Binding, s.Seeded, s.Harvest, b)
		}
		if _, err := os.Stat(filepath.Join(dir, "out", b, loadgen.ResultsFile)); err != nil {
			t.Errorf("out/%s: %v", b, err)
		}
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
			cmd := exec.CommandContext(ctx, bin, "load", "--target", url, "--principal", "alice=alice-token", "--binding", "jsonrpc",
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
