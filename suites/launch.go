package suites

import (
	"context"
	"net/http"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Reference is a launched reference server, in a container or in process.
type Reference interface {
	BaseURL(ctx context.Context) (string, error)
	Restart(ctx context.Context) error
	Close() error
}

// ReferenceTarget describes a launched reference as a scenarios.Target: both
// principals, the control API from the card, and a Restart that follows the
// server to its new address.
func ReferenceTarget(ctx context.Context, ref Reference, hc *http.Client) (*scenarios.Target, error) {
	if hc == nil {
		hc = a2aclient.NewHTTPClient(a2aclient.HTTPOptions{})
	}
	base, err := ref.BaseURL(ctx)
	if err != nil {
		return nil, err
	}
	card, err := a2aclient.Discover(ctx, hc, base)
	if err != nil {
		return nil, err
	}
	t := &scenarios.Target{
		HTTP: hc, Card: card,
		Bindings:     []a2aclient.Binding{a2aclient.JSONRPC, a2aclient.HTTPJSON},
		Principals:   []a2aclient.Principal{{Name: "alice", Token: "alice-token"}, {Name: "bob", Token: "bob-token"}},
		OtherTenant:  "tenant-b",
		ObserveTasks: scenarios.DefaultObserveTasks,
		Control:      &a2aclient.Control{HTTP: hc, URL: card.ControlURL, Token: "ctl"},
	}
	t.Restart = func(ctx context.Context) (*a2aclient.Card, error) {
		if err := ref.Restart(ctx); err != nil {
			return nil, err
		}
		base, err := ref.BaseURL(ctx)
		if err != nil {
			return nil, err
		}
		card, err := a2aclient.Discover(ctx, hc, base)
		if err != nil {
			return nil, err
		}
		t.Card = card
		t.Control.URL = card.ControlURL
		return card, nil
	}
	return t, t.Prepare(ctx)
}
