package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestRunTagsEveryResultWithItsDepth runs real (short) attacks against the
// fake server and checks, for every result, that the depth in the URL tag,
// in the attack name and in the server's own X-Served-Depth header agree,
// and that no fragment ever went on the wire. It asserts no counts that
// depend on timing.
func TestRunTagsEveryResultWithItsDepth(t *testing.T) {
	for _, c := range []struct {
		b     a2aclient.Binding
		sched Schedule
	}{{a2aclient.JSONRPC, Interleaved{Seed: 7}}, {a2aclient.HTTPJSON, Interleaved{Seed: 7}}, {a2aclient.JSONRPC, Sequential{}}} {
		b := c.b
		t.Run(string(b)+"/"+c.sched.Name(), func(t *testing.T) {
			f := newFake(t, 12)
			spec, _ := ParseDepths("1,3,last")
			h := NewHarvester(f.client(b), WithDepths(spec), WithPageSize(4))
			if _, err := h.Walk(context.Background()); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var results []*vegeta.Result
			dir := t.TempDir()
			out, err := CreateOutput(dir)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRunner(h, WithRate(Rate{200, time.Second}), WithDuration(50*time.Millisecond), WithGenerator("test-gen"),
				WithSchedule(c.sched), WithOutput(out), WithResultSink(func(res *vegeta.Result) error {
					mu.Lock()
					results = append(results, res)
					mu.Unlock()
					return nil
				}))
			s, err := r.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if err := out.Close(); err != nil {
				t.Fatal(err)
			}
			if len(results) == 0 {
				t.Fatal("no results")
			}
			seen := map[int]bool{}
			for _, res := range results {
				d, ok := DepthOf(res.URL)
				n, err := ParseAttackName(res.Attack)
				if !ok || err != nil {
					t.Fatalf("result %q %q: %v", res.URL, res.Attack, err)
				}
				served, _ := strconv.Atoi(res.Headers.Get("X-Served-Depth"))
				if !n.Covers(d) || d != served || n.Interleaved() != (c.sched.Name() == ScheduleInterleaved) {
					t.Errorf("URL tag %d, attack %q, server served depth %d", d, res.Attack, served)
				}
				if n.Generator != "test-gen" || n.Binding != string(b) || n.PageSize != 4 {
					t.Errorf("attack name %+v", n)
				}
				if res.Body != nil {
					t.Error("body kept")
				}
				seen[d] = true
			}
			if len(seen) != 3 || !seen[1] || !seen[3] || !seen[12] {
				t.Errorf("depths seen %v, want 1, 3, 12", seen)
			}
			if _, _, _, fragment := f.stats(); fragment {
				t.Error("a #depth fragment went on the wire")
			}
			// The summary agrees with the results.
			var total int64
			for _, d := range s.Depths {
				total += d.Requests
				if d.Depth == 12 && !d.Last {
					t.Error("depth 12 not marked last")
				}
			}
			if total != int64(len(results)) || s.Harvest == nil || s.Harvest.Pages != 12 || !s.Harvest.LastPageReached {
				t.Errorf("summary: %d requests for %d results; harvest %+v", total, len(results), s.Harvest)
			}
			// Each depth is expected its share of the schedule: 10 sends
			// (200/s for 50 ms) per depth either way.
			for _, d := range s.Depths {
				if d.Expected != 10 || d.RatePerSecond != 200 {
					t.Errorf("depth %d: expected %d at %v/s, want 10 at 200/s", d.Depth, d.Expected, d.RatePerSecond)
				}
			}
			if s.Schedule != c.sched.Name() {
				t.Errorf("summary schedule %q", s.Schedule)
			}
			// Files: results.bin merges back to the same counts; one HDR log per depth.
			m, err := MergeFiles([]string{filepath.Join(dir, ResultsFile)}, DefaultThresholds)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range m.Depths {
				if d.Requests != s.Depths[i].Requests || d.Errors != s.Depths[i].Errors {
					t.Errorf("depth %d: merge %d/%d, run %d/%d", d.Depth, d.Requests, d.Errors, s.Depths[i].Requests, s.Depths[i].Errors)
				}
			}
			for _, d := range []int{1, 3, 12} {
				if _, err := os.Stat(filepath.Join(dir, HDRLogFile(d))); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestRunErrorsAreClassifiedAndFailTheVerdict(t *testing.T) {
	f := newFake(t, 6)
	spec, _ := ParseDepths("1,last")
	h := NewHarvester(f.client(a2aclient.JSONRPC), WithDepths(spec))
	if _, err := h.Walk(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.errorAt[6] = true // the last page now answers with a JSON-RPC error (HTTP 200)
	f.mu.Unlock()
	s, err := NewRunner(h, WithRate(Rate{100, time.Second}), WithDuration(50*time.Millisecond)).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	last := s.Depths[len(s.Depths)-1]
	if last.Depth != 6 || last.Errors != last.Requests || last.ErrorKinds["jsonrpc -32602"] != last.Requests || last.Corrected.Samples != 0 {
		t.Fatalf("last depth %+v", last)
	}
	if s.Passed() || statusOf(s.Thresholds, "max-depth-ratio") != StatusNoSamples || statusOf(s.Thresholds, "max-error-rate") != StatusFail {
		t.Errorf("verdict %s thresholds %+v", s.Verdict, s.Thresholds)
	}
}

// TestAttackDropsTheNoTargetsResult: a targeter that runs out ends the
// attack with vegeta's extra "no targets to attack" result, which must not
// be counted.
func TestAttackDropsTheNoTargetsResult(t *testing.T) {
	f := newFake(t, 2)
	h := NewHarvester(f.client(a2aclient.JSONRPC))
	hv, err := h.Walk(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tgt, _ := hv.Target(1)
	var left atomic.Int64
	left.Store(7)
	targeter := func(t *vegeta.Target) error {
		if left.Add(-1) < 0 {
			return vegeta.ErrNoTargets
		}
		*t = tgt
		return nil
	}
	agg := NewAggregator(0)
	r := NewRunner(h, WithRate(Rate{1000, time.Second}), WithDuration(time.Second))
	if err := r.attack(context.Background(), Bucket{Depth: 1}, targeter, agg); err != nil {
		t.Fatal(err)
	}
	d := agg.Depths()
	if len(d) != 1 || d[0].Requests != 7 || d[0].Errors != 0 {
		t.Fatalf("depths %+v: want exactly 7 requests, no errors", d)
	}
}

func TestStartAtMustNotPassDuringTheHarvest(t *testing.T) {
	f := newFake(t, 3)
	h := NewHarvester(f.client(a2aclient.JSONRPC))
	_, err := NewRunner(h, WithStartAt(time.Unix(1, 0), 0)).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "--start-at") {
		t.Fatalf("err %v", err)
	}
	if _, requests, byDepth, _ := f.stats(); requests != 3 || byDepth[1] != 1 {
		t.Errorf("attacked anyway: %d requests", requests)
	}
}

func TestRunnerValidate(t *testing.T) {
	h := NewHarvester(&a2aclient.Client{}, WithTokenTTL(time.Minute, 10*time.Second))
	for name, c := range map[string]struct {
		opts  []Option
		param string // the parameter a *a2aclient.ParamError names; "" for an error naming several
	}{
		"zero duration": {[]Option{WithDuration(0)}, "duration"},
		"bad generator": {[]Option{WithGenerator("a b")}, "generator"},
		"no request":    {[]Option{WithRate(Rate{1, time.Minute}), WithDuration(time.Second)}, ""},
		"outlasts TTL":  {[]Option{WithDuration(30 * time.Second), WithTimeout(25 * time.Second)}, ""},
		"negative warm": {[]Option{WithWarmup(-time.Second)}, "warmup"},
		"zero timeout":  {[]Option{WithTimeout(0)}, "timeout"},
		"zero rate":     {[]Option{WithRate(Rate{0, time.Second})}, "rate"},
		"no schedule":   {[]Option{WithSchedule(nil)}, "schedule"},
	} {
		err := NewRunner(h, c.opts...).Validate()
		var pe *a2aclient.ParamError
		switch {
		case err == nil:
			t.Errorf("%s: accepted", name)
		case c.param != "" && (!errors.As(err, &pe) || pe.Param != c.param):
			t.Errorf("%s: %v (%T), want an *a2aclient.ParamError naming %s", name, err, err, c.param)
		}
	}
	if err := NewRunner(h, WithDuration(10*time.Second), WithTimeout(5*time.Second)).Validate(); err != nil {
		t.Errorf("valid runner: %v", err)
	}
}

func TestSeedBatches(t *testing.T) {
	type req struct {
		Generate a2aclient.Generate `json:"generate"`
	}
	var mu sync.Mutex
	var got []a2aclient.Generate
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ctl" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/control/clock":
			json.NewEncoder(w).Encode(map[string]any{"nowMicros": 5_000_000_000, "frozen": true})
		case "/control/seed":
			var q req
			if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			mu.Lock()
			got = append(got, q.Generate)
			mu.Unlock()
			json.NewEncoder(w).Encode(map[string]any{"inserted": q.Generate.Count})
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	ctl := &a2aclient.Control{HTTP: srv.Client(), URL: srv.URL + "/control", Token: "ctl"}
	n, err := Seed(context.Background(), ctl, SeedSpec{Count: 250_000, Owner: "alice", ContextID: "ctx-1", IDPrefix: "p-"}, nil)
	if err != nil || n != 250_000 {
		t.Fatalf("seeded %d: %v", n, err)
	}
	if len(got) != 3 || got[0].Count != 100_000 || got[1].Count != 100_000 || got[2].Count != 50_000 {
		t.Fatalf("batches %+v", got)
	}
	prefixes := map[string]bool{}
	for i, g := range got {
		prefixes[g.IDPrefix] = true
		if g.Owner != "alice" || len(g.ContextIDs) != 1 || g.ContextIDs[0] != "ctx-1" || *g.StepMicros != -1000 {
			t.Errorf("batch %d: %+v", i, g)
		}
		// Timestamps continue from batch to batch: no overlap, no gap.
		if want := int64(5_000_000_000) - int64(i)*100_000*1000; *g.StartMicros != want {
			t.Errorf("batch %d starts at %d, want %d", i, *g.StartMicros, want)
		}
	}
	if len(prefixes) != 3 {
		t.Errorf("id prefixes collide: %v", prefixes)
	}
	if _, err := Seed(context.Background(), &a2aclient.Control{HTTP: srv.Client(), URL: srv.URL + "/control", Token: "bad"}, SeedSpec{Count: 1, Owner: "alice"}, nil); err == nil {
		t.Error("seeding with a bad control token succeeded")
	}
}

// TestInterleavedNeedsTokensForTheWholeAttack: interleaved, one walk's
// tokens serve the wait for --start-at and the whole attack; when the TTL
// is shorter, the run stops with an error naming both before attacking.
func TestInterleavedNeedsTokensForTheWholeAttack(t *testing.T) {
	f := newFake(t, 3)
	h := NewHarvester(f.client(a2aclient.JSONRPC), WithTokenTTL(time.Minute, 5*time.Second))
	r := NewRunner(h, WithDuration(time.Second), WithTimeout(time.Second), WithStartAt(time.Now().Add(10*time.Minute), 0))
	if err := r.Validate(); err != nil {
		t.Fatalf("a 1 s attack fits a 1 min TTL: %v", err)
	}
	_, err := r.Run(context.Background())
	if !errors.Is(err, ErrTTLTooShort) || !strings.Contains(err.Error(), "--start-at") || !strings.Contains(err.Error(), "TTL") {
		t.Fatalf("err %v, want ErrTTLTooShort naming --start-at and the TTL", err)
	}
	if _, requests, _, _ := f.stats(); requests > 3 {
		t.Errorf("%d requests: attacked anyway", requests)
	}
}
