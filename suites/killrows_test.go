package suites

// The kill matrix's rows: one per fault mode of the reference. Each names
// the case or cases that must kill it and the requirement each must report
// (a finding above Info whose first requirement is that one), with the
// control API and without it. Adding a fault mode adds one row here.

// kill is one (case, requirement) a mutant must be killed by.
type kill struct{ Case, Req string }

func k(c, req string) kill { return kill{c, req} }

// killRow is one row of expectations.
type killRow struct {
	Fault string
	// Kills are required with the control API, in the hardened profile;
	// in the default profile too unless HardenedOnly says why not.
	Kills []kill
	// HardenedOnly says why the default profile cannot kill the mutant
	// (its rule is a hardened practice); "" means it must.
	HardenedOnly string
	// BlackBox are required without the control API (existing data
	// preseeded, two principals); NotBlackBox says why the fault cannot be
	// seen that way when BlackBox is empty.
	BlackBox    []kill
	NotBlackBox string
	// Legal variants must get no finding above Info in any case, in any
	// column.
	Legal bool
	// PerfOnly rows break no rule a conformance case can see, only the cost
	// of a page: like a legal variant they must get no finding above Info
	// (their answers are exactly right), and KilledBy says what kills them
	// instead.
	PerfOnly bool
	KilledBy string
	// Container rows run the fault in the reference container instead of
	// in process, so the matrix exercises both launchers.
	Container bool
	// CardTenant makes the reference's Agent Card declare a tenant: the
	// tenant is then a boundary the spec holds the server to.
	CardTenant bool
	// Also explains each other case that reports a finding above Info
	// under this fault in a control-API column: case -> why the fault
	// breaks a second requirement that case owns. One defect, one finding:
	// a case that merely sees the owner's defect through its own data must
	// say what it could not judge instead, so TestKillMatrix fails on an
	// also-case the row does not explain.
	Also map[string]string
}

const hardenedPractice = "hardened practice only: the spec is silent, the seed's rule is judged with --profile hardened"

