package loadgen

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// DefaultTokenTTL is the page-token lifetime assumed when neither the user
// nor the control API says otherwise.
const DefaultTokenTTL = 10 * time.Minute

// DefaultMaxPages caps a harvest walk.
const DefaultMaxPages = a2aclient.DefaultMaxPages

// Harvest is the outcome of one walk: for each wanted page depth, the exact
// request that fetches that page.
type Harvest struct {
	// Requests holds the request for each kept depth, built by
	// a2aclient.Client.Build.
	Requests map[int]a2aclient.Built
	// Deepest is the deepest page fetched.
	Deepest int
	// Complete is true when page Deepest returned nextPageToken "" (it is
	// the list's last page). It is false when the walk stopped at the page
	// cap or at the deepest wanted depth.
	Complete bool
	// Capped is true when the walk stopped at the page cap.
	Capped bool
	// OutOfTime is true when the walk stopped because it took longer than
	// the walk budget (WithMaxWalk).
	OutOfTime bool
	// Looped is true when page Deepest returned a nextPageToken that page
	// LoopFirst had already issued: the list loops, so a walk would never
	// end.
	Looped    bool
	LoopFirst int
	// FirstPage and DeepestPage are how long the walk's first and deepest
	// page took (request to reply), a first hint of the depth cost.
	FirstPage, DeepestPage time.Duration
	// TotalSize is page 1's totalSize, if the server sent one.
	TotalSize *int
	// Started and Finished bound the walk (Harvester clock).
	Started, Finished time.Time
	// Expires is when the first token of the walk expires: Started + TTL.
	Expires time.Time
	// Warnings lists oddities seen on the way (never fatal).
	Warnings []string
}

// Target returns the vegeta target for depth, tagged with "#depth=N".
func (h *Harvest) Target(depth int) (vegeta.Target, bool) {
	b, ok := h.Requests[depth]
	if !ok {
		return vegeta.Target{}, false
	}
	return vegeta.Target{Method: b.Method, URL: TagURL(b.URL, depth), Header: b.Header.Clone(), Body: b.Body}, true
}

// Buckets resolves spec against this walk (see DepthSpec.Buckets).
func (h *Harvest) Buckets(spec DepthSpec) ([]Bucket, []int) {
	return spec.Buckets(h.Deepest, h.Complete)
}

// Harvester walks a target's ListTasks pages as one principal and keeps
// the requests for the wanted depths. It re-walks when tokens would expire.
type Harvester struct {
	client   *a2aclient.Client
	spec     DepthSpec
	list     a2aclient.ListRequest
	maxPages int
	maxWalk  time.Duration
	ttl      time.Duration
	margin   time.Duration
	clock    Clock
	progress Progress

	cur   *Harvest
	walks int
}

// HarvestOption configures a Harvester.
type HarvestOption func(*Harvester)

// WithDepths sets which depths to keep (default DefaultDepths). Without
// "last", the walk stops at the deepest fixed depth.
func WithDepths(d DepthSpec) HarvestOption { return func(h *Harvester) { h.spec = d } }

// WithPageSize sets pageSize on every request (default 100).
func WithPageSize(n int) HarvestOption { return func(h *Harvester) { h.list.PageSize = &n } }

// WithContextID filters the list by contextId.
func WithContextID(id string) HarvestOption { return func(h *Harvester) { h.list.ContextID = &id } }

// WithStatus filters the list by status (a TaskState name).
func WithStatus(state string) HarvestOption { return func(h *Harvester) { h.list.Status = &state } }

// WithHistoryLength sets historyLength (default 0); n < 0 leaves it unset.
func WithHistoryLength(n int) HarvestOption {
	return func(h *Harvester) {
		if n < 0 {
			h.list.HistoryLength = nil
			return
		}
		h.list.HistoryLength = &n
	}
}

// WithMaxPages caps the walk (default DefaultMaxPages).
func WithMaxPages(n int) HarvestOption { return func(h *Harvester) { h.maxPages = n } }

// WithMaxWalk bounds how long one walk may take (default 0: no bound).
// A walk that runs out of time stops where it is, and its deepest page
// stands in for the last. Offset-paging servers need this: their walk
// costs grow with the square of the depth.
func WithMaxWalk(d time.Duration) HarvestOption { return func(h *Harvester) { h.maxWalk = d } }

// WithTokenTTL sets the page-token lifetime (default DefaultTokenTTL) and
// the safety margin: tokens are treated as expired margin before they are
// (default TTL/10, at most one minute).
func WithTokenTTL(ttl, margin time.Duration) HarvestOption {
	return func(h *Harvester) { h.ttl, h.margin = ttl, margin }
}

