package suites

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/wire"
)

// Reference is a launched reference server, in a container or in process.
type Reference interface {
	BaseURL(ctx context.Context) (string, error)
	Restart(ctx context.Context) error
	Close() error
}

// RequireDockerEnv names the environment variable that makes a missing
// Docker engine a failure instead of a fallback (CI sets it).
const RequireDockerEnv = "PAGEWALK_REQUIRE_DOCKER"

// LauncherEnv forces a launcher: "container" or "in-process".
const LauncherEnv = "PAGEWALK_LAUNCHER"

// Launch starts the reference server with the given faults: in a container
// when a Docker engine answers, otherwise (saying so on w) in process. With
// PAGEWALK_REQUIRE_DOCKER=1 a missing engine is an error. It returns the
// server and the launcher's name.
func Launch(ctx context.Context, w io.Writer, faults ...string) (Reference, string, error) {
	return launch(ctx, w, DockerAvailable, faults...)
}

// launch is Launch with the engine probe injectable, so the fallback can be
// tested on a machine that has an engine.
func launch(ctx context.Context, w io.Writer, probe func(context.Context) error, faults ...string) (Reference, string, error) {
	mode := os.Getenv(LauncherEnv)
	if mode == "in-process" {
		r, err := StartInProcess(faults...)
		return r, "in-process", err
	}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := probe(hctx)
	cancel()
	if err != nil {
		if os.Getenv(RequireDockerEnv) == "1" || mode == "container" {
			return nil, "", fmt.Errorf("no Docker engine, and %s=1 requires the container path: %w", RequireDockerEnv, err)
		}
		fmt.Fprintf(w, "pagewalk: no Docker engine (%v); falling back to an in-process reference server\n", err)
		r, err := StartInProcess(faults...)
		return r, "in-process", err
	}
	var opts []ReferenceOption
	for _, f := range faults {
		opts = append(opts, WithFault(f))
	}
	r, err := RunReference(ctx, opts...)
	if err != nil {
		return nil, "", err
	}
	return r, "container", nil
}

// ReferenceTarget describes a launched reference as a scenarios.Target: both
// principals, the control API from the card, and a Restart that follows the
// server to its new address.
func ReferenceTarget(ctx context.Context, ref Reference, hc *http.Client) (*scenarios.Target, error) {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	base, err := ref.BaseURL(ctx)
	if err != nil {
		return nil, err
	}
	card, err := wire.Discover(ctx, hc, base)
	if err != nil {
		return nil, err
	}
	t := &scenarios.Target{
		HTTP: hc, Card: card,
		Bindings:    []wire.Binding{wire.JSONRPC, wire.HTTPJSON},
		Principals:  []scenarios.Principal{{Name: "alice", Token: "alice-token"}, {Name: "bob", Token: "bob-token"}},
		OtherTenant: "tenant-b",
		Control:     &wire.Control{HTTP: hc, URL: card.ControlURL, Token: "ctl"},
	}
	t.Restart = func(ctx context.Context) (*wire.Card, error) {
		if err := ref.Restart(ctx); err != nil {
			return nil, err
		}
		base, err := ref.BaseURL(ctx)
		if err != nil {
			return nil, err
		}
		card, err := wire.Discover(ctx, hc, base)
		if err != nil {
			return nil, err
		}
		t.Card = card
		t.Control.URL = card.ControlURL
		return card, nil
	}
	return t, t.Prepare(ctx)
}
