package reference

import (
	"context"
	"fmt"
)

// The server's strategy points. The clean reference is built from the clean
// implementation of each (cleanSeams); a fault mode (faultmodes.go) swaps
// one or more of them for a broken or legally different one, in the way
// vegeta swaps a Pacer or a Targeter. The request path in server.go only
// calls the seams, so it holds no fault branches.
//
// There are eight seams:
//
//	tokenCodec        how claims become an opaque page token and back
//	pager             the seek strategy: which rows make a page, and the cursor
//	accessPolicy      what a principal sees, and which tokens may continue a walk
//	paramPolicy       the range rules of pageSize, historyLength and status, the filters a binding honours and how they combine
//	responseRewriter  the parts of a task rendered, the wire shape of a list and of a task, the error codes
//	keyPolicy         where signing keys live and how long a retired key verifies
//	requestEdge       how a request reaches an operation: credentials, version, routes, method names, members (seams_edge.go)
//	replyEdge         the media type of a result and the Agent Card (seams_edge.go)
type seams struct {
	codec    tokenCodec
	pager    pager
	access   accessPolicy
	params   paramPolicy
	rewriter responseRewriter
	keys     keyPolicy
	edge     requestEdge
	reply    replyEdge
}

// cleanSeams returns the seams of the clean reference: the zero-option
// server uses exactly these.
func cleanSeams() seams {
	return seams{
		codec:    binaryCodec{},
		pager:    keysetPager{},
		access:   ownerAccess{},
		params:   strictParams{},
		rewriter: plainResponses{},
		keys:     durableKeys{},
		edge:     strictEdge{},
		reply:    plainReplies{},
	}
}

// pager is the seek strategy of ListTasks. It owns the cursor: the part of
// a page token that says where the next page starts, which the token codec
// carries without reading.
type pager interface {
	// page returns up to limit rows of the listing q that follow cursor
	// ("" for the first page), and the cursor of the next page: "" when
	// this page is the last. A cursor it cannot read is an *Error.
	page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) (rows []taskRow, next string, err error)
}

// walkKey is what a page token must be bound to for the request at hand:
// the caller, its tenant and the hash of its filter set.
type walkKey struct {
	principal, tenant string
	filterHash        [16]byte
}

// accessPolicy decides what a principal may see: the rows its ListTasks
// and GetTask read, and whether a decoded page token may continue its walk.
type accessPolicy interface {
	// listScope is the set of rows a ListTasks walk for owner in tenant
	// reads.
	listScope(owner, tenant string) scope
	// getScope is the set of rows GetTask for principal in tenant reads.
	getScope(principal, tenant string) scope
	// admit checks a token's expiry and binding against the request and
	// returns the claims the walk continues with (their Principal owns the
	// listing, their Cursor is handed to the pager), or the error to answer.
	admit(c Claims, w walkKey, now int64) (Claims, *Error)
}

// paramPolicy holds the rules of the request parameters that go beyond
// their JSON type: the ranges of pageSize and historyLength, the values of
// status, which filters each binding honours and how the filters of one
// request combine. A rule broken is reported as a problem description; the
// caller names the parameter.
type paramPolicy interface {
	// pageSize returns the page size for a pageSize parameter (set false:
	// absent), or why the value is refused.
	pageSize(n int64, set bool) (size int, problem string)
	// historyLength returns the history length for a historyLength
	// parameter (set false: absent, use the server default), or why the
	// value is refused.
	historyLength(n int64, set bool) (length int, isSet bool, problem string)
	// status returns the state a status filter names (its ProtoJSON name or
	// number), or why the value is refused.
	status(v string) (st State, problem string)
	// listFilters adjusts parsed ListTasks parameters for the binding
	// ("jsonrpc" or "http") before the page token is read and its binding
	// computed.
	listFilters(binding string, p *ListParams)
	// join is how the filters of one ListTasks request combine.
	join() filterJoin
}

// taskView says which parts of a task a reply renders.
type taskView struct {
	history   int  // messages: -1 all, 0 none (the field is omitted), n the last n
	artifacts bool // false omits the field
}

