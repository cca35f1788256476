package reference

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
)

// faultTable is every fault mode. Each entry installs its own seam
// implementations, defined below it (those of the "Page shape, filters and
// task rendering" section in faultmodes_list.go); nothing outside these
// files knows the faults exist.
var faultTable = []FaultInfo{
	// ---- Cursor and order ----
	{Name: "offset-cursor", Summary: "pages by OFFSET behind an opaque token instead of a keyset",
		install: func(c *config) { c.seams.pager = offsetPager{} }},
	{Name: "timestamp-only-cursor", Summary: "the cursor holds the status timestamp only, so ties at a page boundary are skipped",
		install: func(c *config) { c.seams.pager = timestampOnlyPager{} }},
	{Name: "ascending-order", Summary: "sorts oldest first",
		install: func(c *config) {
			c.seams.pager = reorderedPager{order: "ts_us ASC, id ASC", seek: "ts_us >= ? AND (ts_us > ? OR (ts_us = ? AND id > ?))"}
		}},
	{Name: "unsorted-page", Summary: "serves the right rows per page but in shuffled order within the page",
		install: func(c *config) { c.seams.rewriter = reversedPage{c.seams.rewriter} }},
	{Name: "early-empty-token", Summary: "the page before the last comes back short with nextPageToken \"\", so the walk ends early",
		install: func(c *config) { c.seams.pager = earlyEndPager{} }},

	// ---- Token binding and signing ----
	{Name: "unsigned-token", Summary: "tokens carry no signature, so edited tokens are accepted",
		install: func(c *config) { c.seams.codec = unsignedCodec{} }},
	{Name: "unbound-principal", Summary: "a token issued to one principal is accepted from another (whose own scope still applies)",
		install: func(c *config) { c.seams.access = unboundPrincipal{c.seams.access} }},
	{Name: "leak-principal", Summary: "a token issued to A, replayed by B, lists A's tasks to B",
		install: func(c *config) { c.seams.access = leakPrincipal{c.seams.access} }},
	{Name: "unbound-filters", Summary: "a token is accepted with a different filter set than it was issued for",
		install: func(c *config) { c.seams.access = unboundFilters{c.seams.access} }},
	{Name: "no-key-overlap", Summary: "rotating the signing key invalidates every outstanding token at once",
		install: func(c *config) { c.seams.keys = noKeyOverlap{c.seams.keys} }},
	{Name: "ephemeral-keys", Summary: "signing keys are not persisted, so a restart invalidates every outstanding token",
		install: func(c *config) { c.seams.keys = ephemeralKeys{c.seams.keys} }},

	// ---- Expiry ----
	{Name: "no-expiry", Summary: "tokens never expire",
		install: func(c *config) { c.seams.access = noExpiry{c.seams.access} }},
	{Name: "expired-empty-page", Summary: "an expired token gets an empty success page instead of an error",
		install: func(c *config) {
			c.seams.access = expiredEmptyAccess{c.seams.access}
			c.seams.pager = expiredEmptyPager{c.seams.pager}
		}},

	// ---- The last page ----
	{Name: "missing-next-token", Summary: "nextPageToken is absent on the last page",
		install: func(c *config) { c.seams.rewriter = lastTokenAs{c.seams.rewriter, false} }},
	{Name: "null-next-token", Summary: "nextPageToken is null on the last page",
		install: func(c *config) { c.seams.rewriter = lastTokenAs{c.seams.rewriter, true} }},

	// ---- Artifacts and history ----
	{Name: "artifacts-empty-array", Summary: "without includeArtifacts, artifacts is written as [] instead of omitted",
		install: func(c *config) { c.seams.rewriter = artifactsEmptyArray{c.seams.rewriter} }},
	{Name: "artifacts-by-default", Summary: "artifacts are included even when includeArtifacts is false",
		install: func(c *config) { c.seams.rewriter = artifactsByDefault{c.seams.rewriter} }},
	{Name: "history-ignored", Summary: "historyLength is ignored: the whole history is always returned",
		install: func(c *config) { c.seams.rewriter = historyIgnored{c.seams.rewriter} }},
	{Name: "negative-history-accepted", Summary: "a negative historyLength is accepted as unset",
		install: func(c *config) { c.seams.params = negativeHistoryAccepted{c.seams.params} }},

	// ---- Page size and totals ----
	{Name: "pagesize-unchecked", Summary: "pageSize is not validated: 0, negative and over-100 values are served",
		install: func(c *config) { c.seams.params = pageSizeUnchecked{c.seams.params} }},
	{Name: "pagesize-zero-as-default", Summary: "an explicit pageSize 0 is treated as unset (50)",
		install: func(c *config) { c.seams.params = pageSizeZeroAsDefault{c.seams.params} }},
	{Name: "wrong-default-page-size", Summary: "an unset pageSize serves 100 tasks instead of at most 50",
		install: func(c *config) { c.seams.params = defaultPageSize100{c.seams.params} }},
	{Name: "total-size-wrong", Summary: "totalSize is one more than the number of matching tasks",
		install: func(c *config) { c.seams.rewriter = totalSizeWrong{c.seams.rewriter} }},
	{Name: "tasks-null-when-empty", Summary: "tasks is null instead of [] when nothing matches",
		install: func(c *config) { c.seams.rewriter = tasksNullWhenEmpty{c.seams.rewriter} }},

	// ---- Filters, scope and errors ----
	{Name: "exclusive-timestamp-after", Summary: "statusTimestampAfter is exclusive (>) instead of the proto's >=",
		install: func(c *config) { c.afterOp = ">" }},
	{Name: "wrong-error-code", Summary: "invalid params are answered with JSON-RPC -32600 instead of -32602",
		install: func(c *config) { c.seams.rewriter = recodeError{c.seams.rewriter, KindInvalidParams, -32600} }},
	{Name: "gettask-cross-principal", Summary: "GetTask returns another principal's task",
		install: func(c *config) { c.seams.access = getTaskCrossPrincipal{c.seams.access} }},
	{Name: "filter-ignored-on-http", Summary: "the contextId and status filters work on JSON-RPC but are dropped on HTTP+JSON",
		install: func(c *config) { c.seams.params = filterIgnoredOnHTTP{c.seams.params} }},
	{Name: "unscoped-list", Summary: "ListTasks ignores the owner: every principal lists every task of the tenant",
		install: func(c *config) { c.seams.access = unscopedList{c.seams.access} }},
	{Name: "unscoped-tenant", Summary: "ListTasks ignores the tenant: a principal lists its tasks of every tenant",
		install: func(c *config) { c.seams.access = unscopedTenant{c.seams.access} }},

	// ---- Page shape, filters and task rendering ----
	{Name: "overlong-pages", Summary: "every page holds one task more than pageSize (the walk is otherwise complete and in order)",
		install: func(c *config) { c.seams.pager = overlongPager{c.seams.pager} }},
	{Name: "page-overlap", Summary: "each page starts at the previous page's last task instead of after it, so that task is served twice",
		install: func(c *config) { c.seams.pager = overlapPager{} }},
	{Name: "no-total-size", Summary: "totalSize is left out of every ListTasks reply",
		install: func(c *config) { c.seams.rewriter = totalSizeOmitted{c.seams.rewriter} }},
	{Name: "unknown-token-restarts", Summary: "a pageToken that is no token of this server is ignored: the walk starts over instead of being refused",
		install: func(c *config) { c.seams.params = unknownTokenRestarts{c.seams.params} }},
	{Name: "filters-or", Summary: "combined filters are applied as OR: a task matching any one of them is listed",
		install: func(c *config) { c.seams.params = filtersOr{c.seams.params} }},
	{Name: "status-unvalidated", Summary: "a status that names no TaskState is accepted and matches nothing",
		install: func(c *config) { c.seams.params = statusUnvalidated{c.seams.params} }},
	{Name: "status-filter-ignored", Summary: "the status filter is ignored on both bindings",
		install: func(c *config) { c.seams.params = statusFilterIgnored{c.seams.params} }},
	{Name: "pagesize-echo-count", Summary: "the response's pageSize is the number of tasks served, not the page size used",
		install: func(c *config) { c.seams.rewriter = pageSizeEchoCount{c.seams.rewriter} }},
	{Name: "list-completes-working", Summary: "ListTasks marks the TASK_STATE_WORKING tasks it serves TASK_STATE_COMPLETED (status timestamp kept): a read with a side effect",
		install: func(c *config) { c.seams.pager = completingPager{c.seams.pager} }},
	{Name: "task-state-short-names", Summary: "GetTask and SendMessage write status.state as a pre-1.0 short name (\"completed\") instead of the TaskState enum name",
		install: func(c *config) { c.seams.rewriter = stateShortNames{c.seams.rewriter} }},
	{Name: "timestamp-centiseconds", Summary: "status timestamps are written with 2 fractional digits (centiseconds)",
		install: func(c *config) { c.seams.rewriter = timestampCentiseconds{c.seams.rewriter} }},
	{Name: "tie-order-flips", Summary: "tasks with tied timestamps are ordered by id descending for odd page sizes and ascending for even ones: each walk is consistent, two walks disagree",
		install: func(c *config) { c.seams.pager = parityTiePager{} }},

	// ---- Performance ----
	{Name: "store-scan", PerfOnly: true, Summary: "every ListTasks page reads and sorts all of the principal's matching rows: correct results, but page cost grows with the store size",
		install: func(c *config) { c.seams.pager = storeScanPager{} }},

	// ---- Legal variants ----
	{Name: "short-pages", Legal: true, Summary: "pages are randomly shorter than pageSize (seeded: --fault-seed), but the walk is complete and correct",
		install: func(c *config) { c.seams.pager = newShortPager(c.seams.pager, c.faultSeed) }},
	{Name: "opaque-token-format", Legal: true, Summary: "tokens use a different (JSON, dotted, hex-signed) encoding, still signed and bound",
		install: func(c *config) { c.seams.codec = jsonCodec{} }},
	{Name: "tie-break-ascending", Legal: true, Summary: "tasks with tied timestamps are ordered by id ascending (a different, consistent tie-break)",
		install: func(c *config) {
			c.seams.pager = reorderedPager{order: "ts_us DESC, id ASC", seek: "ts_us <= ? AND (ts_us < ? OR (ts_us = ? AND id > ?))"}
		}},
}

