package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/pagewalk/pagewalk/docs/controlapi"
	"github.com/pagewalk/pagewalk/reports"
	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	"github.com/pagewalk/pagewalk/suites"
)

func demoCmd() *cobra.Command {
	var (
		out, rate, profile string
		seed               int
		duration           time.Duration
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Start the reference server, check it, load it and write the report",
		Long: `demo shows pagewalk end to end on this machine: it starts the reference
server on a free loopback port, runs the conformance suite against it, seeds
it (100,000 tasks by default) and measures per-page latency at depth, then
writes check.json, junit.xml, load.json, the raw load results and a
self-contained report.html (and report.md) into --out. The server's database
lives in a temporary directory and is removed at the end.

The exit status is 1 if the conformance run or the load verdict fails.`,
		Example: `  pagewalk demo
  pagewalk demo --out /tmp/pw --seed 1000000 --duration 5s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if seed < 0 {
				return usage("--seed: must not be negative, got %d", seed)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return usage("--out %s: %v", out, err)
			}
			if p := scenarios.Profile(profile); p != scenarios.ProfileDefault && p != scenarios.ProfileHardened {
				return usage("--profile: want default or hardened, got %q", profile)
			}
			w := cmd.OutOrStdout()
			// The in-process launcher gives the suite a server it can restart
			// (for LT-TOKEN-RESTART), with alice, bob and control token "ctl".
			ref, err := suites.StartInProcess()
			if err != nil {
				return err
			}
			defer ref.Close()
			const ctl = "ctl"
			target, err := suites.ReferenceTarget(cmd.Context(), ref, nil)
			if err != nil {
				return err
			}
			url, _ := ref.BaseURL(cmd.Context())
			fmt.Fprintf(w, "== 1/4 reference server at %s\n", url)

			fmt.Fprintf(w, "\n== 2/4 conformance: pagewalk check --target %s --profile %s\n", url, profile)
			checkErr := runSuite(w, target, "built-in reference (in process)", scenarios.Judgement{Profile: scenarios.Profile(profile)},
				checkOptions{jsonReport: filepath.Join(out, "check.json"), junit: filepath.Join(out, "junit.xml")})
			if checkErr != nil && !isVerdict(checkErr) {
				return checkErr
			}
			url, _ = ref.BaseURL(cmd.Context()) // the restart case may have moved it
			ctlClient := &a2aclient.Control{URL: url + "/control", Token: ctl}
			if _, err := ctlClient.Reset(cmd.Context(), controlapi.ResetRequest{All: true}); err != nil {
				return err
			}
			if err := ctlClient.RunClock(cmd.Context()); err != nil {
				return err
			}

			fmt.Fprintf(w, "\n== 3/4 load: pagewalk load --target %s --seed %d --rate %s --duration %s\n", url, seed, rate, duration)
			lc := loadCmd()
			lc.SetArgs([]string{"--target", url, "--principal", "alice=alice-token", "--control-token", ctl, "--seed", strconv.Itoa(seed),
				"--rate", rate, "--duration", duration.String(), "--json", filepath.Join(out, "load.json"), "--out", filepath.Join(out, "load")})
			lc.SetOut(w)
			lc.SetErr(cmd.ErrOrStderr())
			loadErr := lc.ExecuteContext(cmd.Context())
			if loadErr != nil && !isVerdict(loadErr) {
				return loadErr
			}

			fmt.Fprintf(w, "\n== 4/4 report\n")
			var b reports.Bundle
			if b.Conformance, err = reports.ReadConformance(filepath.Join(out, "check.json")); err != nil {
				return err
			}
			if b.Load, err = reports.ReadLoad(filepath.Join(out, "load.json")); err != nil {
				return err
			}
			for _, r := range []struct {
				name   string
				render func(f *os.File) error
			}{
				{"report.html", func(f *os.File) error { return b.HTML(f) }},
				{"report.md", func(f *os.File) error { return b.Markdown(f) }},
			} {
				f, err := os.Create(filepath.Join(out, r.name))
				if err != nil {
					return err
				}
				if err := r.render(f); err != nil {
					f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
			}
			fmt.Fprintf(w, "wrote %s/{report.html,report.md,check.json,junit.xml,load.json,load/}\n", out)
			fmt.Fprintf(w, "load: %s", b.Load.Verdict)
			if r := b.Load.DepthRatio; r != nil {
				fmt.Fprintf(w, ", p99(depth %d)/p99(depth %d) = %.2f", r.DeepDepth, r.FirstDepth, r.Value)
			}
			fmt.Fprintf(w, "\n%s\n", b.Conformance.Line())
			if checkErr != nil || loadErr != nil {
				return &exitError{code: 1, err: errors.New("")}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "demo-report", "directory for the reports")
	f.IntVar(&seed, "seed", 100_000, "tasks to seed before the load run")
	f.StringVar(&rate, "rate", "50", "open-loop request rate per depth")
	f.DurationVar(&duration, "duration", 3*time.Second, "attack duration per depth")
	f.StringVar(&profile, "profile", "hardened", "conformance profile: default or hardened")
	return cmd
}

// isVerdict reports whether err is a failing verdict (exit 1) rather than
// a setup error.
func isVerdict(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == 1
}
