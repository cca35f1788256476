package suites

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestNoDockerFallback checks what happens when no Docker engine answers:
// the launcher says so and falls back to the in-process reference, unless
// PAGEWALK_REQUIRE_DOCKER=1 makes that an error. (testcontainers-go finds
// the default socket even when DOCKER_HOST is wrong, so the engine probe is
// replaced by one that fails.)
func TestNoDockerFallback(t *testing.T) {
	t.Setenv(LauncherEnv, "")
	noEngine := func(context.Context) error { return errors.New("Cannot connect to the Docker daemon") }
	var out bytes.Buffer
	t.Setenv(RequireDockerEnv, "")
	ref, kind, err := launch(context.Background(), &out, noEngine)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if kind != "in-process" || !strings.Contains(out.String(), "no Docker engine (Cannot connect to the Docker daemon); falling back to an in-process reference server") {
		t.Errorf("fallback: kind %q, said %q", kind, out.String())
	}
	if _, err := ReferenceTarget(context.Background(), ref, nil); err != nil {
		t.Errorf("the fallback server does not answer: %v", err)
	}
	t.Setenv(RequireDockerEnv, "1")
	if _, _, err := launch(context.Background(), &out, noEngine); err == nil || !strings.Contains(err.Error(), RequireDockerEnv+"=1 requires the container path") {
		t.Errorf("with %s=1: %v", RequireDockerEnv, err)
	}
}
