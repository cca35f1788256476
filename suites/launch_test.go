package suites

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pagewalk/pagewalk/suites/container"
)

// The container launcher lives in suites/container, which only tests
// import, so the pagewalk binary carries no testcontainers-go or Docker
// client.

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
	return launch(ctx, w, container.DockerAvailable, faults...)
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
	var opts []container.Option
	for _, f := range faults {
		opts = append(opts, container.WithFault(f))
	}
	r, err := container.RunReference(ctx, opts...)
	if err != nil {
		return nil, "", err
	}
	return r, "container", nil
}