// WithClock sets the clock used for token expiry (default SystemClock).
func WithClock(c Clock) HarvestOption { return func(h *Harvester) { h.clock = c } }

// WithHarvestProgress reports walk progress (default NoProgress).
func WithHarvestProgress(p Progress) HarvestOption { return func(h *Harvester) { h.progress = p } }

// NewHarvester returns a Harvester that walks with client.
func NewHarvester(client *a2aclient.Client, opts ...HarvestOption) *Harvester {
	ps, hl := 100, 0
	h := &Harvester{client: client, spec: DefaultDepths, maxPages: DefaultMaxPages, ttl: DefaultTokenTTL,
		clock: SystemClock{}, progress: NoProgress, list: a2aclient.ListRequest{PageSize: &ps, HistoryLength: &hl}}
	for _, o := range opts {
		o(h)
	}
	if h.margin <= 0 {
		h.margin = min(h.ttl/10, time.Minute)
	}
	return h
}

// PageSize returns the pageSize the harvester sends (0 if unset).
func (h *Harvester) PageSize() int {
	if h.list.PageSize == nil {
		return 0
	}
	return *h.list.PageSize
}

// Spec returns the depth spec.
func (h *Harvester) Spec() DepthSpec { return h.spec }

// TTL returns the token lifetime and the safety margin in use.
func (h *Harvester) TTL() (ttl, margin time.Duration) { return h.ttl, h.margin }

// Walks returns how many walks the harvester has made.
func (h *Harvester) Walks() int { return h.walks }

// Clock returns the harvester's clock.
func (h *Harvester) Clock() Clock { return h.clock }

// ErrTTLTooShort is returned by Fresh when tokens cannot stay valid for the
// time asked, even from a fresh walk.
var ErrTTLTooShort = errors.New("page tokens expire before the attack would end")

// Fresh returns a harvest whose tokens stay valid for the next d (plus the
// safety margin), walking again if the current one would expire first.
func (h *Harvester) Fresh(ctx context.Context, d time.Duration) (*Harvest, error) {
	if d+h.margin >= h.ttl {
		return nil, fmt.Errorf("%w: need %s plus a %s margin, token TTL is %s; shorten --duration", ErrTTLTooShort, d, h.margin, h.ttl)
	}
	until := h.clock.Now().Add(d)
	if h.cur != nil && until.Before(h.cur.Expires.Add(-h.margin)) {
		return h.cur, nil
	}
	if h.cur != nil {
		h.progress.Logf("page tokens from %s would expire before %s; walking again", h.cur.Started.Format(time.TimeOnly), until.Format(time.TimeOnly))
	}
	hv, err := h.Walk(ctx)
	if err != nil {
		return nil, err
	}
	if until := h.clock.Now().Add(d); !until.Before(hv.Expires.Add(-h.margin)) {
		return nil, fmt.Errorf("%w: the walk took %s, so its first tokens expire (TTL %s, margin %s) before the next %s are over; bound the walk with --max-walk or lower --max-pages",
			ErrTTLTooShort, hv.Finished.Sub(hv.Started).Round(time.Millisecond), h.ttl, h.margin, d)
	}
	return hv, nil
}