// ---- pagers ----

// offsetPager pages by OFFSET: its cursor is the number of rows served.
// Rows inserted or moved ahead of the cursor shift every later page.
type offsetPager struct{}

func (offsetPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	var off uint64
	if cursor != "" {
		var n int
		off, n = binary.Uvarint([]byte(cursor))
		if n != len(cursor) || off > math.MaxInt64 {
			return nil, "", errMalformed
		}
	}
	rows, err := st.List(ctx, q, pageSpec{order: keysetOrder, limit: limit + 1, offset: int64(off), indexed: true})
	if err != nil {
		return nil, "", err
	}
	rows, more := trimPage(rows, limit)
	if !more {
		return rows, "", nil
	}
	return rows, string(binary.AppendUvarint(nil, off+uint64(len(rows)))), nil
}

// timestampOnlyPager seeks past the last status timestamp served, dropping
// the rest of a tie group that straddles the page boundary.
type timestampOnlyPager struct{}

func (timestampOnlyPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	spec := pageSpec{order: keysetOrder, limit: limit + 1, indexed: true}
	if cursor != "" {
		ts, _, ok := decodeKeyset(cursor)
		if !ok {
			return nil, "", errMalformed
		}
		spec.seek, spec.args = "ts_us < ?", []any{ts}
	}
	rows, err := st.List(ctx, q, spec)
	if err != nil {
		return nil, "", err
	}
	rows, more := trimPage(rows, limit)
	if !more {
		return rows, "", nil
	}
	return rows, keysetCursor(rows[len(rows)-1]), nil
}