// responseRewriter shapes what the server answers.
type responseRewriter interface {
	// view adjusts the parts of each task a reply renders.
	view(v taskView) taskView
	// list turns a ListTasks result into the value encoded on the wire.
	list(r *ListTasksResponse) any
	// task adjusts a task a GetTask, SendMessage or CancelTask reply
	// carries.
	task(t Task) Task
	// err adjusts an error before either binding renders it.
	err(e *Error) *Error
}

// keyPolicy decides where the page-token signing keys live and how long a
// retired key keeps verifying.
type keyPolicy interface {
	// store returns the key store to use, given the durable one (the
	// database, or --key-file).
	store(durable KeyStore) KeyStore
	// grace returns how long (µs) a retired key keeps verifying, given the
	// token lifetime.
	grace(ttl int64) int64
}

// ---- the clean implementations ----

// ownerAccess is the clean access policy: a principal sees its own tasks in
// the tenant it names, and a token continues only the walk it was issued
// for, until it expires.
type ownerAccess struct{}

func (ownerAccess) listScope(owner, tenant string) scope { return ownerScope(owner, tenant) }
func (ownerAccess) getScope(owner, tenant string) scope  { return ownerScope(owner, tenant) }

func (ownerAccess) admit(c Claims, w walkKey, now int64) (Claims, *Error) {
	if now >= c.Expires {
		return c, expiredError(c.Expires)
	}
	var why string
	switch {
	case c.Principal != w.principal:
		why = "a different principal"
	case c.Tenant != w.tenant:
		why = "a different tenant"
	case c.FilterHash != w.filterHash:
		why = "a different filter set (contextId, status, statusTimestampAfter, historyLength and includeArtifacts must not change during a walk)"
	default:
		return c, nil
	}
	return c, &Error{Kind: KindInvalidParams, Field: "pageToken", Token: TokenBinding,
		Message: "pageToken: issued for " + why + "; restart the walk without pageToken"}
}

// expiredError is the answer to a token used at or after its expiry.
func expiredError(expires int64) *Error {
	return &Error{Kind: KindInvalidParams, Field: "pageToken", Token: TokenExpired,
		Message: "pageToken: expired at " + FormatTimestamp(expires) + "; restart the walk without pageToken"}
}

// strictParams is the clean parameter policy: the proto's page-size range
// (LT-REQ-4), a non-negative historyLength, a status that names a
// TaskState, and every filter on both bindings, all of which must match.
type strictParams struct{}

func (strictParams) pageSize(n int64, set bool) (int, string) {
	switch {
	case !set:
		return DefaultPageSize, ""
	case n < MinPageSize || n > MaxPageSize:
		return 0, fmt.Sprintf("must be between %d and %d inclusive, got %d", MinPageSize, MaxPageSize, n)
	}
	return int(n), ""
}

func (strictParams) historyLength(n int64, set bool) (int, bool, string) {
	switch {
	case !set:
		return 0, false, ""
	case n < 0:
		return 0, false, fmt.Sprintf("must be a non-negative integer, got %d", n)
	}
	return int(n), true, ""
}

func (strictParams) status(v string) (State, string) {
	st, ok := ParseState(v)
	if !ok {
		return 0, fmt.Sprintf("must be one of %s, got %q", StateNames(), abbreviateStr(v))
	}
	return st, ""
}

func (strictParams) listFilters(string, *ListParams) {}

func (strictParams) join() filterJoin { return allFilters }

// plainResponses is the clean response shape: the parts asked for, every
// ListTasks field written, tasks as rendered, the spec's error codes.
type plainResponses struct{}

func (plainResponses) view(v taskView) taskView      { return v }
func (plainResponses) list(r *ListTasksResponse) any { return r }
func (plainResponses) task(t Task) Task              { return t }
func (plainResponses) err(e *Error) *Error           { return e }

// durableKeys is the clean key policy: keys persist (so tokens survive a
// restart) and a retired key verifies for one token lifetime (so tokens
// survive a rotation).
type durableKeys struct{}

func (durableKeys) store(durable KeyStore) KeyStore { return durable }
func (durableKeys) grace(ttl int64) int64           { return ttl }
