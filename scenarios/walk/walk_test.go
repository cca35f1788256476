package walk

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/wire"
)

// fakeList serves pages from a slice of tasks, newest first, with a page
// size it may shorten, and lets a test change tasks between pages.
type fakeList struct {
	tasks    []wire.Task
	short    bool // return one task fewer than asked, when possible
	absent   bool // omit nextPageToken on the last page
	loop     bool // always return the same token
	calls    int
	onListed func(call int)
}

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func task(id string, sec int) wire.Task {
	ts := t0.Add(-time.Duration(sec) * time.Second)
	return wire.Task{ID: id, TS: ts, Timestamp: ts.Format(time.RFC3339Nano), State: "TASK_STATE_COMPLETED"}
}

func (f *fakeList) ListTasks(_ context.Context, r wire.ListRequest) (*wire.Page, error) {
	f.calls++
	var sel []wire.Task
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
	p := &wire.Page{Response: &wire.Response{}, Tasks: sel[start:end], NextPresent: true}
	if end < len(sel) {
		p.NextPageToken = strconv.Itoa(end)
	}
	if f.loop {
		p.NextPageToken = "same"
	}
	if p.NextPageToken == "" && f.absent {
		p.NextPresent = false
	}
	if f.onListed != nil {
		f.onListed(f.calls)
	}
	return p, nil
}

func series(n int) []wire.Task {
	var out []wire.Task
	for i := 0; i < n; i++ {
		out = append(out, task(fmt.Sprintf("t%02d", i), i+1))
	}
	return out
}

func TestPagesFollowsShortPagesToTheEnd(t *testing.T) {
	f := &fakeList{tasks: series(7), short: true}
	all, err := All(context.Background(), f, wire.ListRequest{PageSize: wire.Ptr(3)})
	if err != nil || len(all) != 7 {
		t.Fatalf("walked %d tasks, err %v", len(all), err)
	}
	if f.calls != 4 {
		t.Errorf("%d calls, want 4 pages of 2, 2, 2, 1", f.calls)
	}
}

func TestPagesErrors(t *testing.T) {
	_, err := All(context.Background(), &fakeList{tasks: series(3), absent: true}, wire.ListRequest{})
	var pe *PageError
	if !errors.As(err, &pe) || pe.Page != 2 {
		t.Errorf("absent nextPageToken: %v", err)
	}
	_, err = All(context.Background(), &fakeList{tasks: series(9), loop: true}, wire.ListRequest{})
	if !errors.As(err, &pe) {
		t.Errorf("looping token: %v", err)
	}
	_, err = All(context.Background(), &fakeList{tasks: series(20)}, wire.ListRequest{PageSize: wire.Ptr(1)}, MaxPages(5))
	if !errors.Is(err, ErrRunaway) {
		t.Errorf("page cap: %v", err)
	}
}

func TestSyncRecoversTasksThatMoved(t *testing.T) {
	f := &fakeList{tasks: series(10)}
	// After page 1, t08 (due on page 5) completes: its timestamp becomes the
	// newest and it jumps behind the cursor.
	f.onListed = func(call int) {
		if call == 1 {
			moved := task("t08", -5)
			f.tasks = append([]wire.Task{moved}, append(f.tasks[:8:8], f.tasks[9:]...)...)
		}
	}
	res, err := Sync(context.Background(), f, wire.ListRequest{PageSize: wire.Ptr(2)})
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
