package scenarios

import (
	"fmt"
	"sort"
	"strings"
)

// Level is the strength of the rule a scenario checks.
type Level string

// The levels, in the spec's words.
const (
	MUST     Level = "MUST"
	SHOULD   Level = "SHOULD"
	Hardened Level = "hardened"
)

// Capability is something a scenario needs from the target beyond plain
// A2A.
type Capability string

// The capabilities scenarios can need.
const (
	// NeedControl: the control API of docs/control-api.md (seed, move,
	// clock, reset).
	NeedControl Capability = "control"
	// NeedSecondPrincipal: a second --principal.
	NeedSecondPrincipal Capability = "second-principal"
	// NeedTokenTTL: a known page-token lifetime (control info or --token-ttl)
	// and a controllable clock.
	NeedTokenTTL Capability = "token-ttl"
	// NeedRestart: the harness can restart the server (the container or
	// in-process launcher).
	NeedRestart Capability = "restart"
	// NeedBothBindings: the card declares JSON-RPC and HTTP+JSON.
	NeedBothBindings Capability = "both-bindings"
	// NeedTenant: a second tenant (--other-tenant) whose boundary the server
	// enforces.
	NeedTenant Capability = "tenant"
	// NeedWaitableTTL: a known page-token lifetime (--token-ttl) short
	// enough to wait out in real time within --max-wait.
	NeedWaitableTTL Capability = "waitable-token-ttl"
)

// howToProvide tells the user how to supply a missing capability.
var howToProvide = map[Capability]string{
	NeedControl:         "give --control URL --control-token T (docs/control-api.md) or use a server whose Agent Card declares the control extension",
	NeedSecondPrincipal: "give a second --principal NAME=TOKEN",
	NeedTokenTTL:        "give --token-ttl or a control API that reports tokenTtlSeconds, plus a controllable clock",
	NeedRestart:         "run against the built-in reference (--target builtin, or the suites launcher), which can restart the server",
	NeedBothBindings:    "the Agent Card must declare both JSONRPC and HTTP+JSON 1.0 interfaces",
	NeedTenant:          "give --other-tenant T, a second tenant the principal may use and the server scopes separately",
	NeedWaitableTTL:     "give --token-ttl D (the server's page-token lifetime), with D plus a margin within --max-wait, to wait it out in real time",
}

// Scenario is one conformance case.
type Scenario struct {
	// ID is stable and never positional, e.g. LT-TIE-BOUNDARY.
	ID    string
	Title string
	// Area is the spec area (one file per area).
	Area string
	// Reqs are requirement IDs from a2a-listtasks-requirements.md.
	Reqs  []string
	Level Level
	// Quote is the spec sentence the case rests on.
	Quote string
	// Needs lists what Run needs; BlackBox, if set, is a variant that needs
	// only BlackBoxNeeds (it creates tasks with SendMessage and moves them
	// with CancelTask or follow-up messages).
	Needs         []Capability
	Run           func(e *Env)
	BlackBox      func(e *Env)
	BlackBoxNeeds []Capability
	// CrossBinding scenarios run once, over both bindings, instead of once
	// per binding.
	CrossBinding bool
	// Checker names the pure function that judges the transcript (for the
	// golden list and the unit tests).
	Checker string
}

var registry = map[string]*Scenario{}

// Register adds a scenario; IDs must be unique.
func Register(s Scenario) *Scenario {
	if s.ID == "" || s.Title == "" || s.Area == "" || len(s.Reqs) == 0 || s.Quote == "" || s.Run == nil || s.Checker == "" {
		panic(fmt.Sprintf("scenarios: %q is missing a field", s.ID))
	}
	if _, dup := registry[s.ID]; dup {
		panic("scenarios: duplicate ID " + s.ID)
	}
	if s.Level != MUST && s.Level != SHOULD && s.Level != Hardened {
		panic("scenarios: bad level for " + s.ID)
	}
	registry[s.ID] = &s
	return &s
}

// areaOrder is the order areas are listed in.
var areaOrder = []string{"walk", "ties", "moving", "tokens", "params", "filters", "scoping", "errors",
	"card", "protocol", "envelope", "json", "shape", "auth"}

// All returns every scenario, by area then ID.
func All() []*Scenario {
	rank := map[string]int{}
	for i, a := range areaOrder {
		rank[a] = i
	}
	out := make([]*Scenario, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if rank[out[i].Area] != rank[out[j].Area] {
			return rank[out[i].Area] < rank[out[j].Area]
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Lookup returns the scenario with the given ID.
func Lookup(id string) (*Scenario, bool) {
	s, ok := registry[id]
	return s, ok
}

// IDs returns all scenario IDs, comma-separated, for error messages.
func IDs() string {
	var ids []string
	for _, s := range All() {
		ids = append(ids, s.ID)
	}
	return strings.Join(ids, ", ")
}
