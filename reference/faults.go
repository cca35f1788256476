package reference

import (
	"fmt"
	"sort"
	"strings"
)

// Fault names a known-broken (or known-legal) variant of the reference
// server. Each illegal fault breaks exactly one rule; the legal variants
// change behaviour the spec leaves open and must pass every check.
//
// Adding a fault means adding one entry to faultTable (and, if no existing
// switch fits, one switch to behaviour and the code that reads it), plus
// one row of expectations in the kill matrix.
type Fault string

// FaultInfo describes one fault mode.
type FaultInfo struct {
	Name    Fault
	Summary string
	// Legal is true for variants the spec allows; they must not Fail.
	Legal bool
	apply func(*behaviour)
}

// behaviour is the set of switches that fault modes turn. The zero value is
// the clean reference.
type behaviour struct {
	// cursor and order
	offsetCursor, timestampOnlyCursor, ascending, unsortedPage bool
	// tokens
	codec                                          tokenCodec
	unboundPrincipal, leakPrincipal, unboundFilter bool
	noExpiry, expiredEmptyPage                     bool
	noKeyOverlap, ephemeralKeys                    bool
	// the last page
	missingNextToken, nullNextToken, earlyEmptyToken bool
	// artifacts and history
	artifactsEmptyArray, artifactsByDefault, historyIgnored, negativeHistoryAccepted bool
	// page size and totals
	pageSizeUnchecked, pageSizeZeroAsDefault, totalSizeWrong, tasksNullWhenEmpty bool
	defaultPageSize100                                                           bool
	// filters, scope and errors
	exclusiveAfter, wrongErrorCode, getTaskCrossPrincipal, filterIgnoredOnHTTP bool
	unscopedList, unscopedTenant                                               bool
	// legal variants
	shortPages, tieAscending bool
}

