package a2aclient

import (
	"bytes"
	"context"
	"fmt"
)

// This file bounds what decoded pages hold in memory. The reply cap
// (HTTPOptions.MaxResponseBytes) bounds one reply's bytes, but a decoded
// task costs far more than its bytes (about 350 bytes for {"id":"1"}), and
// a walk's history keeps every page it read.

// DefaultMaxPageTasks is how many tasks one ListTasks reply may hold for
// the client to decode it: 100 times the largest pageSize A2A allows (100),
// so no honest page comes near it.
const DefaultMaxPageTasks = 10_000

// TooManyTasksError is a ListTasks reply holding more tasks than the client
// decodes in one reply.
type TooManyTasksError struct {
	Limit, Seen int
}

// Error names the bound and the count.
func (e *TooManyTasksError) Error() string {
	return fmt.Sprintf("the page holds %d tasks, over the %d one reply may hold for pagewalk to decode it (pageSize is at most 100)", e.Seen, e.Limit)
}

// countArray counts the elements of a JSON array that encoding/json has
// already validated, without decoding them; ok is false when raw is not an
// array. A scan, not json.Decoder, because the decoder would allocate every
// element, which is what the count is there to avoid.
func countArray(raw []byte) (n int, ok bool) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '[' {
		return 0, false
	}
	if rest := bytes.TrimLeft(raw[1:], " \t\r\n"); len(rest) > 0 && rest[0] == ']' {
		return 0, true
	}
	n, depth, inString := 1, 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				return n, true
			}
		case ',':
			if depth == 1 {
				n++
			}
		}
	}
	return n, true
}

// DefaultWalkBytes is the byte budget ByteBudget is meant for in a
// conformance walk: the replies of one walk, added up. A case's walks read
// its own small data set (kilobytes); a walk that reads more is a server
// that keeps serving, and its history would grow without bound.
const DefaultWalkBytes = 16 << 20

// BudgetError is a walk whose replies added up to more than its budget.
type BudgetError struct {
	Limit, Seen int64
	// Pages is how many pages had been read.
	Pages int
}

// Error names the budget and what was read.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("the walk's replies add up to %d bytes over %d pages, over its %s budget", e.Seen, e.Pages, byteSize(e.Limit))
}

// ByteBudget wraps l so that the replies it reads add up to at most max
// bytes; the call that goes over returns its page and a *BudgetError (a
// transport error to Walk: StopTransport). Use a new wrapper for each walk
// whose pages are kept: each page costs memory in proportion to its
// reply, so the budget bounds what the walk holds.
func ByteBudget(l Lister, max int64) Lister { return &budget{l: l, max: max} }

type budget struct {
	l     Lister
	max   int64
	seen  int64
	pages int
}

func (b *budget) ListTasks(ctx context.Context, r ListRequest) (*Page, error) {
	p, err := b.l.ListTasks(ctx, r)
	if p != nil && p.Response != nil && p.X != nil {
		b.pages++
		b.seen += p.X.replyBytes()
		if err == nil && b.seen > b.max {
			return p, &BudgetError{Limit: b.max, Seen: b.seen, Pages: b.pages}
		}
	}
	return p, err
}
