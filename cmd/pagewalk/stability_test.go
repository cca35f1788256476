package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/suites"
)

// stabilityRuns is how many times TestLoadStability runs the demo's load
// against each server.
const stabilityRuns = 20

// TestLoadStability (make load-stability; PAGEWALK_LOAD_STABILITY=1) runs
// the demo's load step (defaultDemoOptions, demoLoadOptions) stabilityRuns
// times against the clean in-process reference and as many times against
// its offset-cursor mutant, each while two goroutines of this process
// burn CPU, and counts the verdicts. The clean reference must never fail
// (inconclusive is allowed and counted); the mutant must fail every time.
// It asserts verdicts only, no timing.
//
// The burners compete with the server and the generator for the cores, as
// other processes on a busy machine do: GOMAXPROCS is raised by the number
// of burners (PAGEWALK_LOAD_STABILITY_GOMAXPROCS overrides it), so that
// the operating system shares the cores among all threads. Left at the
// number of cores, two goroutines that never yield would hold every P of
// Go's scheduler and every request would wait for Go's 10 ms preemption
// several times: a starved runtime, not a busy machine (docs/load.md,
// "Stability", gives both measurements).
func TestLoadStability(t *testing.T) {
	if os.Getenv("PAGEWALK_LOAD_STABILITY") != "1" {
		t.Skip("set PAGEWALK_LOAD_STABILITY=1 (make load-stability): 40 load runs of the demo's size")
	}
	runs := stabilityRuns
	if n, err := strconv.Atoi(os.Getenv("PAGEWALK_LOAD_STABILITY_RUNS")); err == nil && n > 0 {
		runs = n
	}
	const burners = 2
	procs := runtime.NumCPU() + burners
	if n, err := strconv.Atoi(os.Getenv("PAGEWALK_LOAD_STABILITY_GOMAXPROCS")); err == nil && n > 0 {
		procs = n
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	o := defaultDemoOptions()
	t.Logf("GOMAXPROCS %d, %d CPUs; demo load: %d tasks, depths %s, rate %s per depth, duration %s, 2 busy goroutines",
		runtime.GOMAXPROCS(0), runtime.NumCPU(), o.seedTasks, demoDepths, o.rate, o.duration)
	stop := burnCPU(burners)
	defer stop()
	for _, c := range []struct {
		name, fault string
		ok          func(counts map[string]int) bool
		want        string
	}{
		{"clean", "", func(n map[string]int) bool { return n[loadgen.VerdictFail] == 0 }, "no fail"},
		{"offset-cursor", "offset-cursor", func(n map[string]int) bool { return n[loadgen.VerdictFail] == runs }, "every run fails"},
	} {
		counts := map[string]int{}
		var ratios []string
		for i := range runs {
			began := time.Now()
			s := stabilityRun(t, c.fault, o)
			took := time.Since(began)
			counts[s.Verdict]++
			if d := s.DepthShift; d != nil {
				ratios = append(ratios, fmt.Sprintf("%.2f [%.2f, %.2f] (%s/%s) n=%d/%d", d.Ratio, d.Lo, d.Hi, fmtMsT(d.DeepMedianMs), fmtMsT(d.BaseMedianMs), d.Base, d.Deep))
			} else {
				ratios = append(ratios, "n/a")
			}
			t.Logf("%s run %d: %s, median ratio %s, walk %.1fs, run %s", c.name, i+1, s.Verdict, ratios[len(ratios)-1], s.Harvest.WalkMillis/1000, took.Round(100*time.Millisecond))
		}
		line := fmt.Sprintf("load-stability %s: %d runs: %d pass, %d inconclusive, %d fail (want %s)", c.name, runs,
			counts[loadgen.VerdictPass], counts[loadgen.VerdictInconclusive], counts[loadgen.VerdictFail], c.want)
		fmt.Println(line)
		if !c.ok(counts) {
			t.Errorf("%s", line)
		}
	}
}

// stabilityRun starts a fresh in-process reference (with fault, if any),
// runs the demo's load against it and returns the summary.
func stabilityRun(t *testing.T, fault string, o demoOptions) *loadgen.Summary {
	t.Helper()
	var faults []string
	if fault != "" {
		faults = append(faults, fault)
	}
	ref, err := suites.StartInProcess(faults...)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	url, err := ref.BaseURL(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lo := demoLoadOptions(url, o)
	lo.progress = "none"
	var out syncBuffer
	sums, err := loadMain(context.Background(), &out, &out, lo)
	if err != nil && !isVerdict(err) {
		t.Fatalf("load: %v\n%s", err, out.String())
	}
	if len(sums) != 1 {
		t.Fatalf("load: %d summaries, want one\n%s", len(sums), out.String())
	}
	return sums[0]
}

func fmtMsT(v float64) string { return fmt.Sprintf("%.2fms", v) }

// burnCPU starts n goroutines that spin until the returned stop is called.
func burnCPU(n int) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(1)
			for !done.Load() {
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			_ = x
		}()
	}
	return func() { done.Store(true); wg.Wait() }
}

// syncBuffer is a bytes buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}
