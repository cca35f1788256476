// Package container runs pagewalk's reference server in a Docker container
// with testcontainers-go, in the style of a testcontainers-go module:
// RunReference(ctx, opts...) returns a typed container. The image is built
// FROM scratch from the small reference main (cmd/pagewalk-reference), with
// no pull, so it works on machines without registry access.
//
// Only tests import this package: the pagewalk binary carries no
// testcontainers-go or Docker client.
package container

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// ReferenceImage is the tag the suite builds the reference image under.
const ReferenceImage = "pagewalk-reference:suite"

// referencePort is the port the reference listens on inside its container.
const referencePort = "8080/tcp"

// ReferenceContainer is the reference server running in a container,
// started by RunReference.
type ReferenceContainer struct {
	*testcontainers.DockerContainer
}

type options struct {
	faults []string
	args   []string
}

// Option configures RunReference.
type Option func(*options)

// WithFault turns on a reference fault mode in the container.
func WithFault(name string) Option {
	return func(o *options) { o.faults = append(o.faults, name) }
}

// WithServeArgs adds flags to the server's command line.
func WithServeArgs(args ...string) Option {
	return func(o *options) { o.args = append(o.args, args...) }
}

var buildOnce struct {
	sync.Mutex
	done bool
}

// ModuleRoot returns the directory holding pagewalk's go.mod.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the pagewalk module")
	}
	return filepath.Dir(mod), nil
}

// BuildReferenceImage builds the reference image FROM scratch: a static
// CGO_ENABLED=0 build of the small reference main (cmd/pagewalk-reference)
// and the repository's reference Dockerfile, with no pull. It builds once
// per process.
func BuildReferenceImage(ctx context.Context) error {
	buildOnce.Lock()
	defer buildOnce.Unlock()
	if buildOnce.done {
		return nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "pagewalk-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", filepath.Join(dir, "pagewalk-reference"), "./cmd/pagewalk-reference")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the static pagewalk binary: %v\n%s", err, out)
	}
	df, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), df, 0o644); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		return err
	}
	// A fresh provider: BuildImage closes its client when done.
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return err
	}
	repo, tag, _ := strings.Cut(ReferenceImage, ":")
	_, err = p.BuildImage(ctx, &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context: dir, Repo: repo, Tag: tag, KeepImage: true,
	}})
	if err != nil {
		return fmt.Errorf("building %s: %w", ReferenceImage, err)
	}
	buildOnce.done = true
	return nil
}

// DockerAvailable reports whether a Docker engine answers.
func DockerAvailable(ctx context.Context) error {
	p, err := testcontainers.ProviderDefault.GetProvider()
	if err != nil {
		return err
	}
	return p.Health(ctx)
}

// RunReference builds the reference image if needed and starts it, with
// ports bound on loopback only and the control API on. It waits for
// /healthz.
func RunReference(ctx context.Context, opts ...Option) (*ReferenceContainer, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := BuildReferenceImage(ctx); err != nil {
		return nil, err
	}
	// The same principals and control token as the in-process launcher, so
	// ReferenceTarget describes either.
	args := []string{"--db", "/data/pagewalk.db", "--control-token", "ctl",
		"--principal", "alice=alice-token", "--principal", "bob=bob-token"}
	for _, f := range o.faults {
		args = append(args, "--fault", f)
	}
	args = append(args, o.args...)
	port := network.MustParsePort(referencePort)
	ctr, err := testcontainers.Run(ctx, ReferenceImage,
		testcontainers.WithExposedPorts(referencePort),
		testcontainers.WithCmdArgs(args...),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.PortBindings = network.PortMap{port: {{HostIP: netip.MustParseAddr("127.0.0.1"), HostPort: "0"}}}
		}),
		testcontainers.WithLabels(map[string]string{"dev.pagewalk.role": "reference"}),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/healthz").WithPort(referencePort).WithForcedIPv4LocalHost().
			WithStartupTimeout(60*time.Second)),
	)
	if err != nil {
		if ctr != nil {
			ctr.Terminate(context.Background())
		}
		return nil, fmt.Errorf("starting %s: %w", ReferenceImage, err)
	}
	return &ReferenceContainer{DockerContainer: ctr}, nil
}

// BaseURL returns the reference's base URL on the host (it changes after a
// restart, because Docker maps a new host port).
func (c *ReferenceContainer) BaseURL(ctx context.Context) (string, error) {
	ep, err := c.PortEndpoint(ctx, referencePort, "http")
	if err != nil {
		return "", err
	}
	return ep, nil
}

// Restart stops and starts the container; its data directory survives.
func (c *ReferenceContainer) Restart(ctx context.Context) error {
	timeout := 10 * time.Second
	if err := c.Stop(ctx, &timeout); err != nil {
		return fmt.Errorf("stopping the reference container: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("starting the reference container again: %w", err)
	}
	return nil
}

// Close terminates the container, keeping the image.
func (c *ReferenceContainer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Terminate(ctx)
}
