package suites

import (
	"context"
	"net/http"
	"time"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// TargetOptions describes an external target, as the check command's flags
// and the go test flags give it.
type TargetOptions struct {
	URL          string
	Principals   []a2aclient.Principal
	Tenant       string
	OtherTenant  string
	ControlURL   string
	ControlToken string
	TokenTTL     time.Duration
	// Binding is "jsonrpc", "http" or "all" (default: all the card declares).
	Binding      string
	BlackBoxText string
	// HTTP sends every request (default a2aclient.NewHTTPClient with its
	// default bounds).
	HTTP *http.Client
	// MaxWait, ObserveTasks and ProbeTasks set the black-box data (see
	// scenarios.Target); ObserveTasks 0 means the default, negative off.
	MaxWait      time.Duration
	ObserveTasks int
	ProbeTasks   int
}

// ExternalTarget discovers an external target from its Agent Card.
func ExternalTarget(ctx context.Context, o TargetOptions) (*scenarios.Target, error) {
	hc := o.HTTP
	if hc == nil {
		hc = a2aclient.NewHTTPClient(a2aclient.HTTPOptions{})
	}
	if _, err := a2aclient.CardURL(o.URL); err != nil {
		return nil, err
	}
	if len(o.Principals) == 0 {
		return nil, &a2aclient.ParamError{Param: "principal", Msg: "give at least one NAME=TOKEN (two unlock the scoping and replay cases)"}
	}
	card, err := a2aclient.Discover(ctx, hc, o.URL)
	if err != nil {
		return nil, err
	}
	bs, err := a2aclient.SelectBindings(card, o.Binding)
	if err != nil {
		return nil, err
	}
	observe := o.ObserveTasks
	switch {
	case observe == 0:
		observe = scenarios.DefaultObserveTasks
	case observe < 0:
		observe = 0
	}
	t := &scenarios.Target{HTTP: hc, Card: card, Bindings: bs, Principals: o.Principals, Tenant: o.Tenant,
		OtherTenant: o.OtherTenant, TokenTTL: o.TokenTTL, BlackBoxText: o.BlackBoxText,
		MaxWait: o.MaxWait, ObserveTasks: observe, ProbeTasks: o.ProbeTasks}
	if t.Control, err = a2aclient.ResolveControl(card, o.ControlURL, o.ControlToken, hc); err != nil {
		return nil, err
	}
	if err := t.Prepare(ctx); err != nil {
		return nil, err
	}
	return t, nil
}