// Walk walks the list from page 1. It ends on nextPageToken "" (never on a
// short page), at the page cap, or, when the spec has no "last", at the
// deepest wanted depth.
func (h *Harvester) Walk(ctx context.Context) (*Harvest, error) {
	if h.maxPages < 1 {
		return nil, fmt.Errorf("max pages must be at least 1, got %d", h.maxPages)
	}
	stopAt := h.maxPages
	if !h.spec.Last && h.spec.Deepest() < stopAt {
		stopAt = h.spec.Deepest()
	}
	start := h.clock.Now()
	hv := &Harvest{Requests: map[int]a2aclient.Built{}, Started: start, Expires: start.Add(h.ttl)}
	tokens := map[int]string{}
	tr := h.progress.Start("harvest pages", -1)
	defer tr.Done()
	req := h.list
	for st, err := range a2aclient.Walk(ctx, h.client, req, a2aclient.MaxPages(h.maxPages)) {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		depth, page := st.N, st.Page
		var stop *a2aclient.StopError
		if err != nil {
			if !errors.As(err, &stop) {
				return nil, fmt.Errorf("harvest: ListTasks page %d: %w", depth, err)
			}
			switch stop.Kind {
			case a2aclient.StopTransport:
				return nil, fmt.Errorf("harvest: ListTasks page %d: %w", depth, stop.Err)
			case a2aclient.StopProtocolError:
				return nil, fmt.Errorf("harvest: ListTasks page %d: %s", depth, page.Describe())
			case a2aclient.StopMalformed:
				return nil, fmt.Errorf("harvest: ListTasks page %d: malformed reply: %s", depth, page.Malformed)
			case a2aclient.StopLoop:
				// The page itself is good; the walk ends on it (below).
			}
		}
		if page.TasksShape != "" {
			return nil, fmt.Errorf("harvest: ListTasks page %d: malformed reply: %s", depth, page.TasksShape)
		}
		tr.Add(1)
		if x := page.X; x != nil {
			if depth == 1 {
				hv.FirstPage = x.Received.Sub(x.Sent)
			}
			hv.DeepestPage = x.Received.Sub(x.Sent)
		}
		if depth == 1 {
			hv.TotalSize = page.TotalSize
			if page.TotalSize != nil && h.PageSize() > 0 {
				pages := int64((*page.TotalSize + h.PageSize() - 1) / h.PageSize())
				tr.SetTotal(min(max(pages, 1), int64(stopAt)))
			} else if stopAt < h.maxPages {
				tr.SetTotal(int64(stopAt))
			}
		}
		if h.spec.Wants(depth) || h.spec.Last {
			tokens[depth] = st.Token
		}
		if h.spec.Last && depth > 1 && !h.spec.Wants(depth-1) {
			delete(tokens, depth-1)
		}
		hv.Deepest = depth
		if stop != nil {
			switch stop.Kind {
			case a2aclient.StopNextAbsent, a2aclient.StopNextNull:
				hv.Warnings = append(hv.Warnings, fmt.Sprintf("page %d has no nextPageToken string (absent or null); treated as the last page", depth))
				hv.Complete = true
			case a2aclient.StopPageCap:
				hv.Capped = true
			case a2aclient.StopLoop:
				hv.Looped, hv.LoopFirst = true, stop.FirstIssued
				hv.Warnings = append(hv.Warnings, fmt.Sprintf("page %d returned the same nextPageToken as page %d: the list loops, so the walk would never end; \"last\" is the deepest page harvested (page %d)",
					depth, stop.FirstIssued, depth))
			}
			break
		}
		if page.NextPageToken == "" {
			hv.Complete = true
			break
		}
		if depth >= stopAt {
			hv.Capped = depth >= h.maxPages
			break
		}
		if h.maxWalk > 0 && h.clock.Now().Sub(start) >= h.maxWalk {
			hv.OutOfTime = true
			break
		}
	}
	if hv.OutOfTime {
		hv.Warnings = append(hv.Warnings, fmt.Sprintf("the walk ran out of its %s budget at page %d before the last page (page 1 took %s, page %d took %s); \"last\" is the deepest page harvested",
			h.maxWalk, hv.Deepest, hv.FirstPage.Round(time.Microsecond), hv.Deepest, hv.DeepestPage.Round(time.Microsecond)))
	}
	if hv.Capped {
		hv.Warnings = append(hv.Warnings, fmt.Sprintf("the walk stopped at the page cap (%d pages) before the last page; \"last\" is the deepest page harvested", h.maxPages))
	}
	for d, tok := range tokens {
		req := h.list
		req.PageToken = tok
		b, err := h.client.Build(a2aclient.Request{Op: "ListTasks", Params: req.Params()})
		if err != nil {
			return nil, fmt.Errorf("harvest: building the request for page %d: %w", d, err)
		}
		hv.Requests[d] = b
	}
	hv.Finished = h.clock.Now()
	h.cur = hv
	h.walks++
	return hv, nil
}

// Why a walk ended (Harvest.StoppedBy, HarvestInfo.StoppedBy).
const (
	// StoppedLastPage: a page returned nextPageToken "".
	StoppedLastPage = "last-page"
	// StoppedMaxPages: the walk reached its page cap (--max-pages).
	StoppedMaxPages = "max-pages"
	// StoppedMaxWalk: the walk ran out of its time budget (--max-walk).
	StoppedMaxWalk = "max-walk"
	// StoppedLoop: a page returned a nextPageToken an earlier page had
	// issued.
	StoppedLoop = "loop"
	// StoppedDeepestWanted: --depths has no "last" and the walk reached
	// the deepest depth wanted.
	StoppedDeepestWanted = "deepest-wanted"
)

// StoppedBy says why the walk ended: StoppedLastPage, StoppedMaxPages,
// StoppedMaxWalk, StoppedLoop or StoppedDeepestWanted.
func (h *Harvest) StoppedBy() string {
	switch {
	case h.Complete:
		return StoppedLastPage
	case h.Looped:
		return StoppedLoop
	case h.Capped:
		return StoppedMaxPages
	case h.OutOfTime:
		return StoppedMaxWalk
	}
	return StoppedDeepestWanted
}
