package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// tokenOf returns the pageToken a built request carries ("" if none).
func tokenOf(t *testing.T, b a2aclient.Built) string {
	t.Helper()
	if len(b.Body) > 0 {
		var env struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if err := json.Unmarshal(b.Body, &env); err != nil {
			t.Fatalf("body %s: %v", b.Body, err)
		}
		if env.Method != "ListTasks" {
			t.Fatalf("method %q", env.Method)
		}
		s, _ := env.Params["pageToken"].(string)
		return s
	}
	u, err := url.Parse(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("pageToken")
}

func TestHarvestKeepsTheRequestForEachDepth(t *testing.T) {
	for _, b := range []a2aclient.Binding{a2aclient.JSONRPC, a2aclient.HTTPJSON} {
		t.Run(string(b), func(t *testing.T) {
			f := newFake(t, 25)
			f.short[3], f.short[24] = true, true // short pages must not end the walk
			spec, _ := ParseDepths("1,10,last")
			h := NewHarvester(f.client(b), WithDepths(spec), WithPageSize(7))
			hv, err := h.Walk(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if hv.Deepest != 25 || !hv.Complete || hv.Capped {
				t.Fatalf("deepest %d complete %v capped %v, want 25 true false", hv.Deepest, hv.Complete, hv.Capped)
			}
			if len(hv.Requests) != 3 {
				t.Fatalf("kept depths %v, want 1, 10, 25", keys(hv.Requests))
			}
			for depth, want := range map[int]string{1: "", 10: "w1-d10", 25: "w1-d25"} {
				got := tokenOf(t, hv.Requests[depth])
				if got != want {
					t.Errorf("depth %d: pageToken %q, want %q", depth, got, want)
				}
			}
			// The kept request is exactly what a2aclient.Client.Build renders.
			req := hv.Requests[10]
			if req.Header.Get("A2A-Version") != "1.0" || req.Header.Get("Authorization") != "Bearer alice-token" {
				t.Errorf("headers %v", req.Header)
			}
			if b == a2aclient.HTTPJSON && (req.Method != "GET" || !strings.Contains(req.URL, "/tasks?") || !strings.Contains(req.URL, "pageSize=7") || !strings.Contains(req.URL, "historyLength=0")) {
				t.Errorf("HTTP+JSON request %s %s", req.Method, req.URL)
			}
			if b == a2aclient.JSONRPC && (req.Method != "POST" || !strings.Contains(string(req.Body), `"pageSize":7`) || !strings.Contains(string(req.Body), `"historyLength":0`)) {
				t.Errorf("JSON-RPC request %s %s", req.Method, req.Body)
			}
			_, requests, _, _ := f.stats()
			if requests != 25 {
				t.Errorf("walk sent %d requests, want 25", requests)
			}
			tgt, ok := hv.Target(10)
			if !ok || !strings.HasSuffix(tgt.URL, "#depth=10") {
				t.Errorf("target %q, want a #depth=10 tag", tgt.URL)
			}
		})
	}
}

func keys[V any](m map[int]V) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestHarvestStopsAtThePageCap(t *testing.T) {
	f := newFake(t, 50)
	h := NewHarvester(f.client(a2aclient.JSONRPC), WithMaxPages(5))
	hv, err := h.Walk(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if hv.Deepest != 5 || hv.Complete || !hv.Capped || hv.StoppedBy() != "max-pages" {
		t.Fatalf("deepest %d complete %v capped %v", hv.Deepest, hv.Complete, hv.Capped)
	}
	buckets, skipped := hv.Buckets(DefaultDepths)
	if len(buckets) != 2 || buckets[1].Depth != 5 || buckets[1].Last {
		t.Errorf("buckets %+v: want 1 and 5 (not marked last)", buckets)
	}
	if len(skipped) != 3 {
		t.Errorf("skipped %v, want 10 100 1000", skipped)
	}
	if len(hv.Warnings) == 0 {
		t.Error("no warning about the cap")
	}
}

func TestHarvestWithoutLastStopsAtTheDeepestWantedDepth(t *testing.T) {
	f := newFake(t, 50)
	spec, _ := ParseDepths("1,3")
	hv, err := NewHarvester(f.client(a2aclient.JSONRPC), WithDepths(spec)).Walk(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, requests, _, _ := f.stats(); requests != 3 || hv.Deepest != 3 || hv.StoppedBy() != "deepest-wanted" {
		t.Fatalf("requests %d deepest %d stopped by %s", requests, hv.Deepest, hv.StoppedBy())
	}
}

func TestHarvestWalkBudgetStopsTheWalk(t *testing.T) {
	f := newFake(t, 100)
	clock := newFakeClock()
	f.onRequest = func() { clock.Advance(time.Second) } // every page "takes" one second
	hv, err := NewHarvester(f.client(a2aclient.JSONRPC), WithClock(clock), WithMaxWalk(5*time.Second)).Walk(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if hv.Deepest != 5 || !hv.OutOfTime || hv.Complete || hv.StoppedBy() != "max-walk" {
		t.Fatalf("deepest %d outOfTime %v", hv.Deepest, hv.OutOfTime)
	}
	if _, ok := hv.Requests[5]; !ok {
		t.Error("the deepest page reached is not kept for \"last\"")
	}
}

func TestReharvestBeforeTokensExpire(t *testing.T) {
	f := newFake(t, 12)
	clock := newFakeClock()
	h := NewHarvester(f.client(a2aclient.JSONRPC), WithClock(clock), WithTokenTTL(10*time.Minute, time.Minute))
	ctx := context.Background()
	hv1, err := h.Fresh(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if tok := tokenOf(t, hv1.Requests[12]); tok != "w1-d12" {
		t.Fatalf("first walk: last token %q", tok)
	}
	// 7 minutes in, tokens are still good for the next minute (they are
	// treated as expired at 9 minutes).
	clock.Advance(7 * time.Minute)
	hv2, err := h.Fresh(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if hv2 != hv1 || h.Walks() != 1 {
		t.Fatalf("walked again too early (walks %d)", h.Walks())
	}
	// At 8 minutes the next minute would end at the margin: walk again.
	clock.Advance(time.Minute)
	hv3, err := h.Fresh(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if h.Walks() != 2 || hv3 == hv1 {
		t.Fatalf("did not walk again (walks %d)", h.Walks())
	}
	if tok := tokenOf(t, hv3.Requests[12]); tok != "w2-d12" {
		t.Errorf("second walk: last token %q, want w2-d12 (fresh tokens)", tok)
	}
	if walks, _, _, _ := f.stats(); walks != 2 {
		t.Errorf("server saw %d walks, want 2", walks)
	}
	if !hv3.Expires.Equal(clock.Now().Add(10 * time.Minute)) {
		t.Errorf("expires %v, want now+TTL", hv3.Expires)
	}
}

func TestFreshRefusesWindowsLongerThanTheTTL(t *testing.T) {
	f := newFake(t, 3)
	h := NewHarvester(f.client(a2aclient.JSONRPC), WithClock(newFakeClock()), WithTokenTTL(time.Minute, 10*time.Second))
	if _, err := h.Fresh(context.Background(), 55*time.Second); !errors.Is(err, ErrTTLTooShort) {
		t.Fatalf("err %v, want ErrTTLTooShort", err)
	}
	if _, requests, _, _ := f.stats(); requests != 0 {
		t.Errorf("walked anyway (%d requests)", requests)
	}
}

func TestFreshFailsWhenTheWalkOutlastsTheTTL(t *testing.T) {
	f := newFake(t, 10)
	clock := newFakeClock()
	f.onRequest = func() { clock.Advance(10 * time.Second) }
	h := NewHarvester(f.client(a2aclient.JSONRPC), WithClock(clock), WithTokenTTL(2*time.Minute, 10*time.Second))
	if _, err := h.Fresh(context.Background(), 30*time.Second); !errors.Is(err, ErrTTLTooShort) {
		t.Fatalf("err %v, want ErrTTLTooShort (a 100 s walk leaves no time under a 2 min TTL)", err)
	}
}

func TestHarvestErrors(t *testing.T) {
	t.Run("error reply names the page", func(t *testing.T) {
		f := newFake(t, 10)
		f.errorAt[4] = true
		_, err := NewHarvester(f.client(a2aclient.JSONRPC)).Walk(context.Background())
		if err == nil || !strings.Contains(err.Error(), "page 4") || !strings.Contains(err.Error(), "-32602") {
			t.Fatalf("err %v", err)
		}
	})
}

// TestHarvestStopsOnALoop: a nextPageToken that an earlier page issued
// (period 1: the same token again; period 3: a cycle) ends the walk on the
// page that closes the loop, which stands in for "last" without being
// marked last, and says so; the tokens are remembered, so any period is
// caught.
func TestHarvestStopsOnALoop(t *testing.T) {
	for _, c := range []struct {
		name                     string
		setup                    func(*fakeA2A)
		binding                  a2aclient.Binding
		deepest, first, requests int
	}{
		{"a token that repeats", func(f *fakeA2A) { f.repeatAt = 3 }, a2aclient.HTTPJSON, 3, 2, 3},
		{"a token cycle of period 3", func(f *fakeA2A) { f.cycleAt, f.cyclePeriod = 6, 3 }, a2aclient.JSONRPC, 6, 3, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, 50)
			c.setup(f)
			hv, err := NewHarvester(f.client(c.binding), WithDepths(DepthSpec{Depths: []int{1}, Last: true})).Walk(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if hv.Deepest != c.deepest || !hv.Looped || hv.LoopFirst != c.first || hv.Complete || hv.StoppedBy() != StoppedLoop {
				t.Fatalf("deepest %d looped %v first %d complete %v stopped by %s; want a loop on page %d back to page %d's token",
					hv.Deepest, hv.Looped, hv.LoopFirst, hv.Complete, hv.StoppedBy(), c.deepest, c.first)
			}
			if _, requests, _, _ := f.stats(); requests != c.requests {
				t.Errorf("%d requests; the walk must stop on the page that closes the loop", requests)
			}
			buckets, _ := hv.Buckets(DepthSpec{Depths: []int{1}, Last: true})
			if len(buckets) != 2 || buckets[1].Depth != c.deepest || buckets[1].Last {
				t.Errorf("buckets %+v: want 1 and %d, not marked last", buckets, c.deepest)
			}
			if len(hv.Warnings) == 0 || !strings.Contains(hv.Warnings[len(hv.Warnings)-1], "loops") {
				t.Errorf("warnings %q", hv.Warnings)
			}
		})
	}
}
