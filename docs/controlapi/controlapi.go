// Package controlapi is the contract of pagewalk's test-only control API,
// which docs/control-api.md documents: its paths, and the JSON request and
// reply types of every endpoint. Nothing else.
//
// It sits beside that document, outside both sides, because both sides
// import it: the reference server (reference/) implements the endpoints and
// the harness (scenarios/a2aclient) calls them. It imports nothing of
// pagewalk, so the harness still judges the reference only over the wire,
// and the reference still knows nothing of the harness.
package controlapi

// ExtensionURI identifies the control API in an Agent Card's
// capabilities.extensions; the extension's params.url is its base URL.
const ExtensionURI = "https://github.com/pagewalk/pagewalk/blob/main/docs/control-api.md"

// Paths, relative to the control API's base URL.
const (
	PathInfo   = "/info"
	PathSeed   = "/seed"
	PathClock  = "/clock"
	PathReset  = "/reset"
	PathRotate = "/keys:rotate"
	// PathMovePrefix and PathMoveSuffix surround a task id:
	// POST /tasks/{id}:move.
	PathMovePrefix = "/tasks/"
	PathMoveSuffix = ":move"
)

// Seed limits of one request.
const (
	MaxSeedTasks     = 1_000_000
	MaxSeedHistory   = 1000
	MaxSeedArtifacts = 100
)

// Info is the reply of GET /info.
type Info struct {
	// TokenTTLSeconds is the page-token lifetime.
	TokenTTLSeconds int64    `json:"tokenTtlSeconds"`
	Principals      []string `json:"principals"`
	DefaultPageSize int      `json:"defaultPageSize,omitempty"`
	MaxPageSize     int      `json:"maxPageSize,omitempty"`
	// UnscopedReset is true when POST /reset may delete the whole store
	// (the server was started to allow it); otherwise a reset must name
	// what it deletes.
	UnscopedReset bool `json:"unscopedReset,omitempty"`
}

// SeedRequest is the body of POST /seed: explicit tasks, generated tasks,
// or both, inserted in one transaction.
type SeedRequest struct {
	Tasks    []SeedTask `json:"tasks,omitempty"`
	Generate *Generate  `json:"generate,omitempty"`
}

// SeedTask is one explicitly described task. ID, Owner (a principal name)
// and State (a TaskState name other than TASK_STATE_UNSPECIFIED) are
// required. Give the timestamp as TimestampMicros or Timestamp (RFC 3339),
// not both; without either the task takes the server clock's now.
type SeedTask struct {
	ID              string `json:"id"`
	Owner           string `json:"owner"`
	Tenant          string `json:"tenant,omitempty"`
	ContextID       string `json:"contextId,omitempty"`
	State           string `json:"state"`
	TimestampMicros *int64 `json:"timestampMicros,omitempty"`
	Timestamp       string `json:"timestamp,omitempty"`
	// HistoryMessages generates messages <id>-m1 ... <id>-mN, oldest
	// first, alternating ROLE_USER and ROLE_AGENT.
	HistoryMessages int `json:"historyMessages,omitempty"`
	// Artifacts generates artifacts <id>-a1 ... <id>-aN.
	Artifacts int `json:"artifacts,omitempty"`
}

// Generate asks for Count generated tasks: task i has id IDPrefix plus an
// 8-digit index, context ContextIDs[i%len], state States[i%len] and
// timestamp StartMicros + i*StepMicros (defaults: now and -1000).
type Generate struct {
	Count           int      `json:"count"`
	Owner           string   `json:"owner"`
	Tenant          string   `json:"tenant,omitempty"`
	IDPrefix        string   `json:"idPrefix,omitempty"`
	ContextIDs      []string `json:"contextIds,omitempty"`
	States          []string `json:"states,omitempty"`
	StartMicros     *int64   `json:"startMicros,omitempty"`
	StepMicros      *int64   `json:"stepMicros,omitempty"`
	HistoryMessages int      `json:"historyMessages,omitempty"`
	Artifacts       int      `json:"artifacts,omitempty"`
}

// SeedReply is the reply of POST /seed.
type SeedReply struct {
	Inserted   int   `json:"inserted"`
	TookMicros int64 `json:"tookMicros"`
}

// MoveRequest is the body of POST /tasks/{id}:move. Both fields are
// optional; without a timestamp the task takes the server clock's now.
type MoveRequest struct {
	State           string `json:"state,omitempty"`
	TimestampMicros *int64 `json:"timestampMicros,omitempty"`
	Timestamp       string `json:"timestamp,omitempty"`
}

// MoveReply is the reply of POST /tasks/{id}:move.
type MoveReply struct {
	ID              string `json:"id"`
	State           string `json:"state"`
	Timestamp       string `json:"timestamp"`
	TimestampMicros int64  `json:"timestampMicros"`
}

// ClockRequest is the body of POST /clock. Set (NowMicros or Now) freezes
// the clock at that instant; Advance moves it; Run unfreezes it; Reset
// returns it to unshifted real time.
type ClockRequest struct {
	NowMicros     *int64 `json:"nowMicros,omitempty"`
	Now           string `json:"now,omitempty"`
	AdvanceMicros *int64 `json:"advanceMicros,omitempty"`
	Advance       string `json:"advance,omitempty"`
	Run           bool   `json:"run,omitempty"`
	Reset         bool   `json:"reset,omitempty"`
}

// Clock is the reply of GET and POST /clock.
type Clock struct {
	NowMicros int64  `json:"nowMicros"`
	Now       string `json:"now"`
	Frozen    bool   `json:"frozen"`
}

// ResetRequest is the body of POST /reset. It deletes the tasks (with
// their messages and artifacts) whose id starts with IDPrefix or whose
// context is one of ContextIDs: data the caller created. All deletes the
// whole store, and only a server started to allow it accepts it.
type ResetRequest struct {
	IDPrefix   string   `json:"idPrefix,omitempty"`
	ContextIDs []string `json:"contextIds,omitempty"`
	All        bool     `json:"all,omitempty"`
}

// ResetReply is the reply of POST /reset.
type ResetReply struct {
	Deleted int `json:"deleted"`
}

// RotateReply is the reply of POST /keys:rotate.
type RotateReply struct {
	CurrentKeyID uint32 `json:"currentKeyId"`
}