var faultTable = []FaultInfo{
	// Cursor and order.
	{Name: "offset-cursor", Summary: "pages by OFFSET behind an opaque token instead of a keyset",
		apply: func(b *behaviour) { b.offsetCursor = true }},
	{Name: "timestamp-only-cursor", Summary: "the cursor holds the status timestamp only, so ties at a page boundary are skipped",
		apply: func(b *behaviour) { b.timestampOnlyCursor = true }},
	{Name: "ascending-order", Summary: "sorts oldest first",
		apply: func(b *behaviour) { b.ascending = true }},
	{Name: "unsorted-page", Summary: "serves the right rows per page but in shuffled order within the page",
		apply: func(b *behaviour) { b.unsortedPage = true }},
	// Token binding and signing.
	{Name: "unsigned-token", Summary: "tokens carry no signature, so edited tokens are accepted",
		apply: func(b *behaviour) { b.codec = binaryCodec{unsigned: true} }},
	{Name: "unbound-principal", Summary: "a token issued to one principal is accepted from another (whose own scope still applies)",
		apply: func(b *behaviour) { b.unboundPrincipal = true }},
	{Name: "leak-principal", Summary: "a token issued to A, replayed by B, lists A's tasks to B",
		apply: func(b *behaviour) { b.unboundPrincipal, b.leakPrincipal = true, true }},
	{Name: "unbound-filters", Summary: "a token is accepted with a different filter set than it was issued for",
		apply: func(b *behaviour) { b.unboundFilter = true }},
	{Name: "no-key-overlap", Summary: "rotating the signing key invalidates every outstanding token at once",
		apply: func(b *behaviour) { b.noKeyOverlap = true }},
	{Name: "ephemeral-keys", Summary: "signing keys are not persisted, so a restart invalidates every outstanding token",
		apply: func(b *behaviour) { b.ephemeralKeys = true }},
	// Expiry.
	{Name: "no-expiry", Summary: "tokens never expire",
		apply: func(b *behaviour) { b.noExpiry = true }},
	{Name: "expired-empty-page", Summary: "an expired token gets an empty success page instead of an error",
		apply: func(b *behaviour) { b.expiredEmptyPage = true }},
	// The last page.
	{Name: "missing-next-token", Summary: "nextPageToken is absent on the last page",
		apply: func(b *behaviour) { b.missingNextToken = true }},
	{Name: "null-next-token", Summary: "nextPageToken is null on the last page",
		apply: func(b *behaviour) { b.nullNextToken = true }},
	{Name: "early-empty-token", Summary: "the page before the last comes back short with nextPageToken \"\", so the walk ends early",
		apply: func(b *behaviour) { b.earlyEmptyToken = true }},
	// Artifacts and history.
	{Name: "artifacts-empty-array", Summary: "without includeArtifacts, artifacts is written as [] instead of omitted",
		apply: func(b *behaviour) { b.artifactsEmptyArray = true }},
	{Name: "artifacts-by-default", Summary: "artifacts are included even when includeArtifacts is false",
		apply: func(b *behaviour) { b.artifactsByDefault = true }},
	{Name: "history-ignored", Summary: "historyLength is ignored: the whole history is always returned",
		apply: func(b *behaviour) { b.historyIgnored = true }},
	{Name: "negative-history-accepted", Summary: "a negative historyLength is accepted as unset",
		apply: func(b *behaviour) { b.negativeHistoryAccepted = true }},
	// Page size and totals.
	{Name: "pagesize-unchecked", Summary: "pageSize is not validated: 0, negative and over-100 values are served",
		apply: func(b *behaviour) { b.pageSizeUnchecked = true }},
	{Name: "pagesize-zero-as-default", Summary: "an explicit pageSize 0 is treated as unset (50)",
		apply: func(b *behaviour) { b.pageSizeZeroAsDefault = true }},
	{Name: "wrong-default-page-size", Summary: "an unset pageSize serves 100 tasks instead of at most 50",
		apply: func(b *behaviour) { b.defaultPageSize100 = true }},
	{Name: "total-size-wrong", Summary: "totalSize is one more than the number of matching tasks",
		apply: func(b *behaviour) { b.totalSizeWrong = true }},
	{Name: "tasks-null-when-empty", Summary: "tasks is null instead of [] when nothing matches",
		apply: func(b *behaviour) { b.tasksNullWhenEmpty = true }},
	// Filters, scope and errors.
	{Name: "exclusive-timestamp-after", Summary: "statusTimestampAfter is exclusive (>) instead of the proto's >=",
		apply: func(b *behaviour) { b.exclusiveAfter = true }},
	{Name: "wrong-error-code", Summary: "invalid params are answered with JSON-RPC -32600 instead of -32602",
		apply: func(b *behaviour) { b.wrongErrorCode = true }},
	{Name: "gettask-cross-principal", Summary: "GetTask returns another principal's task",
		apply: func(b *behaviour) { b.getTaskCrossPrincipal = true }},
	{Name: "filter-ignored-on-http", Summary: "the contextId and status filters work on JSON-RPC but are dropped on HTTP+JSON",
		apply: func(b *behaviour) { b.filterIgnoredOnHTTP = true }},
	{Name: "unscoped-list", Summary: "ListTasks ignores the owner: every principal lists every task of the tenant",
		apply: func(b *behaviour) { b.unscopedList = true }},
	{Name: "unscoped-tenant", Summary: "ListTasks ignores the tenant: a principal lists its tasks of every tenant",
		apply: func(b *behaviour) { b.unscopedTenant = true }},
	// Legal variants.
	{Name: "short-pages", Legal: true, Summary: "pages are randomly shorter than pageSize, but the walk is complete and correct",
		apply: func(b *behaviour) { b.shortPages = true }},
	{Name: "opaque-token-format", Legal: true, Summary: "tokens use a different (JSON, dotted, hex-signed) encoding, still signed and bound",
		apply: func(b *behaviour) { b.codec = jsonCodec{} }},
	{Name: "tie-break-ascending", Legal: true, Summary: "tasks with tied timestamps are ordered by id ascending (a different, consistent tie-break)",
		apply: func(b *behaviour) { b.tieAscending = true }},
}

// Faults lists every fault mode, illegal first, in a stable order.
func Faults() []FaultInfo {
	out := append([]FaultInfo(nil), faultTable...)
	sort.SliceStable(out, func(i, j int) bool { return !out[i].Legal && out[j].Legal })
	return out
}

// LookupFault returns the fault named name.
func LookupFault(name string) (FaultInfo, bool) {
	for _, f := range faultTable {
		if string(f.Name) == name {
			return f, true
		}
	}
	return FaultInfo{}, false
}

// FaultNames returns the names of all faults, comma-separated, for help text
// and error messages.
func FaultNames() string {
	var names []string
	for _, f := range faultTable {
		names = append(names, string(f.Name))
	}
	return strings.Join(names, ", ")
}

func newBehaviour(faults []Fault) (*behaviour, error) {
	b := &behaviour{codec: binaryCodec{}}
	for _, name := range faults {
		f, ok := LookupFault(string(name))
		if !ok {
			return nil, fmt.Errorf("--fault: unknown fault %q; known faults: %s", name, FaultNames())
		}
		f.apply(b)
	}
	return b, nil
}
