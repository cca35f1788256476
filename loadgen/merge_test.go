package loadgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func writeResults(t *testing.T, path string, enc func(f *os.File) vegeta.Encoder, res ...[]*vegeta.Result) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	e := enc(f)
	for _, rs := range res {
		for _, r := range rs {
			if err := e.Encode(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func gobEnc(f *os.File) vegeta.Encoder  { return vegeta.NewEncoder(f) }
func jsonEnc(f *os.File) vegeta.Encoder { return vegeta.NewJSONEncoder(f) }

// generatorRun synthesises one generator's run: depths 1 and 100, n
// results each, p ms latency at depth 1 and deep ms at depth 100.
func generatorRun(gen string, start time.Time, n int, p, deep time.Duration) [][]*vegeta.Result {
	a := newSynth(gen, 1, start)
	b := newSynth(gen, 100, start.Add(2*time.Second))
	b.name.Last = true
	for i := 0; i < n; i++ {
		a.add(uint64(i), 0, p, 200, "")
		b.add(uint64(i), 0, deep, 200, "")
	}
	return [][]*vegeta.Result{a.res, b.res}
}

func TestMergeAddsUpAndJudgesOnce(t *testing.T) {
	dir := t.TempDir()
	pa, pb, pc := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin"), filepath.Join(dir, "c.json")
	writeResults(t, pa, gobEnc, generatorRun("gen-a", t0, 10, time.Millisecond, time.Millisecond)...)
	writeResults(t, pb, gobEnc, generatorRun("gen-b", t0, 7, time.Millisecond, 10*time.Millisecond)...)
	// The second and third generators' deep page is slow: a alone does
	// not breach the ratio; merged, 17 of the 27 deep samples are slow, and
	// so is the median (27 samples leave its interval wide: at best the
	// merged run is inconclusive, never a pass).
	writeResults(t, pc, jsonEnc, generatorRun("gen-c", t0, 10, time.Millisecond, 10*time.Millisecond)...)

	gate := Thresholds{MaxDepthRatio: 2, MaxErrorRate: 0, MinSamples: 5}
	s, err := MergeFiles([]string{pa, pb, pc}, gate)
	if err != nil {
		t.Fatal(err)
	}
	if s.Source != "merge" || len(s.Generators) != 3 || len(s.Depths) != 2 || s.Binding != "jsonrpc" || s.PageSize != 100 {
		t.Fatalf("summary %+v", s)
	}
	for _, d := range s.Depths {
		if d.Requests != 27 || d.Successes != 27 || d.Expected != 30 || d.Dropped != 3 || len(d.Attacks) != 3 || d.RatePerSecond != 30 {
			t.Errorf("depth %d: requests %d expected %d dropped %d attacks %d rate %v", d.Depth, d.Requests, d.Expected, d.Dropped, len(d.Attacks), d.RatePerSecond)
		}
	}
	if !s.Depths[1].Last || s.Depths[1].Label != "100 (last)" {
		t.Errorf("last flag lost: %+v", s.Depths[1])
	}
	if s.DepthRatio == nil || s.DepthRatio.Value < 5 || s.DepthShift == nil || s.DepthShift.Ratio < 5 || s.DepthShift.Deep != 27 || s.Passed() {
		t.Errorf("merged ratio %+v, shift %+v, verdict %s: want the slow generators to fail the merged run", s.DepthRatio, s.DepthShift, s.Verdict)
	}
	// The first file alone passes: the thresholds are judged on merged data.
	alone, err := MergeFiles([]string{pa}, gate)
	if err != nil || !alone.Passed() {
		t.Errorf("a alone: %v %+v", err, alone)
	}
}

func TestMergeRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bin")
	writeResults(t, good, gobEnc, generatorRun("gen-a", t0, 5, time.Millisecond, time.Millisecond)...)
	raw, _ := os.ReadFile(good)

	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	foreign := filepath.Join(dir, "foreign.bin")
	writeResults(t, foreign, gobEnc, []*vegeta.Result{{Attack: "hostA", URL: "http://x/#depth=1", Code: 200, Timestamp: t0}})
	cases := map[string][]string{
		"garbage":   {good, write("garbage.bin", []byte("this is not a result file\n"))},
		"empty":     {good, write("empty.bin", nil)},
		"truncated": {good, write("truncated.bin", raw[:len(raw)*2/3])},
		"missing":   {good, filepath.Join(dir, "nope.bin")},
		"foreign":   {good, foreign},
		"twice":     {good, write("copy.bin", raw)},
		"directory": {good, dir},
	}
	for name, files := range cases {
		_, err := MergeFiles(files, DefaultThresholds)
		if err == nil {
			t.Errorf("%s: merged", name)
			continue
		}
		if !strings.Contains(err.Error(), files[1]) {
			t.Errorf("%s: error does not name the bad file %s: %v", name, files[1], err)
		}
	}
	if _, err := MergeFiles(nil, DefaultThresholds); err == nil {
		t.Error("merging nothing succeeded")
	}
}
