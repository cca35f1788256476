package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/pagewalk/pagewalk/docs/controlapi"
	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/reports"
	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// demoOptions are the demo command's flags.
type demoOptions struct {
	out, rate, profile string
	seedTasks          int
	duration           time.Duration
	verbose            bool
}

// demoDepths are the depths the demo's load attacks: with the default
// 30,000 tasks, pageSize 100, the last page is page 300.
const demoDepths = "1,10,100,last"

// demoPageSize is the pageSize of the demo's load.
const demoPageSize = 100

// defaultDemoOptions are the demo's defaults. The load step is sized so
// that an offset-paging server's depth cost shows plainly (page 300 scans
// 30,000 rows) while the walk and the attack take seconds, and so that the
// attack leaves the server mostly idle: a saturated server queues every
// request alike, which hides a depth cost behind the queue.
func defaultDemoOptions() demoOptions {
	return demoOptions{out: "demo-report", rate: "10", profile: string(scenarios.ProfileHardened), seedTasks: 30_000, duration: 12 * time.Second}
}

func demoCmd() *cobra.Command {
	o := defaultDemoOptions()
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Start the reference server, check it, load it and write the report",
		Long: `demo shows pagewalk end to end on this machine: it starts the built-in
reference server on a free loopback port (as pagewalk check --target builtin
does), runs the conformance suite against it over HTTP, seeds it (30,000
tasks by default: 300 pages) and measures per-page latency at depths 1, 10,
100 and the last page, interleaved, 10/s per depth for 12 s, then writes
check.json, junit.xml, load.json, the raw load results and a self-contained
report.html (and report.md) into --out. The server's database lives in a
temporary directory and is removed at the end.

The exit status is 1 if the conformance run fails or the load verdict is
fail; an inconclusive load verdict (a busy machine) does not fail it.`,
		Example: `  pagewalk demo
  pagewalk demo --out /tmp/pw --seed-tasks 1000000 --duration 5s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return demoMain(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", o.out, "directory for the reports")
	f.IntVar(&o.seedTasks, "seed-tasks", o.seedTasks, "tasks to seed before the load run")
	f.IntVar(&o.seedTasks, "seed", o.seedTasks, "deprecated spelling of --seed-tasks")
	_ = f.MarkDeprecated("seed", "use --seed-tasks")
	f.StringVar(&o.rate, "rate", o.rate, "open-loop request rate per depth")
	f.DurationVar(&o.duration, "duration", o.duration, "attack duration")
	f.StringVar(&o.profile, "profile", o.profile, "conformance profile: default or hardened")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "narrate every step of every conformance case")
	return cmd
}

// demoMain runs the demo: the same functions check and load run, with the
// check's report kept in memory for report.html and report.md.
func demoMain(ctx context.Context, o demoOptions, w, stderr io.Writer) error {
	if o.seedTasks < 0 {
		return usage("--seed-tasks: must not be negative, got %d", o.seedTasks)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return usage("--out %s: %v", o.out, err)
	}
	co := defaultCheckOptions()
	co.target, co.profile, co.verbose = builtinTarget, o.profile, o.verbose
	co.jsonReport, co.junitReport = filepath.Join(o.out, "check.json"), filepath.Join(o.out, "junit.xml")
	if err := co.validate(); err != nil {
		return err
	}
	t, err := openTarget(ctx, co, stderr)
	if err != nil {
		return setupErr(err, co)
	}
	defer t.close()
	fmt.Fprintf(w, "== 1/4 %s\n\n== 2/4 conformance: pagewalk check --target builtin --profile %s\n", t.label, o.profile)
	c, err := runChecks(ctx, t, co, &console{w: w, verbose: o.verbose, color: colorFor(w)})
	if err != nil {
		return err
	}
	if err := writeReports(c, t.card, co, w, stderr); err != nil {
		return err
	}
	url, err := t.baseURL(ctx) // the restart case may have moved the server
	if err != nil {
		return err
	}
	ctl := &a2aclient.Control{URL: t.target.Control.URL, Token: t.target.Control.Token}
	if _, err := ctl.Reset(ctx, controlapi.ResetRequest{All: true}); err != nil {
		return err
	}
	if err := ctl.RunClock(ctx); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n== 3/4 load: pagewalk load --target %s --binding jsonrpc --seed-tasks %d --depths %s --rate %s --duration %s\n", url, o.seedTasks, demoDepths, o.rate, o.duration)
	load, loadErr := demoLoad(ctx, w, stderr, url, o)
	if loadErr != nil && !isVerdict(loadErr) {
		return loadErr
	}
	fmt.Fprintf(w, "\n== 4/4 report\n")
	b := reports.Bundle{Conformance: c, Load: load}
	for _, r := range []struct {
		path   string
		render func(io.Writer) error
	}{{"report.html", b.HTML}, {"report.md", b.Markdown}, {reports.RequirementsDoc, func(w io.Writer) error { _, err := w.Write(scenarios.RequirementsDoc()); return err }}} {
		if err := writeOutput(output{"--out", filepath.Join(o.out, r.path)}, w, r.render); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "wrote %s/{report.html,report.md,check.json,junit.xml,load.json,load/,%s}\n", o.out, reports.RequirementsDoc)
	fmt.Fprintf(w, "load: %s\n%s\n", load.Verdict, c.Line())
	if c.ExitCode != reports.ExitPass || loadErr != nil {
		return &exitError{code: reports.ExitFail, err: errors.New("")}
	}
	return nil
}

// demoLoad is demo's load step: alice's list over JSON-RPC, seeded
// through the control API, written to load.json and load/ in the output
// directory. A failing verdict comes back with its summary.
func demoLoad(ctx context.Context, w, stderr io.Writer, url string, o demoOptions) (*loadgen.Summary, error) {
	lo := demoLoadOptions(url, o)
	lo.jsonPath, lo.outDir = filepath.Join(o.out, "load.json"), filepath.Join(o.out, "load")
	sums, err := loadMain(ctx, w, stderr, lo)
	if err != nil && !isVerdict(err) {
		return nil, err
	}
	if err != nil {
		fmt.Fprintln(stderr, "pagewalk load:", err)
	}
	if len(sums) != 1 {
		return nil, fmt.Errorf("demo load: %d summaries, want one (binding %s)", len(sums), lo.binding)
	}
	return sums[0], err
}

// demoLoadOptions are the demo's pagewalk load options against url, less
// its outputs: alice's list over JSON-RPC seeded with o.seedTasks tasks,
// the depths demoDepths, the default (interleaved) schedule and
// thresholds.
func demoLoadOptions(url string, o demoOptions) loadOptions {
	lo := defaultLoadOptions()
	lo.target, lo.binding, lo.principals, lo.controlToken = url, string(a2aclient.JSONRPC), []string{"alice=alice-token"}, "ctl"
	lo.seedTasks, lo.pageSize, lo.depths, lo.rate, lo.duration = o.seedTasks, demoPageSize, demoDepths, o.rate, o.duration
	return lo
}
