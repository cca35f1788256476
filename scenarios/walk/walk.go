// Package walk pages through an A2A ListTasks listing the way the spec says
// a client must: it follows nextPageToken until it is "" (never stopping on
// a short page), caps the number of pages so a runaway server is reported
// rather than followed forever, and offers the seed article's catch-up pass
// (Sync) for jobs that mirror tasks.
//
// It is importable on its own: build a wire.Client for your agent and call
// Pages or Sync.
package walk

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/pagewalk/pagewalk/scenarios/wire"
)

// Lister is what a walk needs from a client. *wire.Client implements it.
type Lister interface {
	ListTasks(ctx context.Context, r wire.ListRequest) (*wire.Page, error)
}

// DefaultMaxPages is the page cap when none is given.
const DefaultMaxPages = 100_000

type config struct {
	maxPages int
	onPage   func(n int, p *wire.Page)
}

// Option configures a walk.
type Option func(*config)

// MaxPages caps the number of pages; reaching the cap ends the walk with
// ErrRunaway.
func MaxPages(n int) Option { return func(c *config) { c.maxPages = n } }

// OnPage calls fn after each page is fetched (n counts from 1), for
// progress and logging.
func OnPage(fn func(n int, p *wire.Page)) Option { return func(c *config) { c.onPage = fn } }

// ErrRunaway reports a walk that reached its page cap.
var ErrRunaway = errors.New("walk: page cap reached; the server may be looping")

// PageError is a walk that stopped because a page failed.
type PageError struct {
	// Page is the 1-based number of the failed page.
	Page int
	// Reason says why: a transport error, a protocol error, or a reply that
	// cannot continue the walk (no usable nextPageToken).
	Reason string
	Err    error
}

// Error says which page failed and why.
func (e *PageError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("walk: page %d: %s: %v", e.Page, e.Reason, e.Err)
	}
	return fmt.Sprintf("walk: page %d: %s", e.Page, e.Reason)
}

// Unwrap returns the underlying error.
func (e *PageError) Unwrap() error { return e.Err }

// Pages yields every page of the listing described by req. The iteration
// ends after the page whose nextPageToken is "", or with an error: a
// *PageError, or ErrRunaway. A nextPageToken that is absent or null is an
// error (LT-RESP-2), not the end, and a token the server already issued
// earlier in the walk is reported as a loop.
func Pages(ctx context.Context, l Lister, req wire.ListRequest, opts ...Option) iter.Seq2[*wire.Page, error] {
	c := config{maxPages: DefaultMaxPages}
	for _, o := range opts {
		o(&c)
	}
	return func(yield func(*wire.Page, error) bool) {
		seen := map[string]bool{}
		r := req
		for n := 1; ; n++ {
			if n > c.maxPages {
				yield(nil, ErrRunaway)
				return
			}
			p, err := l.ListTasks(ctx, r)
			if err != nil {
				yield(p, &PageError{Page: n, Reason: "transport", Err: err})
				return
			}
			if c.onPage != nil {
				c.onPage(n, p)
			}
			switch {
			case p.Err != nil:
				yield(p, &PageError{Page: n, Reason: "protocol error", Err: p.Err})
				return
			case p.Malformed != "":
				yield(p, &PageError{Page: n, Reason: p.Malformed})
				return
			case !p.NextPresent:
				yield(p, &PageError{Page: n, Reason: "nextPageToken is absent (it MUST always be present)"})
				return
			case p.NextNull:
				yield(p, &PageError{Page: n, Reason: "nextPageToken is null (the last page MUST say \"\")"})
				return
			}
			if !yield(p, nil) || p.NextPageToken == "" {
				return
			}
			if seen[p.NextPageToken] {
				yield(nil, &PageError{Page: n, Reason: "nextPageToken repeats a token of an earlier page; the walk would loop"})
				return
			}
			seen[p.NextPageToken] = true
			r.PageToken = p.NextPageToken
		}
	}
}

// All walks the listing and returns every task in the order served.
func All(ctx context.Context, l Lister, req wire.ListRequest, opts ...Option) ([]wire.Task, error) {
	var out []wire.Task
	for p, err := range Pages(ctx, l, req, opts...) {
		if err != nil {
			return out, err
		}
		out = append(out, p.Tasks...)
	}
	return out, nil
}