// reorderedPager is a keyset pager with another order: seek is the
// condition after the cursor's (ts, ts, ts, id).
type reorderedPager struct{ order, seek string }

func (p reorderedPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	spec := pageSpec{order: p.order, limit: limit + 1}
	if cursor != "" {
		ts, id, ok := decodeKeyset(cursor)
		if !ok {
			return nil, "", errMalformed
		}
		spec.seek, spec.args = p.seek, []any{ts, ts, ts, id}
	}
	rows, err := st.List(ctx, q, spec)
	if err != nil {
		return nil, "", err
	}
	rows, more := trimPage(rows, limit)
	if !more {
		return rows, "", nil
	}
	return rows, keysetCursor(rows[len(rows)-1]), nil
}

// earlyEndPager looks two pages ahead: when what is left after this page
// would fit in one more page, it serves this page one row short and ends
// the walk with nextPageToken "".
type earlyEndPager struct{}

func (earlyEndPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	rows, next, err := keysetPager{}.page(ctx, st, q, cursor, 2*limit)
	if err != nil || len(rows) <= limit {
		return rows, "", err
	}
	if next == "" {
		return rows[:limit-1], "", nil
	}
	rows = rows[:limit]
	return rows, keysetCursor(rows[limit-1]), nil
}

// storeScanPager gives exactly the clean keyset listing, but finds each page
// the slow way: it reads every row of the listing, unordered and unbounded,
// sorts them in Go, and skips to the cursor. Its page cost grows with the
// number of matching rows and is flat with depth, so only a measurement of
// cost against store size (pagewalk load --sizes) can tell it from the
// clean pager.
type storeScanPager struct{}

