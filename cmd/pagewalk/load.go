package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/term"
)

// thresholdFlags are the CI gates shared by load and report merge.
type thresholdFlags struct {
	maxRatio         float64
	maxP99           time.Duration
	maxErrorRate     float64
	failInconclusive bool
}

func (t *thresholdFlags) register(f *pflag.FlagSet) {
	d := loadgen.DefaultThresholds
	f.Float64Var(&t.maxRatio, "max-depth-ratio", d.MaxDepthRatio, "fail when median(deepest depth)/median(first depth), coordinated-omission corrected, is above this with 95% confidence; pass when it is below; inconclusive in between (0: off)")
	f.DurationVar(&t.maxP99, "max-p99", 0, "fail when any depth's corrected p99 exceeds this duration, e.g. 50ms (0: off)")
	f.Float64Var(&t.maxErrorRate, "max-error-rate", d.MaxErrorRate, "fail when any depth's errors/requests exceeds this fraction (negative: off)")
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

func loadCmd() *cobra.Command {
	var (
		target, bindingName, principal, controlURL, controlToken string
		contextID, status, rateSpec, depthSpec, jsonPath, outDir string
		generator, progressMode, startAt, scheduleName           string
		sizesSpec                                                string
		seed, pageSize, historyLength, maxPages                  int
		tokenTTL, duration, timeout, warmup, maxWalk, phaseGap   time.Duration
		seedOnly, verbose                                        bool
		maxSizeRatio                                             float64
		th                                                       thresholdFlags
	)
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Measure ListTasks latency per page depth and judge the depth cost",
		Long: `Measure per-page ListTasks latency at depth with vegeta, open loop.

load walks the target's list as one principal and keeps, for each page depth,
the exact request that fetches that page (depth d carries the token returned
by page d-1). It then attacks the depths (default 1, 10, 100, 1000 and the
last page) open loop at --rate each for --duration: by default in one attack
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

On a terminal (or with -v) a live line every 2s shows the attack's elapsed
time, results against the sends expected, errors and the p50 so far.

Exit codes: 0 pass, or inconclusive without --fail-inconclusive; 1 a
threshold was breached or had no samples to judge, or inconclusive with
--fail-inconclusive; 2 bad flags or a setup error (discovery, seeding,
harvest).

See docs/load.md.`,
		Example: `  pagewalk load --target http://127.0.0.1:8080 --principal alice=alice-token \
      --control-token ctl --seed 1000000 --rate 100 --duration 10s --out load-out --json load.json
  pagewalk load --target http://127.0.0.1:8080 --principal alice=alice-token --binding http \
      --depths 1,500,last --max-p99 50ms
  # does page cost grow with the store? (needs the control API)
  pagewalk load --target http://127.0.0.1:8080 --principal alice=alice-token --control-token ctl \
      --depths 1,last --sizes 10000,100000 --max-size-ratio 1.5
  # one of three generators sharing 150/s:
  pagewalk load --target http://sut:8080 --principal alice=alice-token --rate 150/3s --out /results/gen-0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Validate every flag before touching the network.
			if target == "" {
				return usage("--target: required (the agent's base URL or its Agent Card URL)")
			}
			if _, err := a2aclient.CardURL(target); err != nil {
				return flagErr(err)
			}
			var binding a2aclient.Binding
			switch strings.ToLower(bindingName) {
			case "jsonrpc", "json-rpc":
				binding = a2aclient.JSONRPC
			case "http", "http+json", "rest":
				binding = a2aclient.HTTPJSON
			default:
				return usage("--binding: want jsonrpc or http, got %q", bindingName)
			}
			pname, ptoken, ok := strings.Cut(principal, "=")
			if principal == "" || !ok || pname == "" || ptoken == "" {
				return usage("--principal: want NAME=TOKEN (the principal whose list is walked and its bearer token), got %q", principal)
			}
			rate, err := loadgen.ParseRate(rateSpec)
			if err != nil {
				return usage("--rate: %v", err)
			}
			depths, err := loadgen.ParseDepths(depthSpec)
			if err != nil {
				return usage("--depths: %v", err)
			}
			schedule, err := loadgen.ParseSchedule(scheduleName)
			if err != nil {
				return usage("--schedule: %v", err)
			}
			thresholds, err := th.thresholds()
			if err != nil {
				return flagErr(err)
			}
			switch {
			case seed < 0:
				return usage("--seed: must be 0 (no seeding) or positive, got %d", seed)
			case seedOnly && seed == 0:
				return usage("--seed-only: give --seed N too")
			case pageSize < 1:
				return usage("--page-size: must be at least 1, got %d", pageSize)
			case historyLength < -1:
				return usage("--history-length: must be -1 (unset) or at least 0, got %d", historyLength)
			case maxPages < 1:
				return usage("--max-pages: must be at least 1, got %d", maxPages)
			case tokenTTL < 0:
				return usage("--token-ttl: must be positive (or 0 to ask the control API), got %s", tokenTTL)
			case duration <= 0:
				return usage("--duration: must be positive, got %s", duration)
			case timeout <= 0:
				return usage("--timeout: must be positive, got %s", timeout)
			case warmup < 0:
				return usage("--warmup: must be 0 (none) or positive, got %s", warmup)
			case maxWalk < 0:
				return usage("--max-walk: must be 0 (no bound) or positive, got %s", maxWalk)
			case generator != "" && !loadgen.ValidGenerator(generator):
				return usage("--generator: %q must be 1-100 characters from letters, digits and . _ : @ + -", generator)
			case controlURL != "" && !strings.HasPrefix(controlURL, "http://") && !strings.HasPrefix(controlURL, "https://"):
				return usage("--control: want the control API's http(s) base URL, e.g. http://127.0.0.1:8080/control, got %q", controlURL)
			}
			var sizes []int
			if sizesSpec != "" {
				if sizes, err = loadgen.ParseSizes(sizesSpec); err != nil {
					return usage("--sizes: %v", err)
				}
				if startAt != "" {
					return usage("--sizes: not with --start-at (a size study seeds between its measurements, so generators cannot line up)")
				}
			}
			if maxSizeRatio < 0 || (maxSizeRatio > 0 && maxSizeRatio < 1) {
				return usage("--max-size-ratio: must be 0 (off) or at least 1, got %s", loadgen.FormatNumber(maxSizeRatio, 3))
			}
			var start time.Time
			if startAt != "" {
				if start, err = time.Parse(time.RFC3339, startAt); err != nil {
					return usage("--start-at: want an RFC 3339 time such as 2026-01-02T15:04:05Z, got %q", startAt)
				}
				if time.Now().After(start) {
					return usage("--start-at: %s is in the past", startAt)
				}
				if phaseGap < 0 {
					return usage("--phase-gap: must be 0 or positive, got %s", phaseGap)
				}
			}
			var tty bool
			switch progressMode {
			case "auto":
				tty = term.IsTerminal(int(os.Stderr.Fd()))
			case "bar":
				tty = true
			case "lines", "none":
			default:
				return usage("--progress: want auto, bar, lines or none, got %q", progressMode)
			}
			if jsonPath != "" && jsonPath != "-" {
				if st, err := os.Stat(jsonPath); err == nil && st.IsDir() {
					return usage("--json: %s is a directory", jsonPath)
				}
			}
			progress := loadgen.NoProgress
			var live *loadgen.AttackProgress
			if progressMode != "none" {
				progress = loadgen.NewProgress(cmd.ErrOrStderr(), tty, 5*time.Second)
				if tty || verbose {
					live = loadgen.NewAttackProgress(progress, 2*time.Second)
					defer live.Stop()
				}
			}
			var liveSink func(*vegeta.Result) error
			if live != nil {
				liveSink = live.Sink
			}

			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			hc := &http.Client{Timeout: timeout}

			card, err := a2aclient.Discover(ctx, hc, target)
			if err != nil {
				return usage("--target: %v", err)
			}
			iface, ok := card.Interface(binding)
			if !ok {
				return usage("--binding %s: the agent card at %s offers no %s interface with protocolVersion %s", bindingName, card.URL, binding, a2aclient.ProtocolVersion)
			}
			client := &a2aclient.Client{HTTP: hc, Iface: iface, Principal: pname, Token: ptoken}

			var ctl *a2aclient.Control
			if controlURL == "" {
				controlURL = card.ControlURL
			}
			if controlURL != "" && controlToken != "" {
				ctl = &a2aclient.Control{HTTP: &http.Client{Timeout: 10 * time.Minute}, URL: controlURL, Token: controlToken}
			}
			if seed > 0 && ctl == nil {
				if controlURL == "" {
					return usage("--seed: needs a control API; the agent card declares none, so give --control URL and --control-token")
				}
				return usage("--seed: needs --control-token for the control API at %s", controlURL)
			}
			ttl := tokenTTL
			if ttl == 0 && ctl != nil {
				info, err := ctl.Info(ctx)
				if err != nil {
					return usage("control API: %v (give --token-ttl to skip asking)", err)
				}
				if info.TokenTTLSeconds > 0 {
					ttl = time.Duration(info.TokenTTLSeconds) * time.Second
				}
			}
			if ttl == 0 {
				ttl = loadgen.DefaultTokenTTL
			}
			seeded := 0
			if seed > 0 {
				progress.Logf("seeding %s tasks for %s through %s (batches of %s)", loadgen.FormatCount(int64(seed)), pname, controlURL, loadgen.FormatCount(loadgen.SeedBatch))
				seeded, err = loadgen.Seed(ctx, ctl, loadgen.SeedSpec{Count: seed, Owner: pname, Tenant: iface.Tenant,
					ContextID: contextID, State: status}, progress)
				if err != nil {
					return usage("--seed: %v", err)
				}
				if seedOnly {
					fmt.Fprintf(cmd.OutOrStdout(), "pagewalk load: seeded %s tasks for %s; --seed-only, so no load was run\n", loadgen.FormatCount(int64(seeded)), pname)
					return nil
				}
			}

			hopts := []loadgen.HarvestOption{loadgen.WithDepths(depths), loadgen.WithPageSize(pageSize), loadgen.WithHistoryLength(historyLength),
				loadgen.WithMaxPages(maxPages), loadgen.WithMaxWalk(maxWalk), loadgen.WithTokenTTL(ttl, 0), loadgen.WithHarvestProgress(progress)}
			filters := map[string]string{}
			if contextID != "" {
				hopts = append(hopts, loadgen.WithContextID(contextID))
				filters["contextId"] = contextID
			}
			if status != "" {
				hopts = append(hopts, loadgen.WithStatus(status))
				filters["status"] = status
			}
			if len(filters) == 0 {
				filters = nil
			}
			h := loadgen.NewHarvester(client, hopts...)
			ropts := []loadgen.Option{loadgen.WithRate(rate), loadgen.WithDuration(duration), loadgen.WithWarmup(warmup), loadgen.WithTimeout(timeout),
				loadgen.WithThresholds(thresholds), loadgen.WithSchedule(schedule), loadgen.WithProgress(progress), loadgen.WithGenerator(generator),
				loadgen.WithDescription(target, pname, filters, seeded, "pagewalk "+version)}
			if liveSink != nil {
				ropts = append(ropts, loadgen.WithResultSink(liveSink))
			}
			if !start.IsZero() {
				ropts = append(ropts, loadgen.WithStartAt(start, phaseGap))
			}
			var out *loadgen.Output
			if outDir != "" {
				if out, err = loadgen.CreateOutput(outDir); err != nil {
					return flagErr(err)
				}
				defer out.Abort()
				ropts = append(ropts, loadgen.WithOutput(out))
			}
			runner := loadgen.NewRunner(h, ropts...)
			if err := runner.Validate(); err != nil {
				return flagErr(err)
			}
			s, err := runner.Run(ctx)
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return usage("interrupted; no results written")
				}
				return flagErr(err)
			}
			if sizes != nil {
				sr, err := runSizes(ctx, sizeRun{sizes: sizes, ctl: ctl, controlURL: controlURL, client: client, owner: pname, tenant: iface.Tenant,
					pageSize: pageSize, historyLength: historyLength, rate: rate, duration: duration, warmup: warmup, timeout: timeout, ttl: ttl,
					maxRatio: maxSizeRatio, generator: generator, progress: progress, sink: liveSink, schedule: schedule})
				if err != nil {
					if errors.Is(err, context.Canceled) {
						return usage("interrupted; no results written")
					}
					return flagErr(err)
				}
				s.AddSizes(sr)
			}
			if out != nil {
				if err := out.Close(); err != nil {
					return usage("--out: %v", err)
				}
				if err := out.WriteSummary(s); err != nil {
					return usage("--out: %v", err)
				}
			}
			return finishSummary(cmd.OutOrStdout(), s, jsonPath, th.failInconclusive)
		},
	}
	f := cmd.Flags()
	f.StringVar(&target, "target", "", "the agent's base URL or Agent Card URL (required)")
	f.StringVar(&bindingName, "binding", "jsonrpc", "protocol binding to load: jsonrpc or http (HTTP+JSON)")
	f.StringVar(&principal, "principal", "", "NAME=TOKEN: the principal whose list is walked, and its bearer token (required)")
	f.StringVar(&controlURL, "control", "", "control API base URL (default: from the agent card's control extension)")
	f.StringVar(&controlToken, "control-token", "", "bearer token of the control API (needed for --seed and to read the token TTL)")
	f.IntVar(&seed, "seed", 0, "first generate this many tasks for the principal through the control API (batches of 100,000)")
	f.BoolVar(&seedOnly, "seed-only", false, "seed (--seed N) and exit without harvesting or attacking, e.g. before starting several generators")
	f.IntVar(&pageSize, "page-size", 100, "pageSize of every ListTasks request")
	f.StringVar(&contextID, "context-id", "", "filter the list by this contextId (seeded tasks get it too)")
	f.StringVar(&status, "status", "", "filter the list by this TaskState, e.g. TASK_STATE_COMPLETED (seeded tasks get it too)")
	f.IntVar(&historyLength, "history-length", 0, "historyLength of every request (-1: leave unset)")
	f.IntVar(&maxPages, "max-pages", loadgen.DefaultMaxPages, "stop harvesting after this many pages (the deepest then stands in for the last page)")
	f.DurationVar(&maxWalk, "max-walk", 5*time.Minute, "stop harvesting after walking this long (the deepest page then stands in for the last; 0: no bound)")
	f.DurationVar(&tokenTTL, "token-ttl", 0, "page-token lifetime; tokens are harvested again before they expire (0: ask the control API, else 10m)")
	f.StringVar(&rateSpec, "rate", "50", "open-loop request rate per depth: N per second, or N/DURATION (150/3s is a third of 150/s); interleaved, the attack runs at this times the number of depths")
	f.DurationVar(&duration, "duration", loadgen.DefaultDuration, "measured attack duration (interleaved: of the one attack over every depth; sequential: per depth)")
	f.DurationVar(&warmup, "warmup", time.Second, "unmeasured warm-up at --rate just before the measured attack (sequential: per depth; 0: none)")
	f.StringVar(&scheduleName, "schedule", loadgen.DefaultSchedule.Name(), "interleaved: one attack visiting every depth in shuffled rounds, so all depths share warm-up and noise; sequential: one attack per depth, one after another")
	f.StringVar(&depthSpec, "depths", loadgen.DefaultDepths.String(), "page depths to attack, comma-separated; \"last\" is the list's last page; depths beyond the list are skipped")
	f.DurationVar(&timeout, "timeout", loadgen.DefaultTimeout, "per-request timeout")
	f.StringVar(&jsonPath, "json", "", "write the JSON summary to this file (- for stdout, after the table)")
	f.StringVar(&outDir, "out", "", "write results.bin (vegeta gob results), depth-N.hlog (HDR logs) and summary.json into this directory")
	f.StringVar(&generator, "generator", "", "this generator's name in attack names (default HOSTNAME-PID); must differ between generators")
	f.StringVar(&startAt, "start-at", "", "RFC 3339 time at which to begin the attack, so generators line up (sequential: depth i begins at start-at + i×(warmup+duration+phase-gap))")
	f.DurationVar(&phaseGap, "phase-gap", 5*time.Second, "sequential with --start-at: the pause between one depth's attack and the next, for replies to drain")
	f.StringVar(&progressMode, "progress", "auto", "progress on stderr: auto (a bar on a terminal, lines otherwise), bar, lines or none")
	f.StringVar(&sizesSpec, "sizes", "", "also measure page cost against store size: seed a list of its own up to each of these sizes in turn (e.g. 10000,100000; needs the control API) and compare page 1's latency at the smallest and largest")
	f.Float64Var(&maxSizeRatio, "max-size-ratio", loadgen.DefaultMaxSizeRatio, "with --sizes, fail unless the median ratio of page 1 at the largest size over the smallest is at most this with 95% confidence (0: report only)")
	f.BoolVarP(&verbose, "verbose", "v", false, "show the live attack progress line (every 2s) even when stderr is not a terminal")
	th.register(f)
	return cmd
}

// sizeRun is what runSizes needs from the load command.
type sizeRun struct {
	sizes                          []int
	ctl                            *a2aclient.Control
	controlURL                     string
	client                         *a2aclient.Client
	owner, tenant, generator       string
	pageSize, historyLength        int
	rate                           loadgen.Rate
	duration, warmup, timeout, ttl time.Duration
	maxRatio                       float64
	progress                       loadgen.Progress
	sink                           func(*vegeta.Result) error
	schedule                       loadgen.Schedule
}

// runSizes runs the --sizes study, or, without a control API to seed
// through, returns it skipped with the reason.
func runSizes(ctx context.Context, r sizeRun) (*loadgen.SizesResult, error) {
	if r.ctl == nil {
		why := "the agent card declares no control API and --control was not given"
		if r.controlURL != "" {
			why = "no --control-token for the control API at " + r.controlURL
		}
		r.progress.Logf("size study skipped: %s", why)
		return &loadgen.SizesResult{Skipped: "needs the control API to seed its own tasks: " + why}, nil
	}
	st := &loadgen.SizeStudy{Sizes: r.sizes, Control: r.ctl, Client: r.client, Owner: r.owner, Tenant: r.tenant,
		PageSize: r.pageSize, HistoryLength: r.historyLength, Rate: r.rate, Duration: r.duration, Warmup: r.warmup, Timeout: r.timeout,
		TokenTTL: r.ttl, MaxRatio: r.maxRatio, Generator: r.generator, Progress: r.progress, Sink: r.sink, Schedule: r.schedule}
	return st.Run(ctx)
}