var killRows = []killRow{
	{Fault: "offset-cursor",
		Kills:    []kill{k("LT-MOVE-INSERT-HEAD", "LT-OP-4"), k("LT-MOVE-BEHIND", "LT-OP-4"), k("LT-MOVE-AHEAD", "LT-OP-4")},
		BlackBox: []kill{k("LT-MOVE-INSERT-HEAD", "LT-OP-4"), k("LT-MOVE-BEHIND", "LT-OP-4")}},
	{Fault: "timestamp-only-cursor", HardenedOnly: hardenedPractice,
		Kills:    []kill{k("LT-TIE-BOUNDARY", "LT-SEED-2")},
		BlackBox: []kill{k("LT-TIE-BOUNDARY", "LT-SEED-2")}},
	{Fault: "ascending-order",
		Kills:    []kill{k("LT-WALK-ORDER", "LT-ORDER-2")},
		BlackBox: []kill{k("LT-WALK-ORDER", "LT-ORDER-2")}},
	{Fault: "unsorted-page",
		Kills:    []kill{k("LT-WALK-ORDER", "LT-ORDER-2")},
		BlackBox: []kill{k("LT-WALK-ORDER", "LT-ORDER-2")}},
	{Fault: "unsigned-token", HardenedOnly: hardenedPractice,
		Kills:    []kill{k("LT-TOKEN-TAMPER", "LT-SEED-3")},
		BlackBox: []kill{k("LT-TOKEN-TAMPER", "LT-SEED-3")}},
	{Fault: "unbound-principal", HardenedOnly: hardenedPractice,
		Kills:    []kill{k("LT-TOKEN-REPLAY-PRINCIPAL", "LT-SEED-3")},
		BlackBox: []kill{k("LT-TOKEN-REPLAY-PRINCIPAL", "LT-SEED-3")}},
	{Fault: "leak-principal", Container: true,
		Kills:    []kill{k("LT-TOKEN-REPLAY-PRINCIPAL", "LT-AUTHZ-1")},
		BlackBox: []kill{k("LT-TOKEN-REPLAY-PRINCIPAL", "LT-AUTHZ-1")}},
	{Fault: "unbound-filters", HardenedOnly: hardenedPractice,
		Kills:    []kill{k("LT-TOKEN-REPLAY-FILTER", "LT-SEED-4")},
		BlackBox: []kill{k("LT-TOKEN-REPLAY-FILTER", "LT-SEED-4")}},
	{Fault: "no-key-overlap", HardenedOnly: hardenedPractice,
		Kills:       []kill{k("LT-TOKEN-ROTATION", "LT-SEED-3")},
		NotBlackBox: "needs a signing-key rotation, which only the control API can trigger"},
	{Fault: "ephemeral-keys", Container: true, HardenedOnly: hardenedPractice,
		Kills:       []kill{k("LT-TOKEN-RESTART", "LT-SEED-3")},
		NotBlackBox: "needs a server restart mid-walk, which only a launcher can do"},
	{Fault: "no-expiry", HardenedOnly: hardenedPractice,
		Kills:    []kill{k("LT-TOKEN-EXPIRED", "LT-SEED-3")},
		BlackBox: []kill{k("LT-TOKEN-EXPIRED", "LT-SEED-3")}},
	{Fault: "expired-empty-page", HardenedOnly: hardenedPractice,
		Kills:    []kill{k("LT-TOKEN-EXPIRED", "LT-SEED-4")},
		BlackBox: []kill{k("LT-TOKEN-EXPIRED", "LT-SEED-4")}},
	{Fault: "missing-next-token",
		Kills:    []kill{k("LT-WALK-LAST-PAGE", "LT-RESP-2")},
		BlackBox: []kill{k("LT-WALK-LAST-PAGE", "LT-RESP-2")}},
	{Fault: "null-next-token",
		Kills:    []kill{k("LT-WALK-LAST-PAGE", "LT-RESP-2")},
		BlackBox: []kill{k("LT-WALK-LAST-PAGE", "LT-RESP-2")}},
	{Fault: "early-empty-token",
		Kills:    []kill{k("LT-WALK-LAST-PAGE", "LT-RESP-3")},
		BlackBox: []kill{k("LT-WALK-LAST-PAGE", "LT-RESP-3")}},
	{Fault: "artifacts-empty-array",
		Kills:    []kill{k("LT-ARTIFACTS-OMIT", "LT-ART-2")},
		BlackBox: []kill{k("LT-ARTIFACTS-OMIT", "LT-ART-2")}},
	{Fault: "artifacts-by-default",
		Kills:    []kill{k("LT-ARTIFACTS-OMIT", "LT-ART-1")},
		BlackBox: []kill{k("LT-ARTIFACTS-OMIT", "LT-ART-1")}},
	{Fault: "history-ignored",
		Kills:    []kill{k("LT-HISTORY-GET", "LT-HIST-5"), k("LT-HISTORY-LIST", "LT-HIST-4")},
		BlackBox: []kill{k("LT-HISTORY-GET", "LT-HIST-5"), k("LT-HISTORY-LIST", "LT-HIST-4")}},
	{Fault: "negative-history-accepted",
		Kills:    []kill{k("LT-HISTORY-LIST", "LT-HIST-6"), k("LT-HISTORY-GET", "LT-HIST-6")},
		BlackBox: []kill{k("LT-HISTORY-LIST", "LT-HIST-6"), k("LT-HISTORY-GET", "LT-HIST-6")}},
	{Fault: "pagesize-unchecked",
		Kills:    []kill{k("LT-PAGESIZE-BOUNDS", "LT-ERR-1")},
		BlackBox: []kill{k("LT-PAGESIZE-BOUNDS", "LT-ERR-1")}},
	{Fault: "pagesize-zero-as-default",
		Kills:    []kill{k("LT-PAGESIZE-BOUNDS", "LT-REQ-4")},
		BlackBox: []kill{k("LT-PAGESIZE-BOUNDS", "LT-REQ-4")}},
	{Fault: "wrong-default-page-size",
		Kills:    []kill{k("LT-PAGESIZE-DEFAULT", "LT-REQ-4")},
		BlackBox: []kill{k("LT-PAGESIZE-DEFAULT", "LT-REQ-4")}},
	{Fault: "total-size-wrong",
		Kills:    []kill{k("LT-TOTALSIZE", "LT-RESP-6"), k("LT-WALK-EMPTY", "LT-RESP-6")},
		BlackBox: []kill{k("LT-TOTALSIZE", "LT-RESP-6"), k("LT-WALK-EMPTY", "LT-RESP-6")}},
	{Fault: "tasks-null-when-empty",
		Kills:    []kill{k("LT-WALK-EMPTY", "LT-RESP-1")},
		BlackBox: []kill{k("LT-WALK-EMPTY", "LT-RESP-1")}},
	{Fault: "exclusive-timestamp-after",
		Kills:    []kill{k("LT-FILTER-TSA", "LT-TSA-2")},
		BlackBox: []kill{k("LT-FILTER-TSA", "LT-TSA-2")}},
	{Fault: "wrong-error-code",
		Kills:    []kill{k("LT-ERR-ENVELOPE", "LT-ERR-2")},
		BlackBox: []kill{k("LT-ERR-ENVELOPE", "LT-ERR-2")}},
	{Fault: "gettask-cross-principal",
		Kills:    []kill{k("LT-SCOPE-GET", "LT-AUTHZ-6")},
		BlackBox: []kill{k("LT-SCOPE-GET", "LT-AUTHZ-6")}},
	{Fault: "filter-ignored-on-http",
		Kills:    []kill{k("LT-BINDING-CONSISTENT", "LT-OP-8"), k("LT-FILTER-CONTEXT", "LT-REQ-2")},
		BlackBox: []kill{k("LT-BINDING-CONSISTENT", "LT-OP-8"), k("LT-FILTER-CONTEXT", "LT-REQ-2")},
		Also:     map[string]string{"LT-FILTER-STATUS": "the status filter is dropped on HTTP+JSON too: its own requirement, LT-REQ-3"}},
	{Fault: "unscoped-list",
		Kills:    []kill{k("LT-SCOPE-LIST", "LT-AUTHZ-1")},
		BlackBox: []kill{k("LT-SCOPE-LIST", "LT-AUTHZ-1")}},
	{Fault: "unscoped-tenant", CardTenant: true,
		Kills:    []kill{k("LT-SCOPE-TENANT", "LT-AUTHZ-2")},
		BlackBox: []kill{k("LT-SCOPE-TENANT", "LT-AUTHZ-2")}},
	{Fault: "overlong-pages",
		Kills:    []kill{k("LT-PAGE-SHORT", "LT-REQ-4")},
		BlackBox: []kill{k("LT-PAGE-SHORT", "LT-REQ-4")}},
	{Fault: "page-overlap",
		Kills:    []kill{k("LT-WALK-EXACT", "LT-OP-4")},
		BlackBox: []kill{k("LT-WALK-EXACT", "LT-OP-4")}},
	{Fault: "no-total-size",
		Kills:    []kill{k("LT-WALK-SHAPE", "LT-RESP-7")},
		BlackBox: []kill{k("LT-WALK-SHAPE", "LT-RESP-7")}},
	{Fault: "unknown-token-restarts",
		Kills:    []kill{k("LT-TOKEN-GARBAGE", "LT-ERR-1")},
		BlackBox: []kill{k("LT-TOKEN-GARBAGE", "LT-ERR-1")}},
	{Fault: "filters-or",
		Kills:    []kill{k("LT-FILTER-COMBINED", "LT-REQ-2")},
		BlackBox: []kill{k("LT-FILTER-COMBINED", "LT-REQ-2")}},
	{Fault: "status-unvalidated",
		Kills:    []kill{k("LT-FILTER-INVALID", "LT-ERR-1")},
		BlackBox: []kill{k("LT-FILTER-INVALID", "LT-ERR-1")}},
	{Fault: "status-filter-ignored",
		Kills:    []kill{k("LT-FILTER-STATUS", "LT-REQ-3")},
		BlackBox: []kill{k("LT-FILTER-STATUS", "LT-REQ-3")}},
	{Fault: "pagesize-echo-count", HardenedOnly: hardenedPractice,
		Kills:    []kill{k("LT-PAGESIZE-ECHO", "LT-SEED-5")},
		BlackBox: []kill{k("LT-PAGESIZE-ECHO", "LT-SEED-5")}},
	{Fault: "list-completes-working",
		Kills:    []kill{k("LT-IDEMPOTENT", "LT-OP-7")},
		BlackBox: []kill{k("LT-IDEMPOTENT", "LT-OP-7")}},
	{Fault: "task-state-short-names",
		Kills:    []kill{k("LT-TASK-SHAPE", "LT-JSON-1")},
		BlackBox: []kill{k("LT-TASK-SHAPE", "LT-JSON-1")}},
	{Fault: "timestamp-centiseconds",
		Kills:    []kill{k("LT-JSON-TIMESTAMP", "LT-JSON-3")},
		BlackBox: []kill{k("LT-JSON-TIMESTAMP", "LT-JSON-3")}},
	{Fault: "tie-order-flips", HardenedOnly: hardenedPractice,
		Kills:    []kill{k("LT-TIE-BOUNDARY", "LT-SEED-2")},
		BlackBox: []kill{k("LT-TIE-BOUNDARY", "LT-SEED-2")}},
	{Fault: "store-scan", PerfOnly: true, KilledBy: "killed by pagewalk load --sizes (loadgen)"},
	{Fault: "short-pages", Legal: true},
	{Fault: "opaque-token-format", Legal: true},
	{Fault: "tie-break-ascending", Legal: true},
}