func (storeScanPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	all, err := st.List(ctx, q, pageSpec{limit: -1})
	if err != nil {
		return nil, "", err
	}
	newer := func(a, b taskRow) bool { return a.TS > b.TS || (a.TS == b.TS && a.ID > b.ID) }
	slices.SortFunc(all, func(a, b taskRow) int {
		switch {
		case newer(a, b):
			return -1
		case newer(b, a):
			return 1
		}
		return 0
	})
	start := 0
	if cursor != "" {
		ts, id, ok := decodeKeyset(cursor)
		if !ok {
			return nil, "", errMalformed
		}
		at := taskRow{TS: ts, ID: id}
		for start < len(all) && !newer(at, all[start]) {
			start++
		}
	}
	rows, more := trimPage(all[start:min(len(all), start+max(limit, 0)+1)], limit)
	if !more {
		return rows, "", nil
	}
	return rows, keysetCursor(rows[len(rows)-1]), nil
}

// shortPager serves pages of a random length between 1 and pageSize,
// drawn from a generator seeded with the fault seed, so a run reproduces.
type shortPager struct {
	inner pager
	mu    *sync.Mutex
	rng   *rand.Rand
}

func newShortPager(inner pager, seed uint64) shortPager {
	return shortPager{inner: inner, mu: &sync.Mutex{}, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (p shortPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	if limit > 1 {
		p.mu.Lock()
		limit = 1 + p.rng.IntN(limit)
		p.mu.Unlock()
	}
	return p.inner.page(ctx, st, q, cursor, limit)
}

// expiredCursor marks the walk of an expired token under the
// expired-empty-page fault. No keyset cursor reads like it: its leading
// bytes overflow a varint.
var expiredCursor = strings.Repeat("\xff", 11) + "expired"

// expiredEmptyAccess admits an expired token, positioned past the end of
// the listing.
type expiredEmptyAccess struct{ accessPolicy }

func (a expiredEmptyAccess) admit(c Claims, w walkKey, now int64) (Claims, *Error) {
	if now >= c.Expires {
		c.Cursor = expiredCursor
		return c, nil
	}
	return a.accessPolicy.admit(c, w, now)
}

// expiredEmptyPager serves an empty last page to an expired walk.
type expiredEmptyPager struct{ pager }

func (p expiredEmptyPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	if cursor == expiredCursor {
		return nil, "", nil
	}
	return p.pager.page(ctx, st, q, cursor, limit)
}

// ---- token codecs ----

// unsignedCodec writes the reference body with no MAC, so an edited token
// decodes as whatever it was edited to.
type unsignedCodec struct{}

func (unsignedCodec) Encode(c Claims, _ *KeyRing) string {
	return tokenB64.EncodeToString(claimsBody(0, c))
}

func (unsignedCodec) Decode(tok string, _ *KeyRing, _ int64) (Claims, *Error) {
	raw, err := decodeB64(tok)
	if err != nil || len(raw) < 2 || raw[0] != tokenVersion {
		return Claims{}, errMalformed
	}
	c, ok := parseClaims(raw[1:])
	if !ok {
		return Claims{}, errMalformed
	}
	return c, nil
}

// jsonCodec is the opaque-token-format legal variant: the same claims as
// JSON, base64-encoded with padding, and a hex HMAC, joined by dots. It is
// signed and bound exactly like the reference format, so it must pass every
// check: token format is the server's business.
type jsonCodec struct{}

type jsonClaims struct {
	K uint32 `json:"k"`
	C string `json:"c"` // the cursor, base64
	P string `json:"p"`
	N string `json:"n"`
	F string `json:"f"`
	E int64  `json:"e"`
	S int64  `json:"s"`
}

func (jsonCodec) Encode(c Claims, kr *KeyRing) string {
	body, _ := json.Marshal(jsonClaims{K: kr.CurrentID(), C: base64.StdEncoding.EncodeToString([]byte(c.Cursor)), P: c.Principal,
		N: c.Tenant, F: hex.EncodeToString(c.FilterHash[:]), E: c.Expires, S: c.TotalSize})
	_, sum := kr.Sign(body)
	return "pw2." + base64.StdEncoding.EncodeToString(body) + "." + hex.EncodeToString(sum)
}

func (jsonCodec) Decode(tok string, kr *KeyRing, now int64) (Claims, *Error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] != "pw2" {
		return Claims{}, errMalformed
	}
	body, err1 := canonical(base64.StdEncoding.Strict(), parts[1])
	sum, err2 := hex.DecodeString(parts[2])
	if err1 != nil || err2 != nil || hex.EncodeToString(sum) != parts[2] {
		return Claims{}, errMalformed
	}
	var jc jsonClaims
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jc); err != nil {
		return Claims{}, errMalformed
	}
	return verifiedClaims(kr.check(jc.K, body, sum, now), func() (Claims, bool) {
		cur, err := canonical(base64.StdEncoding.Strict(), jc.C)
		fh, err2 := hex.DecodeString(jc.F)
		if err != nil || err2 != nil || len(fh) != 16 || jc.S < 0 {
			return Claims{}, false
		}
		c := Claims{KeyID: jc.K, Cursor: string(cur), Principal: jc.P, Tenant: jc.N, Expires: jc.E, TotalSize: jc.S}
		copy(c.FilterHash[:], fh)
		return c, true
	}, now)
}

