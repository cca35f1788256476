package a2aclient

import (
	"context"
	"time"
)

// DefaultSkew is how far before the newest timestamp of the first page the
// catch-up pass starts, as in the seed article: it covers equal timestamps
// and server clock steps; the merge by id removes the duplicates it causes.
const DefaultSkew = 2 * time.Second

// CatchUpSince returns the statusTimestampAfter of the seed article's
// catch-up pass: the newest status timestamp among the first page's tasks
// minus skew. ok is false when no task of the page has a timestamp.
func CatchUpSince(firstPage []Task, skew time.Duration) (since string, newest time.Time, ok bool) {
	for _, t := range firstPage {
		if !t.TS.IsZero() && t.TS.After(newest) {
			newest = t.TS
		}
	}
	if newest.IsZero() {
		return "", newest, false
	}
	return FormatTimestamp(newest.Add(-skew)), newest, true
}

// SyncResult is the outcome of Sync.
type SyncResult struct {
	// Tasks holds every task seen, by id; a later copy replaces an earlier
	// one.
	Tasks map[string]Task
	// Order lists the ids in the order they were first seen.
	Order []string
	// Newest is the newest status timestamp on the first page.
	Newest time.Time
	// Since is the statusTimestampAfter the catch-up pass used.
	Since string
	// Pages and Rows count the main walk; CatchUpPages and CatchUpRows the
	// catch-up pass.
	Pages, Rows, CatchUpPages, CatchUpRows int
	// Recovered lists ids the catch-up pass added or changed: tasks that
	// moved while the main walk was running.
	Recovered []string
}

type syncConfig struct {
	skew    time.Duration
	between func(context.Context) error
	walk    []WalkOption
}

// SyncOption configures Sync.
type SyncOption func(*syncConfig)

// Skew sets how far before the first page's newest timestamp the catch-up
// starts (default DefaultSkew).
func Skew(d time.Duration) SyncOption { return func(c *syncConfig) { c.skew = d } }

// WalkOptions passes options to both walks.
func WalkOptions(opts ...WalkOption) SyncOption {
	return func(c *syncConfig) { c.walk = append(c.walk, opts...) }
}

// BeforeCatchUp runs fn between the main walk and the catch-up pass (tests
// use it to record the boundary).
func BeforeCatchUp(fn func(context.Context) error) SyncOption {
	return func(c *syncConfig) { c.between = fn }
}

// Sync lists every visible task, including tasks whose status changed while
// the walk was running: after the main walk it runs a second walk with
// statusTimestampAfter = (newest timestamp on page 1) - skew and merges the
// two by task id, the later copy winning. This is the seed article's
// list_all; without it a task that completes mid-walk jumps behind the
// cursor and is silently missed. A walk that stops early returns its
// *StopError.
func Sync(ctx context.Context, l Lister, req ListRequest, opts ...SyncOption) (*SyncResult, error) {
	c := syncConfig{skew: DefaultSkew}
	for _, o := range opts {
		o(&c)
	}
	res := &SyncResult{Tasks: map[string]Task{}}
	var first []Task
	for st, err := range Walk(ctx, l, req, c.walk...) {
		if err != nil {
			return res, err
		}
		if st.N == 1 {
			first = st.Page.Tasks
		}
		res.Pages++
		for _, t := range st.Page.Tasks {
			res.Rows++
			if _, ok := res.Tasks[t.ID]; !ok {
				res.Order = append(res.Order, t.ID)
			}
			res.Tasks[t.ID] = t
		}
	}
	since, newest, ok := CatchUpSince(first, c.skew)
	if !ok {
		return res, nil
	}
	res.Newest, res.Since = newest, since
	if c.between != nil {
		if err := c.between(ctx); err != nil {
			return res, err
		}
	}
	cr := req
	cr.PageToken = ""
	cr.StatusTimestampAfter = &res.Since
	for st, err := range Walk(ctx, l, cr, c.walk...) {
		if err != nil {
			return res, err
		}
		res.CatchUpPages++
		for _, t := range st.Page.Tasks {
			res.CatchUpRows++
			old, ok := res.Tasks[t.ID]
			if !ok {
				res.Order = append(res.Order, t.ID)
			}
			if !ok || old.Timestamp != t.Timestamp || old.State != t.State {
				res.Recovered = append(res.Recovered, t.ID)
			}
			res.Tasks[t.ID] = t
		}
	}
	return res, nil
}
