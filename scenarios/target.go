package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Principal is a named identity and its bearer token.
type Principal = a2aclient.Principal

// Target is the server under test and what the harness may do with it.
type Target struct {
	HTTP *http.Client
	Card *a2aclient.Card
	// Bindings are the bindings to test (a subset of the card's).
	Bindings []a2aclient.Binding
	// Principals: the first is the main caller; the second, if any, is the
	// foreign principal for scoping and replay checks.
	Principals []Principal
	Tenant     string
	// OtherTenant is a second tenant the main principal may use, whose
	// tasks must not appear under Tenant (and vice versa).
	OtherTenant string
	Control     *a2aclient.Control
	// TokenTTL is the page-token lifetime, if known.
	TokenTTL time.Duration
	// Restart restarts the server and returns its (possibly new) card; nil
	// if the harness cannot restart the target.
	Restart func(ctx context.Context) (*a2aclient.Card, error)
	// BlackBoxText is the message text black-box variants send to create
	// tasks that stay non-terminal where the agent allows.
	BlackBoxText string
	// MaxWait is the one budget for real-time waits against a black-box
	// target (spacing probe tasks on a server with coarse timestamps,
	// waiting out a page token's lifetime). 0 means DefaultMaxWait.
	MaxWait time.Duration
	// ObserveTasks bounds the read-only walk of each principal's existing
	// tasks that black-box cases judge (0: no observe walk).
	ObserveTasks int
	// ProbeTasks is how many tasks black-box cases create in a fresh
	// context of their own (0: DefaultProbeTasks).
	ProbeTasks int
	// MaxPages, if positive, caps every walk of every case (each case has
	// its own cap; this one can only lower it).
	MaxPages int

	data *sharedData
}

// Defaults for the black-box data.
const (
	DefaultMaxWait      = 2 * time.Minute
	DefaultObserveTasks = 2000
	DefaultProbeTasks   = 30
)

// Has reports whether the target offers capability c.
func (t *Target) Has(c Capability) bool {
	switch c {
	case NeedControl:
		return t.Control != nil
	case NeedSecondPrincipal:
		return len(t.Principals) >= 2
	case NeedTokenTTL:
		return t.TokenTTL > 0 && t.Control != nil
	case NeedRestart:
		return t.Restart != nil
	case NeedBothBindings:
		_, j := t.Card.Interface(a2aclient.JSONRPC)
		_, h := t.Card.Interface(a2aclient.HTTPJSON)
		return j && h
	case NeedTenant:
		return t.OtherTenant != "" && t.OtherTenant != t.Tenant
	case NeedWaitableTTL:
		return t.TokenTTL > 0 && t.TokenTTL+expiryMargin(t.TokenTTL) <= t.MaxWait
	}
	return false
}

// Missing returns the first capability of needs the target lacks, with how
// to provide it.
func (t *Target) Missing(needs []Capability) (Capability, string) {
	for _, c := range needs {
		if !t.Has(c) {
			return c, howToProvide[c]
		}
	}
	return "", ""
}

// Client returns a client for principal i on binding b.
func (t *Target) Client(b a2aclient.Binding, i int, record func(*a2aclient.Exchange)) (*a2aclient.Client, error) {
	iface, ok := t.Card.Interface(b)
	if !ok {
		return nil, fmt.Errorf("the agent card declares no %s 1.0 interface", b)
	}
	if i >= len(t.Principals) {
		return nil, fmt.Errorf("no principal #%d", i+1)
	}
	p := t.Principals[i]
	return &a2aclient.Client{HTTP: t.HTTP, Iface: iface, Principal: p.Name, Token: p.Token, Tenant: t.Tenant, Record: record}, nil
}

// Prepare fills in what can be learned from the server: the token TTL and
// key rotation from the control API's info, when not given.
func (t *Target) Prepare(ctx context.Context) error {
	if t.HTTP == nil {
		// The bounded client: capped replies, no redirects, a timeout.
		t.HTTP = a2aclient.NewHTTPClient(a2aclient.HTTPOptions{})
	}
	if t.BlackBoxText == "" {
		t.BlackBoxText = "pagewalk conformance probe: keep working"
	}
	if t.Tenant == "" && len(t.Bindings) > 0 {
		// The card's tenant for the interface pagewalk speaks (LT-TEN-1).
		if i, ok := t.Card.Interface(t.Bindings[0]); ok {
			t.Tenant = i.Tenant
		}
	}
	if t.MaxWait <= 0 {
		t.MaxWait = DefaultMaxWait
	}
	if t.ProbeTasks <= 0 {
		t.ProbeTasks = DefaultProbeTasks
	}
	t.data = newSharedData(t.MaxWait)
	if t.Control != nil {
		if t.Control.HTTP == nil {
			t.Control.HTTP = t.HTTP
		}
		ttl, err := t.Control.TokenTTL(ctx)
		if err != nil {
			return fmt.Errorf("control API: %w", err)
		}
		if t.TokenTTL == 0 {
			t.TokenTTL = ttl
		}
	}
	return nil
}
