// Package servecmd is the serve command, shared by the pagewalk CLI and the
// small reference main (cmd/pagewalk-reference) that the reference image
// runs.
package servecmd

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/pagewalk/pagewalk/reference"
	"github.com/spf13/cobra"
)

// flagError shows a library parameter error (reference.ParamError) as the
// flag that sets the parameter.
func flagError(err error) error {
	var pe *reference.ParamError
	if errors.As(err, &pe) {
		return fmt.Errorf("--%s: %s", pe.Param, pe.Msg)
	}
	return err
}

// Command returns the serve command; version is shown in the Agent Card.
func Command(version string) *cobra.Command {
	var (
		addr, db, keyFile, controlToken, publicURL, logFormat string
		principals, faults                                    []string
		ttl                                                   time.Duration
		timeouts                                              = reference.DefaultTimeouts
		allowReset                                            bool
		preseed                                               int
		preseedSeed                                           uint64
		rateLimit                                             float64
		rateBurst, defaultHistory                             int
		exclusive                                             bool
		faultSeed                                             uint64
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the reference A2A server",
		Long: `Run the reference A2A 1.0 server: JSON-RPC at /jsonrpc, HTTP+JSON at /,
the Agent Card at /.well-known/agent-card.json.

With no --principal, two development principals are created:
alice=alice-token and bob=bob-token.`,
		Example: `  pagewalk serve --addr 127.0.0.1:8080 --db pagewalk.db --principal alice=alice-token
  pagewalk serve --control-token ctl --fault offset-cursor`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var level slog.Level
			var h slog.Handler
			switch logFormat {
			case "json":
				h = slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})
			case "text":
				h = slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})
			default:
				return fmt.Errorf("--log-format: want text or json, got %q", logFormat)
			}
			opts := []reference.Option{
				reference.WithDB(db), reference.WithTokenTTL(ttl), reference.WithLogger(slog.New(h)),
				reference.WithRateLimit(rateLimit, rateBurst), reference.WithExclusiveTimestampAfter(exclusive),
				reference.WithDefaultHistoryLength(defaultHistory), reference.WithVersion(version),
				reference.WithReadHeaderTimeout(timeouts.ReadHeader), reference.WithReadTimeout(timeouts.Read),
				reference.WithWriteTimeout(timeouts.Write), reference.WithIdleTimeout(timeouts.Idle),
				reference.WithAllowReset(allowReset), reference.WithPreseed(preseed, preseedSeed),
			}
			if len(principals) == 0 {
				principals = []string{"alice=alice-token", "bob=bob-token"}
				fmt.Fprintln(cmd.ErrOrStderr(), "pagewalk serve: no --principal given; using alice=alice-token and bob=bob-token")
			}
			for _, p := range principals {
				name, tok, err := reference.ParsePrincipal(p)
				if err != nil {
					return flagError(err)
				}
				opts = append(opts, reference.WithPrincipal(name, tok))
			}
			for _, f := range faults {
				opts = append(opts, reference.WithFaults(reference.Fault(f)))
			}
			if cmd.Flags().Changed("fault-seed") {
				opts = append(opts, reference.WithFaultSeed(faultSeed))
			}
			if controlToken != "" {
				opts = append(opts, reference.WithControlToken(controlToken))
			}
			if keyFile != "" {
				opts = append(opts, reference.WithKeyFile(keyFile))
			}
			if publicURL != "" {
				opts = append(opts, reference.WithPublicURL(publicURL))
			}
			// The command's context, cancelled on SIGINT or SIGTERM, bounds
			// the start-up (opening the store) and ends the serving.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			srv, err := reference.New(ctx, opts...)
			if err != nil {
				return flagError(err)
			}
			url, err := srv.Listen(addr)
			if err != nil {
				srv.Close()
				return flagError(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "pagewalk serve: listening on %s (JSON-RPC %s/jsonrpc, HTTP+JSON %s, Agent Card %s/.well-known/agent-card.json)\n", url, url, url, url)
			if controlToken != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "pagewalk serve: control API on %s/control\n", url)
			}
			if preseed > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "pagewalk serve: preseeded %d tasks per principal (--preseed-seed %d; layout in docs/reference.md)\n", preseed, preseedSeed)
			}
			for _, f := range faults {
				fmt.Fprintf(cmd.ErrOrStderr(), "pagewalk serve: FAULT MODE %s is on: this server is deliberately broken\n", f)
			}
			if len(faults) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "pagewalk serve: fault seed %d (rerun with --fault-seed %d to repeat the fault's random choices)\n", srv.FaultSeed(), srv.FaultSeed())
			}
			<-ctx.Done()
			stop()
			fmt.Fprintln(cmd.ErrOrStderr(), "pagewalk serve: shutting down: draining requests in flight, then closing the store")
			// Close drains for at most reference.DrainTimeout; a second signal
			// (stop restored the default handling) ends the process at once.
			return srv.Close()
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "listen address (host:port; port 0 picks a free one)")
	f.StringVar(&db, "db", ":memory:", "SQLite database path, or :memory:")
	f.StringArrayVar(&principals, "principal", nil, "NAME=TOKEN: a principal and its bearer token (repeatable)")
	f.StringVar(&controlToken, "control-token", "", "turn on the test-only control API under this bearer token")
	f.DurationVar(&ttl, "token-ttl", 10*time.Minute, "page-token lifetime")
	f.StringVar(&keyFile, "key-file", "", "keep page-token signing keys in this file (default: in the database)")
	f.StringArrayVar(&faults, "fault", nil, "turn on a fault mode (repeatable): "+reference.FaultNames())
	f.Uint64Var(&faultSeed, "fault-seed", 0, "seed of the fault modes' random choices (default: a random seed, printed at start)")
	f.Float64Var(&rateLimit, "rate-limit", 0, "per-principal request limit per second (0: off)")
	f.IntVar(&rateBurst, "rate-burst", 0, "per-principal burst (default: the rate, at least 1)")
	f.BoolVar(&exclusive, "exclusive-timestamp-after", false, "treat statusTimestampAfter as exclusive (>) instead of the proto's >=")
	f.IntVar(&defaultHistory, "default-history-length", -1, "messages returned when historyLength is unset (-1: all)")
	f.StringVar(&publicURL, "public-url", "", "base URL to advertise in the Agent Card (default: from the request's Host)")
	f.StringVar(&logFormat, "log-format", "text", "request log format: text or json")
	f.DurationVar(&timeouts.ReadHeader, "read-header-timeout", timeouts.ReadHeader, "longest time to read a request's headers")
	f.DurationVar(&timeouts.Read, "read-timeout", timeouts.Read, "longest time to read a whole request, body included: a body declared but never sent, or dripped, is cut off")
	f.DurationVar(&timeouts.Write, "write-timeout", timeouts.Write, "longest time to handle a request and write its reply (raise it for seeds of millions of tasks)")
	f.DurationVar(&timeouts.Idle, "idle-timeout", timeouts.Idle, "longest time a keep-alive connection waits for its next request")
	f.IntVar(&preseed, "preseed", 0, "fill the store at start with N tasks per principal, for black-box checks: ids in random order, "+
		"several contexts, every TaskState, tie groups (whole-second and microsecond) that straddle the boundaries of common page sizes, "+
		"history on ~30% and artifacts on ~25% of the tasks, timestamps back from "+reference.PreseedEpoch.Format(time.RFC3339)+" (docs/reference.md)")
	f.Uint64Var(&preseedSeed, "preseed-seed", 1, "seed of the --preseed data: the same N and seed give the same data")
	f.BoolVar(&allowReset, "allow-reset", false, `let the control API's reset delete the whole store ({"all": true}); without it a reset must name what it deletes`)
	return cmd
}
