package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// thresholdFlags are the CI gates shared by load and report merge.
type thresholdFlags struct {
	maxRatio         float64
	maxP99           time.Duration
	maxErrorRate     float64
	failInconclusive bool
}

// defaultThresholdFlags are loadgen's default thresholds.
func defaultThresholdFlags() thresholdFlags {
	d := loadgen.DefaultThresholds
	return thresholdFlags{maxRatio: d.MaxDepthRatio, maxP99: d.MaxP99, maxErrorRate: d.MaxErrorRate}
}

func (t *thresholdFlags) register(f *pflag.FlagSet) {
	d := defaultThresholdFlags()
	f.Float64Var(&t.maxRatio, "max-depth-ratio", d.maxRatio, "fail when median(deepest depth)/median(first depth), coordinated-omission corrected, is above this with 95% confidence; pass when it is below; inconclusive in between (0: off)")
	f.DurationVar(&t.maxP99, "max-p99", d.maxP99, "fail when any depth's corrected p99 exceeds this duration, e.g. 50ms (0: off)")
	f.Float64Var(&t.maxErrorRate, "max-error-rate", d.maxErrorRate, "fail when any depth's errors/requests exceeds this fraction (negative: off)")
	f.BoolVar(&t.failInconclusive, "fail-inconclusive", false, "exit 1 on an inconclusive verdict too (too few samples, an interval across --max-depth-ratio, or a walk that never reached the last page); by default it exits 0, never saying PASS")
}

func (t *thresholdFlags) thresholds() (loadgen.Thresholds, error) {
	switch {
	case t.maxRatio < 0:
		return loadgen.Thresholds{}, fmt.Errorf("--max-depth-ratio: must be 0 (off) or positive, got %s", loadgen.FormatNumber(t.maxRatio, 6))
	case t.maxRatio > 0 && t.maxRatio < 1:
		return loadgen.Thresholds{}, fmt.Errorf("--max-depth-ratio: a ratio below 1 would demand deep pages be faster than the first, got %s", loadgen.FormatNumber(t.maxRatio, 6))
	case t.maxP99 < 0:
		return loadgen.Thresholds{}, fmt.Errorf("--max-p99: must be 0 (off) or positive, got %s", t.maxP99)
	case t.maxErrorRate > 1:
		return loadgen.Thresholds{}, fmt.Errorf("--max-error-rate: a fraction from 0 to 1 (negative: off), got %s", loadgen.FormatNumber(t.maxErrorRate, 6))
	}
	return loadgen.Thresholds{MaxDepthRatio: t.maxRatio, MaxP99: t.maxP99, MaxErrorRate: t.maxErrorRate}, nil
}

