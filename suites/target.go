package suites

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/wire"
)

// TargetOptions describes an external target, as the check command's flags
// and the go test flags give it.
type TargetOptions struct {
	URL          string
	Principals   []scenarios.Principal
	Tenant       string
	OtherTenant  string
	ControlURL   string
	ControlToken string
	TokenTTL     time.Duration
	// Binding is "jsonrpc", "http" or "all" (default: all the card declares).
	Binding      string
	BlackBoxText string
	HTTP         *http.Client
}

// ParsePrincipals parses NAME=TOKEN values.
func ParsePrincipals(vals []string) ([]scenarios.Principal, error) {
	var out []scenarios.Principal
	seen := map[string]bool{}
	for _, v := range vals {
		name, tok, ok := strings.Cut(v, "=")
		if !ok || name == "" || tok == "" {
			return nil, fmt.Errorf("--principal: want NAME=TOKEN, got %q", v)
		}
		if seen[name] {
			return nil, fmt.Errorf("--principal: %s given twice", name)
		}
		seen[name] = true
		out = append(out, scenarios.Principal{Name: name, Token: tok})
	}
	return out, nil
}

// SelectBindings returns the bindings named by flag value b ("all",
// "jsonrpc", "http") that the card declares, or an error naming --binding.
func SelectBindings(card *wire.Card, b string) ([]wire.Binding, error) {
	var want []wire.Binding
	switch b {
	case "", "all":
		want = []wire.Binding{wire.JSONRPC, wire.HTTPJSON}
	case "jsonrpc":
		want = []wire.Binding{wire.JSONRPC}
	case "http", "http+json":
		want = []wire.Binding{wire.HTTPJSON}
	default:
		return nil, fmt.Errorf("--binding: want jsonrpc, http or all, got %q", b)
	}
	var out []wire.Binding
	for _, w := range want {
		if _, ok := card.Interface(w); ok {
			out = append(out, w)
		} else if b != "" && b != "all" {
			return nil, fmt.Errorf("--binding %s: the agent card at %s declares no %s interface with protocolVersion 1.0", b, card.URL, w)
		}
	}
	return out, nil
}

// ExternalTarget discovers an external target from its Agent Card.
func ExternalTarget(ctx context.Context, o TargetOptions) (*scenarios.Target, error) {
	hc := o.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	if len(o.Principals) == 0 {
		return nil, fmt.Errorf("--principal: give at least one NAME=TOKEN for --target (two unlock the scoping and replay cases)")
	}
	card, err := wire.Discover(ctx, hc, o.URL)
	if err != nil {
		return nil, err
	}
	bs, err := SelectBindings(card, o.Binding)
	if err != nil {
		return nil, err
	}
	t := &scenarios.Target{HTTP: hc, Card: card, Bindings: bs, Principals: o.Principals, Tenant: o.Tenant,
		OtherTenant: o.OtherTenant, TokenTTL: o.TokenTTL, BlackBoxText: o.BlackBoxText}
	ctl := o.ControlURL
	if ctl == "" {
		ctl = card.ControlURL
	}
	switch {
	case o.ControlURL != "" && o.ControlToken == "":
		return nil, fmt.Errorf("--control-token: required with --control")
	case ctl != "" && o.ControlToken != "":
		t.Control = &wire.Control{HTTP: hc, URL: ctl, Token: o.ControlToken}
	}
	if err := t.Prepare(ctx); err != nil {
		return nil, err
	}
	return t, nil
}
