package suites

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/pagewalk/pagewalk/reference"
)

// InProcessReference is the reference server running inside the test
// process: the fallback when no Docker engine is available, and the fast
// path for most kill-matrix rows. This is the one place the harness imports
// the reference package.
type InProcessReference struct {
	mu   sync.Mutex
	srv  *reference.Server
	opts []reference.Option
	addr string
	dir  string
}

// StartInProcess starts the reference server on 127.0.0.1 with a file
// database (so it can be restarted) and the control API on.
func StartInProcess(faults ...string) (*InProcessReference, error) {
	return StartInProcessWith(nil, faults...)
}

// StartInProcessWith is StartInProcess with extra reference options.
func StartInProcessWith(extra []reference.Option, faults ...string) (*InProcessReference, error) {
	dir, err := os.MkdirTemp("", "pagewalk-ref-")
	if err != nil {
		return nil, err
	}
	opts := []reference.Option{
		reference.WithDB(filepath.Join(dir, "pagewalk.db")),
		reference.WithPrincipal("alice", "alice-token"),
		reference.WithPrincipal("bob", "bob-token"),
		reference.WithControlToken("ctl"),
		reference.WithAllowReset(true), // demo empties the store between its check and its load
	}
	for _, f := range faults {
		opts = append(opts, reference.WithFaults(reference.Fault(f)))
	}
	opts = append(opts, extra...)
	p := &InProcessReference{opts: opts, addr: "127.0.0.1:0", dir: dir}
	if err := p.start(context.Background()); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if len(faults) > 0 {
		// The seed reproduces the fault's random choices; a restart keeps it.
		seed := p.srv.FaultSeed()
		p.opts = append(p.opts, reference.WithFaultSeed(seed))
		fmt.Printf("in-process reference: faults %v, fault seed %d\n", faults, seed)
	}
	return p, nil
}

func (p *InProcessReference) start(ctx context.Context) error {
	srv, err := reference.New(ctx, p.opts...)
	if err != nil {
		return err
	}
	u, err := srv.Listen(p.addr)
	if err != nil {
		srv.Close()
		return err
	}
	p.srv = srv
	p.addr = u[len("http://"):]
	return nil
}

// BaseURL returns the server's base URL.
func (p *InProcessReference) BaseURL(context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return "http://" + p.addr, nil
}

// Restart shuts the server down gracefully and starts it again on the same
// database, on a new port (as a restarted container gets one): the old
// port may be taken by the time the server comes back, and a caller
// follows the server by its base URL.
func (p *InProcessReference) Restart(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("in-process reference shutdown: %w", err)
	}
	p.addr = "127.0.0.1:0"
	return p.start(ctx)
}

// Close stops the server and removes its database.
func (p *InProcessReference) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.srv.Close()
	os.RemoveAll(p.dir)
	return err
}
