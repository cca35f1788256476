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
	// MaxPages caps every walk (scenarios.Target.MaxPages; 0: none).
	MaxPages int
}

// ExternalTarget discovers an external target from its Agent Card, then
// makes one authenticated ListTasks call per principal on each selected
// binding (a2aclient.Preflight), so that rejected credentials end the run
// as an *a2aclient.CredentialError before any case could blame the server
// for them.
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
	for _, b := range bs {
		if err := a2aclient.Preflight(ctx, hc, card, b, o.Tenant, o.Principals); err != nil {
			return nil, err
		}
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
		MaxWait: o.MaxWait, ObserveTasks: observe, ProbeTasks: o.ProbeTasks, MaxPages: o.MaxPages}
	if t.Control, err = a2aclient.ResolveControl(card, o.ControlURL, o.ControlToken, hc); err != nil {
		return nil, err
	}
	if err := t.Prepare(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// Builtin is the built-in reference as a target: the reference server
// started in this process on a loopback port, served over HTTP like any
// other target, with both principals and the control API.
type Builtin struct {
	// Target is the reference as the cases see it.
	Target *scenarios.Target
	// URL is the server's base URL when it started (a restart case may
	// move it; Target.Card follows).
	URL string
	ref *InProcessReference
}

// BuiltinOptions tune the built-in reference as a target.
type BuiltinOptions struct {
	// Binding is "jsonrpc", "http" or "all".
	Binding string
	// MaxWait, ObserveTasks (0: no observe walk) and MaxPages go to the
	// scenarios.Target fields of the same names; a zero MaxWait keeps the
	// default.
	MaxWait      time.Duration
	ObserveTasks int
	MaxPages     int
}

// StartBuiltin starts the built-in reference and describes it as a target
// as o says. Close it when done.
func StartBuiltin(ctx context.Context, hc *http.Client, o BuiltinOptions) (*Builtin, error) {
	ref, err := StartInProcess()
	if err != nil {
		return nil, err
	}
	t, err := ReferenceTarget(ctx, ref, hc)
	if err == nil {
		t.Bindings, err = a2aclient.SelectBindings(t.Card, o.Binding)
	}
	if err == nil && (o.MaxWait > 0 || o.ObserveTasks != t.ObserveTasks || o.MaxPages > 0) {
		// Prepare again: the black-box data depends on these.
		t.MaxWait, t.ObserveTasks, t.MaxPages = o.MaxWait, o.ObserveTasks, o.MaxPages
		err = t.Prepare(ctx)
	}
	if err != nil {
		ref.Close()
		return nil, err
	}
	url, _ := ref.BaseURL(ctx)
	return &Builtin{Target: t, URL: url, ref: ref}, nil
}

// BaseURL returns the server's current base URL.
func (b *Builtin) BaseURL(ctx context.Context) (string, error) { return b.ref.BaseURL(ctx) }

// Close stops the server and removes its database.
func (b *Builtin) Close() error { return b.ref.Close() }