// ---- access policies ----

// unboundPrincipal checks a token as if the caller had been issued it: the
// caller's own scope still applies.
type unboundPrincipal struct{ accessPolicy }

func (a unboundPrincipal) admit(c Claims, w walkKey, now int64) (Claims, *Error) {
	c.Principal = w.principal
	return a.accessPolicy.admit(c, w, now)
}

// leakPrincipal accepts a token from any principal and goes on listing the
// tasks of the principal it was issued to.
type leakPrincipal struct{ accessPolicy }

func (a leakPrincipal) admit(c Claims, w walkKey, now int64) (Claims, *Error) {
	issuedTo := c.Principal
	c.Principal = w.principal
	c, e := a.accessPolicy.admit(c, w, now)
	c.Principal = issuedTo
	return c, e
}

// unboundFilters ignores the filter set a token was issued for.
type unboundFilters struct{ accessPolicy }

func (a unboundFilters) admit(c Claims, w walkKey, now int64) (Claims, *Error) {
	c.FilterHash = w.filterHash
	return a.accessPolicy.admit(c, w, now)
}

// noExpiry ignores a token's expiry.
type noExpiry struct{ accessPolicy }

func (a noExpiry) admit(c Claims, w walkKey, now int64) (Claims, *Error) {
	c.Expires = math.MaxInt64
	return a.accessPolicy.admit(c, w, now)
}

// getTaskCrossPrincipal lets GetTask read any task of any principal.
type getTaskCrossPrincipal struct{ accessPolicy }

func (getTaskCrossPrincipal) getScope(string, string) scope { return anyScope }

// unscopedList lists every task of the tenant, whoever owns it.
type unscopedList struct{ accessPolicy }

func (unscopedList) listScope(_, tenant string) scope {
	return scope{cond: "tenant = ?", args: []any{tenant}}
}

// unscopedTenant lists the owner's tasks of every tenant, and accepts a
// token issued under another tenant.
type unscopedTenant struct{ accessPolicy }

func (unscopedTenant) listScope(owner, _ string) scope {
	return scope{cond: "owner = ?", args: []any{owner}}
}

func (a unscopedTenant) admit(c Claims, w walkKey, now int64) (Claims, *Error) {
	c.Tenant = w.tenant
	return a.accessPolicy.admit(c, w, now)
}

// ---- parameter policies ----

// negativeHistoryAccepted takes a negative historyLength as unset.
type negativeHistoryAccepted struct{ paramPolicy }

func (p negativeHistoryAccepted) historyLength(n int64, set bool) (int, bool, string) {
	if set && n < 0 {
		return 0, false, ""
	}
	return p.paramPolicy.historyLength(n, set)
}

// pageSizeUnchecked serves any pageSize; a negative one as 0.
type pageSizeUnchecked struct{ paramPolicy }

func (p pageSizeUnchecked) pageSize(n int64, set bool) (int, string) {
	if !set {
		return p.paramPolicy.pageSize(n, set)
	}
	return int(max(n, 0)), ""
}

// pageSizeZeroAsDefault takes an explicit pageSize 0 as unset.
type pageSizeZeroAsDefault struct{ paramPolicy }

func (p pageSizeZeroAsDefault) pageSize(n int64, set bool) (int, string) {
	return p.paramPolicy.pageSize(n, set && n != 0)
}