// usage wraps a bad-flag or setup error as exit code 2.
func usage(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// flagErr is usage for an error from the packages: a parameter they name
// (a2aclient.ParamError) is shown as its flag.
func flagErr(err error) error {
	var pe *a2aclient.ParamError
	if errors.As(err, &pe) {
		return &exitError{code: 2, err: fmt.Errorf("--%s: %s", pe.Param, pe.Msg)}
	}
	return &exitError{code: 2, err: err}
}

// verdictExit turns a failing summary into exit code 1, and an
// inconclusive one too when failInconclusive is set.
func verdictExit(s *loadgen.Summary, failInconclusive bool) error {
	if s.Passed() {
		return nil
	}
	if s.Verdict == loadgen.VerdictInconclusive {
		if !failInconclusive {
			return nil
		}
		return &exitError{code: 1, err: fmt.Errorf("verdict INCONCLUSIVE (--fail-inconclusive): %s", strings.Join(s.Inconclusive, "; "))}
	}
	var why []string
	for _, t := range s.Thresholds {
		if t.Status != loadgen.StatusPass {
			why = append(why, t.Name+" "+t.Status)
		}
	}
	if len(why) == 0 {
		why = append(why, "no results")
	}
	return &exitError{code: 1, err: fmt.Errorf("verdict FAIL: %s", strings.Join(why, ", "))}
}

// isVerdict reports whether err is a failing verdict (exit 1) rather than
// a setup error.
func isVerdict(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == 1
}

// writeSummaryJSON writes the summary to path atomically ("-" is stdout).
func writeSummaryJSON(path string, s *loadgen.Summary, stdout io.Writer) error {
	b, err := s.JSON()
	if err != nil {
		return err
	}
	if path == "-" {
		_, err := stdout.Write(b)
		return err
	}
	if err := loadgen.WriteFileAtomic(path, b); err != nil {
		return usage("--json: %v", err)
	}
	return nil
}

// finishSummary prints the summary table, writes the JSON summary if asked
// (after the table, for "-"), and turns the verdict into the exit status.
func finishSummary(stdout io.Writer, s *loadgen.Summary, jsonPath string, failInconclusive bool) error {
	if err := s.WriteText(stdout); err != nil {
		return err
	}
	if jsonPath != "" {
		if err := writeSummaryJSON(jsonPath, s, stdout); err != nil {
			return err
		}
	}
	return verdictExit(s, failInconclusive)
}

// loadOptions are the load command's flags.
type loadOptions struct {
	target, binding, control, controlToken                 string
	principals                                             []string
	contextID, status, rate, depths, schedule, sizes       string
	jsonPath, outDir, generator, progress, startAt         string
	seedTasks, pageSize, historyLength, maxPages           int
	tokenTTL, duration, timeout, warmup, maxWalk, phaseGap time.Duration
	seedOnly, verbose                                      bool
	maxSizeRatio                                           float64
	th                                                     thresholdFlags
}

// defaultLoadOptions are the defaults of the flags.
func defaultLoadOptions() loadOptions {
	return loadOptions{binding: a2aclient.BindingAll, rate: "50", depths: loadgen.DefaultDepths.String(), schedule: loadgen.DefaultSchedule.Name(),
		progress: "auto", pageSize: 100, maxPages: loadgen.DefaultMaxPages, duration: loadgen.DefaultDuration, timeout: loadgen.DefaultTimeout,
		warmup: time.Second, maxWalk: 5 * time.Minute, phaseGap: 5 * time.Second, maxSizeRatio: loadgen.DefaultMaxSizeRatio, th: defaultThresholdFlags()}
}

// loadLong is the load command's help text.
const loadLong = `Measure per-page ListTasks latency at depth with vegeta, open loop.

load walks one principal's list (the first --principal's; any other is
ignored, with a note on stderr) and keeps, for each page depth, the exact
request that fetches that page (depth d carries the token returned by page
d-1). It then attacks the depths (default 1, 10, 100, 1000 and the last
page) open loop at --rate each for --duration: by default in one attack
that visits every depth once per round, in a shuffled order (--schedule
interleaved), so that every depth sees the same warm-up and the same noise.
It records latency from the intended send time in an HDR histogram
(coordinated omission corrected) beside the uncorrected latency of the same
requests (a second HDR histogram, from the actual send), and judges the
depth cost: the ratio median(deepest)/median(first page) with a
95% confidence interval, against --max-depth-ratio. p99s and the p99 ratio
are reported and decide nothing unless --max-p99 is given.

Verdicts: PASS (the whole interval is at or below --max-depth-ratio and every
other threshold held); FAIL (the whole interval is above it, or a threshold
was breached or had no samples); INCONCLUSIVE (the interval straddles the
limit, a depth has fewer than 100 samples, the first page's median is more
than 3x its 5th percentile or climbed through the attack (waiting, which
every depth shares, hides a depth cost), or the walk stopped before the
list's last page), with advice such as "raise --duration to about 30s".
Every verdict states the samples per depth it rests on.

--sizes 10000,100000 adds a store-size study: through the control API it
seeds a list of its own (a fresh contextId; it never resets or touches other
tasks) up to each size in turn, measures page 1 and a deep page at each size
with the same warm-up, and judges page 1's median latency at the largest
size over the smallest (95% interval) against --max-size-ratio, with the
same PASS / FAIL / INCONCLUSIVE rules. Without a control API the study is
skipped, with its reason.

--binding all (the default) runs the whole measurement once per binding the
Agent Card offers (JSON-RPC, then HTTP+JSON), one after the other: with
several bindings, --json FILE.json writes FILE-jsonrpc.json and
FILE-http.json beside it ("-" writes both summaries to stdout, one after
the other), --out DIR writes DIR/jsonrpc and DIR/http, and the exit status
is the worst of the runs. --seed-tasks seeds once, before the first run.
--start-at needs one binding (--binding jsonrpc or http).

On a terminal (or with -v) a live line every 2s shows the attack's elapsed
time, results against the sends expected, errors and the p50 so far.

Exit codes: 0 pass, or inconclusive without --fail-inconclusive; 1 a
threshold was breached or had no samples to judge, or inconclusive with
--fail-inconclusive; 2 bad flags or a setup error (discovery, seeding,
harvest).

See docs/load.md.`

// loadExample is the load command's examples.
const loadExample = `  pagewalk load --target http://127.0.0.1:8080 --principal alice=alice-token \
      --control-token ctl --seed-tasks 1000000 --rate 100 --duration 10s --out load-out --json load.json
  pagewalk load --target http://127.0.0.1:8080 --principal alice=alice-token --binding http \
      --depths 1,500,last --max-p99 50ms
  # does page cost grow with the store? (needs the control API)
  pagewalk load --target http://127.0.0.1:8080 --principal alice=alice-token --control-token ctl \
      --binding jsonrpc --depths 1,last --sizes 10000,100000 --max-size-ratio 1.5
  # one of three generators sharing 150/s:
  pagewalk load --target http://sut:8080 --principal alice=alice-token --binding jsonrpc --rate 150/3s --out /results/gen-0`

func loadCmd() *cobra.Command {
	o := defaultLoadOptions()
	cmd := &cobra.Command{
		Use:     "load",
		Short:   "Measure ListTasks latency per page depth and judge the depth cost",
		Long:    loadLong,
		Example: loadExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := loadMain(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
			return err
		},
	}
	o.register(cmd.Flags())
	return cmd
}

func (o *loadOptions) register(f *pflag.FlagSet) {
	f.StringVar(&o.target, "target", "", "the agent's base URL or Agent Card URL (required)")
	f.StringVar(&o.binding, "binding", o.binding, "bindings to load: jsonrpc, http or all (each the agent card offers, one run after another)")
	f.StringArrayVar(&o.principals, "principal", nil, "NAME=TOKEN bearer identity (required; repeatable, but load walks only the first principal's list)")
	f.StringVar(&o.control, "control", "", "control API base URL (default: from the agent card's control extension)")
	f.StringVar(&o.controlToken, "control-token", "", "bearer token of the control API (needed for --seed-tasks and --sizes, and to read the token TTL)")
	f.IntVar(&o.seedTasks, "seed-tasks", o.seedTasks, "first generate this many tasks for the principal through the control API (batches of 100,000)")
	f.IntVar(&o.seedTasks, "seed", o.seedTasks, "deprecated spelling of --seed-tasks")
	_ = f.MarkDeprecated("seed", "use --seed-tasks")
	f.BoolVar(&o.seedOnly, "seed-only", false, "seed (--seed-tasks N) and exit without harvesting or attacking, e.g. before starting several generators")
	f.IntVar(&o.pageSize, "page-size", o.pageSize, "pageSize of every ListTasks request")
	f.StringVar(&o.contextID, "context-id", "", "filter the list by this contextId (seeded tasks get it too)")
	f.StringVar(&o.status, "status", "", "filter the list by this TaskState, e.g. TASK_STATE_COMPLETED (seeded tasks get it too)")
	f.IntVar(&o.historyLength, "history-length", o.historyLength, "historyLength of every request (-1: leave unset)")
	f.IntVar(&o.maxPages, "max-pages", o.maxPages, "stop harvesting after this many pages (the deepest then stands in for the last page)")
	f.DurationVar(&o.maxWalk, "max-walk", o.maxWalk, "stop harvesting after walking this long (the deepest page then stands in for the last; 0: no bound)")
	f.DurationVar(&o.tokenTTL, "token-ttl", o.tokenTTL, "page-token lifetime; tokens are harvested again before they expire (0: ask the control API, else 10m)")
	f.StringVar(&o.rate, "rate", o.rate, "open-loop request rate per depth: N per second, or N/DURATION (150/3s is a third of 150/s); interleaved, the attack runs at this times the number of depths")
	f.DurationVar(&o.duration, "duration", o.duration, "measured attack duration (interleaved: of the one attack over every depth; sequential: per depth)")
	f.DurationVar(&o.warmup, "warmup", o.warmup, "unmeasured warm-up at --rate just before the measured attack (sequential: per depth; 0: none)")
	f.StringVar(&o.schedule, "schedule", o.schedule, "interleaved: one attack visiting every depth in shuffled rounds, so all depths share warm-up and noise; sequential: one attack per depth, one after another")
	f.StringVar(&o.depths, "depths", o.depths, "page depths to attack, comma-separated; \"last\" is the list's last page; depths beyond the list are skipped")
	f.DurationVar(&o.timeout, "timeout", o.timeout, "per-request timeout")
	f.StringVar(&o.jsonPath, "json", "", "write the JSON summary to this file (- for stdout, after the table); with several bindings, FILE-<binding>.json beside it")
	f.StringVar(&o.outDir, "out", "", "write results.bin (vegeta gob results), depth-N.hlog (HDR logs) and summary.json into this directory (with several bindings, DIR/<binding>)")
	f.StringVar(&o.generator, "generator", "", "this generator's name in attack names (default HOSTNAME-PID); must differ between generators")
	f.StringVar(&o.startAt, "start-at", "", "RFC 3339 time at which to begin the attack, so generators line up (one binding only; sequential: depth i begins at start-at + i×(warmup+duration+phase-gap))")
	f.DurationVar(&o.phaseGap, "phase-gap", o.phaseGap, "sequential with --start-at: the pause between one depth's attack and the next, for replies to drain")
	f.StringVar(&o.progress, "progress", o.progress, "progress on stderr: auto (a bar on a terminal, lines otherwise), bar, lines or none")
	f.StringVar(&o.sizes, "sizes", "", "also measure page cost against store size: seed a list of its own up to each of these sizes in turn (e.g. 10000,100000; needs the control API) and compare page 1's latency at the smallest and largest")
	f.Float64Var(&o.maxSizeRatio, "max-size-ratio", o.maxSizeRatio, "with --sizes, fail unless the median ratio of page 1 at the largest size over the smallest is at most this with 95% confidence (0: report only)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "show the live attack progress line (every 2s) even when stderr is not a terminal")
	o.th.register(f)
}
