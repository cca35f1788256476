// Command a2ago is a small A2A 1.0 agent built on the official Go SDK,
// github.com/a2aproject/a2a-go/v2, the way a vendor would build one: the
// SDK's request handler on its default in-memory task store, served over
// both the JSON-RPC and the HTTP+JSON bindings, with an Agent Card, bearer
// authentication for two principals mapped to the SDK's user notion, and an
// executor that settles every task. It has no control API.
//
// pagewalk's peer test (suites/peer_a2ago_test.go) builds it, runs
// pagewalk check against it black-box, and compares every verdict with
// expected.yaml. It is a separate Go module so that the pagewalk module
// never depends on the SDK, and it imports nothing from pagewalk.
//
// Usage:
//
//	a2ago [-addr 127.0.0.1:0] [-preseed N]
//
// The first line on stdout is "listening on http://HOST:PORT".
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks a free port)")
	preseed := flag.Int("preseed", 0, "create this many tasks for each principal at start, through the SDK's request handler")
	flag.Parse()
	if err := run(*addr, *preseed); err != nil {
		fmt.Fprintln(os.Stderr, "a2ago:", err)
		os.Exit(1)
	}
}

// run listens on addr, preseeds, prints the base URL and serves until
// SIGINT or SIGTERM.
func run(addr string, preseed int) error {
	if preseed < 0 {
		return fmt.Errorf("-preseed must be >= 0, got %d", preseed)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("-addr %s: %w", addr, err)
	}
	base := "http://" + ln.Addr().String()

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// No WithTaskStore: the handler builds the SDK's default store,
	// taskstore.NewInMemory with a2asrv.NewTaskStoreAuthenticator, which
	// records CallContext.User.Name as a task's owner and lists only the
	// caller's tasks.
	handler := a2asrv.NewHandler(executor{},
		a2asrv.WithCallInterceptors(bearerAuth{tokens: principals}),
		a2asrv.WithLogger(logger),
	)

	if err := seed(context.Background(), handler, principals, preseed); err != nil {
		return fmt.Errorf("-preseed %d: %w", preseed, err)
	}

	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(agentCard(base)))
	mux.Handle(jsonrpcPath, a2asrv.NewJSONRPCHandler(handler))
	mux.Handle("/", a2asrv.NewRESTHandler(handler))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	fmt.Printf("listening on %s\n", base)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdown)
	}
}