// defaultPageSize100 serves 100 tasks when pageSize is unset.
type defaultPageSize100 struct{ paramPolicy }

func (p defaultPageSize100) pageSize(n int64, set bool) (int, string) {
	if !set {
		return MaxPageSize, ""
	}
	return p.paramPolicy.pageSize(n, set)
}

// filterIgnoredOnHTTP drops the contextId and status filters on HTTP+JSON.
type filterIgnoredOnHTTP struct{ paramPolicy }

func (p filterIgnoredOnHTTP) listFilters(binding string, lp *ListParams) {
	p.paramPolicy.listFilters(binding, lp)
	if binding == "http" {
		lp.ContextID, lp.Status = "", StateUnspecified
	}
}

// ---- response rewriters ----

// reversedPage serves each page's rows in reverse order.
type reversedPage struct{ responseRewriter }

func (r reversedPage) list(resp *ListTasksResponse) any {
	for i, j := 0, len(resp.Tasks)-1; i < j; i, j = i+1, j-1 {
		resp.Tasks[i], resp.Tasks[j] = resp.Tasks[j], resp.Tasks[i]
	}
	return r.responseRewriter.list(resp)
}

// lastTokenAs writes the last page's nextPageToken as null (null true) or
// leaves it out.
type lastTokenAs struct {
	responseRewriter
	null bool
}

func (r lastTokenAs) list(resp *ListTasksResponse) any {
	v := r.responseRewriter.list(resp)
	if resp.NextPageToken != "" {
		return v
	}
	m := wireMap(v)
	if r.null {
		m["nextPageToken"] = nil
	} else {
		delete(m, "nextPageToken")
	}
	return m
}

// tasksNullWhenEmpty writes tasks as null when nothing matches.
type tasksNullWhenEmpty struct{ responseRewriter }

func (r tasksNullWhenEmpty) list(resp *ListTasksResponse) any {
	v := r.responseRewriter.list(resp)
	if len(resp.Tasks) > 0 {
		return v
	}
	m := wireMap(v)
	m["tasks"] = nil
	return m
}

// wireMap turns a ListTasks result into a map whose fields a rewriter can
// drop or null.
func wireMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	r := v.(*ListTasksResponse)
	return map[string]any{"tasks": r.Tasks, "nextPageToken": r.NextPageToken, "pageSize": r.PageSize, "totalSize": r.TotalSize}
}

// totalSizeWrong reports one task more than match.
type totalSizeWrong struct{ responseRewriter }

func (r totalSizeWrong) list(resp *ListTasksResponse) any {
	resp.TotalSize++
	return r.responseRewriter.list(resp)
}

// artifactsEmptyArray writes artifacts as [] where they were left out.
type artifactsEmptyArray struct{ responseRewriter }

func (r artifactsEmptyArray) list(resp *ListTasksResponse) any {
	for i := range resp.Tasks {
		if resp.Tasks[i].Artifacts == nil {
			resp.Tasks[i].Artifacts = &[]Artifact{}
		}
	}
	return r.responseRewriter.list(resp)
}

// artifactsByDefault renders artifacts whether or not they were asked for.
type artifactsByDefault struct{ responseRewriter }

func (r artifactsByDefault) view(v taskView) taskView {
	v = r.responseRewriter.view(v)
	v.artifacts = true
	return v
}

// historyIgnored renders the whole history whatever historyLength says.
type historyIgnored struct{ responseRewriter }

func (r historyIgnored) view(v taskView) taskView {
	v = r.responseRewriter.view(v)
	v.history = -1
	return v
}

// recodeError answers errors of one kind with another JSON-RPC code
// (wrong-error-code: invalid params as -32600; rpc-unknown-method-
// invalid-request: method not found as -32600).
type recodeError struct {
	responseRewriter
	kind ErrorKind
	code int
}

func (r recodeError) err(e *Error) *Error {
	e = r.responseRewriter.err(e)
	if e.Kind != r.kind {
		return e
	}
	c := *e
	c.Code = r.code
	return &c
}

// ---- key policies ----

// noKeyOverlap stops a retired key from verifying at once.
type noKeyOverlap struct{ keyPolicy }

func (noKeyOverlap) grace(int64) int64 { return 0 }

// ephemeralKeys keeps the signing keys in memory only.
type ephemeralKeys struct{ keyPolicy }

func (ephemeralKeys) store(KeyStore) KeyStore { return memKeyStore{} }
