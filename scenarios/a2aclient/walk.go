package a2aclient

import (
	"context"
	"crypto/sha256"
	"fmt"
	"iter"
	"time"
)

// This file holds pagewalk's one page iterator. The conformance cases, the
// load harvester and Sync all walk through it, so they share one rule for
// the end of a listing, one loop detector and one page cap.

// DefaultMaxPages is the page cap of a walk when none is given.
const DefaultMaxPages = 100_000

// TimestampLayout is the RFC 3339 form pagewalk sends timestamps in: UTC,
// microseconds and "Z" (§5.6.1 allows any fraction; microseconds keep a
// task's own timestamp exact when it is sent back as a filter).
const TimestampLayout = "2006-01-02T15:04:05.000000Z"

// FormatTimestamp renders t in TimestampLayout.
func FormatTimestamp(t time.Time) string { return t.UTC().Format(TimestampLayout) }

// Lister is what a walk needs from a client. *Client implements it.
type Lister interface {
	ListTasks(ctx context.Context, r ListRequest) (*Page, error)
}

// StopKind says why a walk ended other than on nextPageToken "".
type StopKind string

// The ways a walk can end early. Each is reported with the page that ended
// it; the caller decides what it means (a conformance finding, an
// inconclusive load run, an error for a sync job).
const (
	// StopTransport: the request got no reply (connection, timeout, a
	// reply too large to read).
	StopTransport StopKind = "transport"
	// StopProtocolError: the server answered with an A2A error.
	StopProtocolError StopKind = "protocol-error"
	// StopMalformed: the reply is neither a valid result nor a valid error.
	StopMalformed StopKind = "malformed"
	// StopNextAbsent: the reply has no nextPageToken member. The spec says
	// it "MUST always be present"; an absent member is not the end.
	StopNextAbsent StopKind = "next-absent"
	// StopNextNull: nextPageToken is null, which is neither a token nor "".
	StopNextNull StopKind = "next-null"
	// StopLoop: the server returned a nextPageToken it had already issued
	// earlier in this walk, so following it would repeat pages forever.
	StopLoop StopKind = "loop"
	// StopPageCap: the walk reached its page cap with more pages to go.
	StopPageCap StopKind = "page-cap"
)

// StopError is a walk that ended early: why, and on which page.
type StopError struct {
	Kind StopKind
	// Page is the 1-based number of the page that ended the walk.
	Page int
	// FirstIssued is, for StopLoop, the page that first issued the token
	// that came back.
	FirstIssued int
	// MaxPages is, for StopPageCap, the cap that was reached.
	MaxPages int
	// Err is the underlying error (transport failure or A2A error).
	Err error
}

// Error says how the walk ended.
func (e *StopError) Error() string {
	switch e.Kind {
	case StopTransport:
		return fmt.Sprintf("page %d: no reply: %v", e.Page, e.Err)
	case StopProtocolError:
		return fmt.Sprintf("page %d: %v", e.Page, e.Err)
	case StopMalformed:
		return fmt.Sprintf("page %d: malformed reply: %v", e.Page, e.Err)
	case StopNextAbsent:
		return fmt.Sprintf("page %d has no nextPageToken member (it must always be present; \"\" ends the list)", e.Page)
	case StopNextNull:
		return fmt.Sprintf("page %d has nextPageToken null (\"\" ends the list)", e.Page)
	case StopLoop:
		return fmt.Sprintf("page %d returned the nextPageToken that page %d already returned; the listing loops", e.Page, e.FirstIssued)
	case StopPageCap:
		return fmt.Sprintf("the walk reached its cap of %d pages without nextPageToken \"\"", e.MaxPages)
	}
	return fmt.Sprintf("page %d: walk stopped (%s)", e.Page, e.Kind)
}

// Unwrap returns the underlying error.
func (e *StopError) Unwrap() error { return e.Err }

// Step is one page of a walk.
type Step struct {
	// N is the page number, from 1.
	N int
	// Token is the pageToken that was sent for this page ("" for page 1).
	Token string
	// Request is the request that fetched this page.
	Request ListRequest
	// Page is the decoded reply. On a transport failure it holds only the
	// exchange (Page.X), if any.
	*Page
}

// IDs returns the ids of the step's tasks in order.
func (s Step) IDs() []string {
	if s.Page == nil {
		return nil
	}
	return s.Page.IDs()
}

type walkConfig struct {
	maxPages int
}

// WalkOption configures Walk.
type WalkOption func(*walkConfig)

// MaxPages caps a walk at n pages (default DefaultMaxPages).
func MaxPages(n int) WalkOption { return func(c *walkConfig) { c.maxPages = n } }

// Walk yields every page of the listing req describes, in order. It follows
// nextPageToken until it is "" (never stopping on a short page). The
// iteration yields each page with a nil error; a page that ends the walk
// early comes with a *StopError saying why, and nothing follows it. The
// caller may break out at any page; work done in the loop body happens
// after that page and before the next request.
//
// A token is a loop when any earlier page of this walk returned it, at any
// period. Tokens are remembered as hashes, so memory stays small.
func Walk(ctx context.Context, l Lister, req ListRequest, opts ...WalkOption) iter.Seq2[Step, error] {
	c := walkConfig{maxPages: DefaultMaxPages}
	for _, o := range opts {
		o(&c)
	}
	if c.maxPages < 1 {
		c.maxPages = 1
	}
	return func(yield func(Step, error) bool) {
		issued := map[[16]byte]int{}
		r := req
		for n := 1; ; n++ {
			st := Step{N: n, Token: r.PageToken, Request: r}
			p, err := l.ListTasks(ctx, r)
			st.Page = p
			if st.Page == nil {
				st.Page = &Page{Response: &Response{}}
			}
			stop := func(kind StopKind, e error) {
				yield(st, &StopError{Kind: kind, Page: n, Err: e})
			}
			switch {
			case err != nil:
				stop(StopTransport, err)
				return
			case p.Err != nil:
				stop(StopProtocolError, p.Err)
				return
			case p.Malformed != "":
				stop(StopMalformed, fmt.Errorf("%s", p.Malformed))
				return
			case !p.NextPresent:
				stop(StopNextAbsent, nil)
				return
			case p.NextNull:
				stop(StopNextNull, nil)
				return
			case p.NextPageToken == "":
				yield(st, nil)
				return
			}
			key := tokenKey(p.NextPageToken)
			if first, ok := issued[key]; ok {
				yield(st, &StopError{Kind: StopLoop, Page: n, FirstIssued: first})
				return
			}
			if n >= c.maxPages {
				yield(st, &StopError{Kind: StopPageCap, Page: n, MaxPages: c.maxPages})
				return
			}
			if !yield(st, nil) {
				return
			}
			issued[key] = n
			r.PageToken = p.NextPageToken
		}
	}
}

func tokenKey(tok string) [16]byte {
	sum := sha256.Sum256([]byte(tok))
	var k [16]byte
	copy(k[:], sum[:])
	return k
}

// All walks the listing and returns every task in the order served, or the
// tasks up to the page that stopped the walk and its *StopError.
func All(ctx context.Context, l Lister, req ListRequest, opts ...WalkOption) ([]Task, error) {
	var out []Task
	for st, err := range Walk(ctx, l, req, opts...) {
		if err != nil {
			return out, err
		}
		out = append(out, st.Page.Tasks...)
	}
	return out, nil
}
