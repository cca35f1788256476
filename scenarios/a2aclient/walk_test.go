package a2aclient_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// fakeList serves pages from a slice of tasks, newest first, with a page
// size it may shorten, and lets a test change tasks between pages.
type fakeList struct {
	tasks    []a2aclient.Task
	short    bool // return one task fewer than asked, when possible
	absent   bool // omit nextPageToken on the last page
	loop     bool // always return the same token
	cycle    int  // > 0: tokens cycle with this period (page n returns "c" + n%cycle)
	calls    int
	onListed func(call int)
}

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func task(id string, sec int) a2aclient.Task {
	ts := t0.Add(-time.Duration(sec) * time.Second)
	return a2aclient.Task{ID: id, TS: ts, Timestamp: ts.Format(time.RFC3339Nano), State: "TASK_STATE_COMPLETED"}
}

func (f *fakeList) ListTasks(_ context.Context, r a2aclient.ListRequest) (*a2aclient.Page, error) {
	f.calls++
	var sel []a2aclient.Task
	for _, t := range f.tasks {
		if r.StatusTimestampAfter != nil {
			since, _ := time.Parse(time.RFC3339Nano, *r.StatusTimestampAfter)
			if t.TS.Before(since) {
				continue
			}
		}
		sel = append(sel, t)
	}
	start := 0
	if r.PageToken != "" {
		start, _ = strconv.Atoi(r.PageToken)
	}
	size := 2
	if r.PageSize != nil {
		size = *r.PageSize
	}
	if f.short && size > 1 {
		size--
	}
	end := min(start+size, len(sel))
	p := &a2aclient.Page{Response: &a2aclient.Response{}, Tasks: sel[start:end], NextPresent: true}
	if end < len(sel) {
		p.NextPageToken = strconv.Itoa(end)
	}
	if f.loop {
		p.NextPageToken = "same"
	}
	if f.cycle > 0 {
		p.NextPageToken = "c" + strconv.Itoa(f.calls%f.cycle)
	}
	if p.NextPageToken == "" && f.absent {
		p.NextPresent = false
	}
	if f.onListed != nil {
		f.onListed(f.calls)
	}
	return p, nil
}

func series(n int) []a2aclient.Task {
	var out []a2aclient.Task
	for i := 0; i < n; i++ {
		out = append(out, task(fmt.Sprintf("t%02d", i), i+1))
	}
	return out
}

func TestPagesFollowsShortPagesToTheEnd(t *testing.T) {
	f := &fakeList{tasks: series(7), short: true}
	all, err := a2aclient.All(context.Background(), f, a2aclient.ListRequest{PageSize: a2aclient.Ptr(3)})
	if err != nil || len(all) != 7 {
		t.Fatalf("walked %d tasks, err %v", len(all), err)
	}
	if f.calls != 4 {
		t.Errorf("%d calls, want 4 pages of 2, 2, 2, 1", f.calls)
	}
}

func TestWalkStops(t *testing.T) {
	stop := func(err error) *a2aclient.StopError {
		var se *a2aclient.StopError
		if !errors.As(err, &se) {
			return nil
		}
		return se
	}
	_, err := a2aclient.All(context.Background(), &fakeList{tasks: series(3), absent: true}, a2aclient.ListRequest{})
	if se := stop(err); se == nil || se.Kind != a2aclient.StopNextAbsent || se.Page != 2 {
		t.Errorf("absent nextPageToken: %v", err)
	}
	_, err = a2aclient.All(context.Background(), &fakeList{tasks: series(9), loop: true}, a2aclient.ListRequest{})
	if se := stop(err); se == nil || se.Kind != a2aclient.StopLoop || se.Page != 2 || se.FirstIssued != 1 {
		t.Errorf("looping token: %v", err)
	}
	_, err = a2aclient.All(context.Background(), &fakeList{tasks: series(20)}, a2aclient.ListRequest{PageSize: a2aclient.Ptr(1)}, a2aclient.MaxPages(5))
	if se := stop(err); se == nil || se.Kind != a2aclient.StopPageCap || se.Page != 5 {
		t.Errorf("page cap: %v", err)
	}
}

// TestWalkDetectsLoopsOfAnyPeriod: a server whose tokens cycle with period
// 3 (c1, c2, c0, c1, ...) is stopped on the page that hands back c1 again,
// naming the page that first issued it.
func TestWalkDetectsLoopsOfAnyPeriod(t *testing.T) {
	for _, period := range []int{1, 2, 3, 7} {
		f := &fakeList{tasks: series(50), cycle: period}
		_, err := a2aclient.All(context.Background(), f, a2aclient.ListRequest{PageSize: a2aclient.Ptr(2)})
		var se *a2aclient.StopError
		if !errors.As(err, &se) || se.Kind != a2aclient.StopLoop {
			t.Fatalf("period %d: %v", period, err)
		}
		if se.Page != period+1 || se.FirstIssued != 1 || f.calls != period+1 {
			t.Errorf("period %d: stopped on page %d (first issued on %d) after %d calls", period, se.Page, se.FirstIssued, f.calls)
		}
	}
}

func TestSyncRecoversTasksThatMoved(t *testing.T) {
	f := &fakeList{tasks: series(10)}
	// After page 1, t08 (due on page 5) completes: its timestamp becomes the
	// newest and it jumps behind the cursor.
	f.onListed = func(call int) {
		if call == 1 {
			moved := task("t08", -5)
			f.tasks = append([]a2aclient.Task{moved}, append(f.tasks[:8:8], f.tasks[9:]...)...)
		}
	}
	res, err := a2aclient.Sync(context.Background(), f, a2aclient.ListRequest{PageSize: a2aclient.Ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tasks) != 10 {
		t.Fatalf("synced %d tasks, want 10", len(res.Tasks))
	}
	if !res.Tasks["t08"].TS.Equal(t0.Add(5 * time.Second)) {
		t.Errorf("t08 not recovered with its new timestamp: %v", res.Tasks["t08"])
	}
	found := false
	for _, id := range res.Recovered {
		found = found || id == "t08"
	}
	if !found || res.CatchUpPages == 0 {
		t.Errorf("recovered %v in %d catch-up pages", res.Recovered, res.CatchUpPages)
	}
}

// ExampleWalk walks an agent's whole listing, 100 tasks a page, the way the
// spec says a client must: until nextPageToken is "", never stopping on a
// short page, and reporting a listing that loops or breaks.
func ExampleWalk() {
	card := &a2aclient.Card{Interfaces: []a2aclient.Interface{{Binding: a2aclient.HTTPJSON, URL: "http://127.0.0.1:1"}}}
	iface, _ := card.Interface(a2aclient.HTTPJSON)
	client := &a2aclient.Client{Iface: iface, Principal: "alice", Token: "alice-token"}
	req := a2aclient.ListRequest{PageSize: a2aclient.Ptr(100), HistoryLength: a2aclient.Ptr(0)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for step, err := range a2aclient.Walk(ctx, client, req) {
		if err != nil {
			var stop *a2aclient.StopError
			if errors.As(err, &stop) {
				fmt.Println("walk stopped:", stop.Kind)
			}
			break
		}
		fmt.Printf("page %d: %d tasks\n", step.N, len(step.Page.Tasks))
	}
	// Output: walk stopped: transport
}
