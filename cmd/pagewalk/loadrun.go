package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/term"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// loadPlan is what validate makes of the flags: every value parsed, and
// the progress reporting loadMain sets up.
type loadPlan struct {
	principal a2aclient.Principal
	// ignored names the other principals given; load walks one list.
	ignored    []string
	rate       loadgen.Rate
	depths     loadgen.DepthSpec
	schedule   loadgen.Schedule
	thresholds loadgen.Thresholds
	sizes      []int
	start      time.Time
	tty        bool
	progress   loadgen.Progress
	sink       func(*vegeta.Result) error
}

// loadMain runs load as the command does: validate every flag, discover
// the target, seed if asked, then measure once per binding (SIGINT and
// SIGTERM stop it), printing each table and writing each summary as its
// run ends. The exit status is the worst of the runs. It returns the
// summaries of the runs that finished, with a verdict error (exit 1) too.
func loadMain(ctx context.Context, stdout, stderr io.Writer, o loadOptions) ([]*loadgen.Summary, error) {
	p, err := o.validate()
	if err != nil {
		return nil, err
	}
	if len(p.ignored) > 0 {
		fmt.Fprintf(stderr, "pagewalk load: load walks one principal's list, %s's; --principal %s ignored\n", p.principal.Name, strings.Join(p.ignored, ", "))
	}
	p.progress = loadgen.NoProgress
	if o.progress != "none" {
		p.progress = loadgen.NewProgress(stderr, p.tty, 5*time.Second)
		if p.tty || o.verbose {
			live := loadgen.NewAttackProgress(p.progress, 2*time.Second)
			defer live.Stop()
			p.sink = live.Sink
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	t, err := openLoadTarget(ctx, &o, p)
	if err != nil {
		return nil, err
	}
	if o.seedOnly {
		fmt.Fprintf(stdout, "pagewalk load: seeded %s tasks for %s; --seed-only, so no load was run\n", loadgen.FormatCount(int64(t.seeded)), p.principal.Name)
		return nil, nil
	}
	var sums []*loadgen.Summary
	var verdicts []string
	for i, b := range t.bindings {
		if len(t.bindings) > 1 {
			p.progress.Logf("binding %s (%d of %d)", b, i+1, len(t.bindings))
			if i > 0 {
				fmt.Fprintln(stdout)
			}
		}
		s, err := runLoad(ctx, &o, p, t, b)
		if err != nil {
			return sums, err
		}
		sums = append(sums, s)
		if err := finishSummary(stdout, s, bindingPath(o.jsonPath, b, len(t.bindings)), o.th.failInconclusive); err != nil {
			if !isVerdict(err) {
				return sums, err
			}
			verdicts = append(verdicts, bindingNote(b, len(t.bindings))+err.Error())
		}
	}
	if len(verdicts) > 0 {
		return sums, &exitError{code: 1, err: errors.New(strings.Join(verdicts, "; "))}
	}
	return sums, nil
}

// validate checks every flag before anything touches the network; each
// error names its flag (exit 2).
func (o *loadOptions) validate() (*loadPlan, error) {
	if strings.TrimSpace(o.target) == "" {
		return nil, usage(`--target: required (the agent's base URL or its Agent Card URL; is a variable in --target "$A2A_URL" unset?)`)
	}
	if _, err := a2aclient.CardURL(o.target); err != nil {
		return nil, flagErr(err)
	}
	bindings, err := a2aclient.ParseBindings(o.binding)
	if err != nil {
		return nil, flagErr(err)
	}
	p := &loadPlan{}
	if err := p.parsePrincipals(o.principals); err != nil {
		return nil, err
	}
	if p.rate, err = loadgen.ParseRate(o.rate); err != nil {
		return nil, usage("--rate: %v", err)
	}
	if p.depths, err = loadgen.ParseDepths(o.depths); err != nil {
		return nil, usage("--depths: %v", err)
	}
	if p.schedule, err = loadgen.ParseSchedule(o.schedule); err != nil {
		return nil, usage("--schedule: %v", err)
	}
	if p.thresholds, err = o.th.thresholds(); err != nil {
		return nil, flagErr(err)
	}
	if err := o.checkNumbers(); err != nil {
		return nil, err
	}
	if o.sizes != "" {
		if p.sizes, err = loadgen.ParseSizes(o.sizes); err != nil {
			return nil, usage("--sizes: %v", err)
		}
		if o.startAt != "" {
			return nil, usage("--sizes: not with --start-at (a size study seeds between its measurements, so generators cannot line up)")
		}
	}
	if o.maxSizeRatio < 0 || (o.maxSizeRatio > 0 && o.maxSizeRatio < 1) {
		return nil, usage("--max-size-ratio: must be 0 (off) or at least 1, got %s", loadgen.FormatNumber(o.maxSizeRatio, 3))
	}
	if p.start, err = o.startTime(len(bindings)); err != nil {
		return nil, err
	}
	switch o.progress {
	case "auto":
		p.tty = term.IsTerminal(int(os.Stderr.Fd()))
	case "bar":
		p.tty = true
	case "lines", "none":
	default:
		return nil, usage("--progress: want auto, bar, lines or none, got %q", o.progress)
	}
	// The card decides how many of the bindings asked for run: check the
	// path as given and the one per binding.
	paths := []string{o.jsonPath}
	for _, b := range bindings {
		paths = append(paths, bindingPath(o.jsonPath, b, len(bindings)))
	}
	for _, path := range paths {
		if st, err := os.Stat(path); path != "" && path != "-" && err == nil && st.IsDir() {
			return nil, usage("--json: %s is a directory", path)
		}
	}
	return p, nil
}

// parsePrincipals takes the first --principal as the one whose list is
// walked and notes the others' names.
func (p *loadPlan) parsePrincipals(vals []string) error {
	if len(vals) == 0 {
		return usage("--principal: required: NAME=TOKEN, the principal whose list is walked and its bearer token")
	}
	ps, err := a2aclient.ParsePrincipals(vals)
	if err != nil {
		return flagErr(err)
	}
	p.principal = ps[0]
	for _, x := range ps[1:] {
		p.ignored = append(p.ignored, x.Name)
	}
	return nil
}

// checkNumbers checks the numeric and simple string flags.
func (o *loadOptions) checkNumbers() error {
	switch {
	case o.seedTasks < 0:
		return usage("--seed-tasks: must be 0 (no seeding) or positive, got %d", o.seedTasks)
	case o.seedOnly && o.seedTasks == 0:
		return usage("--seed-only: give --seed-tasks N too")
	case o.pageSize < 1:
		return usage("--page-size: must be at least 1, got %d", o.pageSize)
	case o.historyLength < -1:
		return usage("--history-length: must be -1 (unset) or at least 0, got %d", o.historyLength)
	case o.maxPages < 1:
		return usage("--max-pages: must be at least 1, got %d", o.maxPages)
	case o.tokenTTL < 0:
		return usage("--token-ttl: must be positive (or 0 to ask the control API), got %s", o.tokenTTL)
	case o.duration <= 0:
		return usage("--duration: must be positive, got %s", o.duration)
	case o.timeout <= 0:
		return usage("--timeout: must be positive, got %s", o.timeout)
	case o.warmup < 0:
		return usage("--warmup: must be 0 (none) or positive, got %s", o.warmup)
	case o.maxWalk < 0:
		return usage("--max-walk: must be 0 (no bound) or positive, got %s", o.maxWalk)
	case o.generator != "" && !loadgen.ValidGenerator(o.generator):
		return usage("--generator: %q must be 1-100 characters from letters, digits and . _ : @ + -", o.generator)
	case o.control != "" && !strings.HasPrefix(o.control, "http://") && !strings.HasPrefix(o.control, "https://"):
		return usage("--control: want the control API's http(s) base URL, e.g. http://127.0.0.1:8080/control, got %q", o.control)
	}
	return nil
}

// startTime parses --start-at (zero when not given); it needs one binding.
func (o *loadOptions) startTime(bindings int) (time.Time, error) {
	if o.startAt == "" {
		return time.Time{}, nil
	}
	start, err := time.Parse(time.RFC3339, o.startAt)
	switch {
	case err != nil:
		return start, usage("--start-at: want an RFC 3339 time such as 2026-01-02T15:04:05Z, got %q", o.startAt)
	case time.Now().After(start):
		return start, usage("--start-at: %s is in the past", o.startAt)
	case o.phaseGap < 0:
		return start, usage("--phase-gap: must be 0 or positive, got %s", o.phaseGap)
	case bindings > 1:
		return start, usage("--start-at: needs one binding, but --binding %s runs one measurement per binding, one after the other, so generators cannot line up; give --binding jsonrpc or --binding http", o.binding)
	}
	return start, nil
}

// bindingPath is where binding b's output goes when n bindings run: path
// itself for one binding (or stdout, "-"); otherwise a name beside it,
// with the binding before the extension (load.json: load-jsonrpc.json).
func bindingPath(path string, b a2aclient.Binding, n int) string {
	if n < 2 || path == "" || path == "-" {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + string(b) + ext
}

// bindingNote prefixes a message with the binding when several run.
func bindingNote(b a2aclient.Binding, n int) string {
	if n < 2 {
		return ""
	}
	return string(b) + ": "
}

// loadTarget is the discovered target: its card, the bindings to load,
// the control API (nil without one), the page-token TTL and the tasks
// seeded.
type loadTarget struct {
	card       *a2aclient.Card
	bindings   []a2aclient.Binding
	hc         *http.Client
	ctl        *a2aclient.Control
	controlURL string
	ttl        time.Duration
	seeded     int
}

// openLoadTarget discovers the target, picks the bindings, resolves the
// control API and the token TTL, and seeds (once, before any run).
func openLoadTarget(ctx context.Context, o *loadOptions, p *loadPlan) (*loadTarget, error) {
	t := &loadTarget{hc: &http.Client{Timeout: o.timeout}, controlURL: o.control}
	var err error
	if t.card, err = a2aclient.Discover(ctx, t.hc, o.target); err != nil {
		return nil, usage("--target: %v", err)
	}
	if t.bindings, err = a2aclient.SelectBindings(t.card, o.binding); err != nil {
		return nil, flagErr(err)
	}
	if t.controlURL == "" {
		t.controlURL = t.card.ControlURL
	}
	if t.controlURL != "" && o.controlToken != "" {
		t.ctl = &a2aclient.Control{HTTP: &http.Client{Timeout: 10 * time.Minute}, URL: t.controlURL, Token: o.controlToken}
	}
	if o.seedTasks > 0 && t.ctl == nil {
		if t.controlURL == "" {
			return nil, usage("--seed-tasks: needs a control API; the agent card declares none, so give --control URL and --control-token")
		}
		return nil, usage("--seed-tasks: needs --control-token for the control API at %s", t.controlURL)
	}
	t.ttl = o.tokenTTL
	if t.ttl == 0 && t.ctl != nil {
		if t.ttl, err = t.ctl.TokenTTL(ctx); err != nil {
			return nil, usage("control API: %v (give --token-ttl to skip asking)", err)
		}
	}
	if t.ttl == 0 {
		t.ttl = loadgen.DefaultTokenTTL
	}
	if o.seedTasks > 0 {
		iface, _ := t.card.Interface(t.bindings[0])
		p.progress.Logf("seeding %s tasks for %s through %s (batches of %s)", loadgen.FormatCount(int64(o.seedTasks)), p.principal.Name, t.controlURL, loadgen.FormatCount(loadgen.SeedBatch))
		t.seeded, err = loadgen.Seed(ctx, t.ctl, loadgen.SeedSpec{Count: o.seedTasks, Owner: p.principal.Name, Tenant: iface.Tenant,
			ContextID: o.contextID, State: o.status}, p.progress)
		if err != nil {
			return nil, usage("--seed-tasks: %v", err)
		}
	}
	return t, nil
}

// runLoad measures binding b: harvest, attack, the size study if asked,
// and the --out files.
func runLoad(ctx context.Context, o *loadOptions, p *loadPlan, t *loadTarget, b a2aclient.Binding) (*loadgen.Summary, error) {
	iface, _ := t.card.Interface(b)
	client := &a2aclient.Client{HTTP: t.hc, Iface: iface, Principal: p.principal.Name, Token: p.principal.Token}
	hopts := []loadgen.HarvestOption{loadgen.WithDepths(p.depths), loadgen.WithPageSize(o.pageSize), loadgen.WithHistoryLength(o.historyLength),
		loadgen.WithMaxPages(o.maxPages), loadgen.WithMaxWalk(o.maxWalk), loadgen.WithTokenTTL(t.ttl, 0), loadgen.WithHarvestProgress(p.progress)}
	filters := map[string]string{}
	if o.contextID != "" {
		hopts = append(hopts, loadgen.WithContextID(o.contextID))
		filters["contextId"] = o.contextID
	}
	if o.status != "" {
		hopts = append(hopts, loadgen.WithStatus(o.status))
		filters["status"] = o.status
	}
	if len(filters) == 0 {
		filters = nil
	}
	ropts := []loadgen.Option{loadgen.WithRate(p.rate), loadgen.WithDuration(o.duration), loadgen.WithWarmup(o.warmup), loadgen.WithTimeout(o.timeout),
		loadgen.WithThresholds(p.thresholds), loadgen.WithSchedule(p.schedule), loadgen.WithProgress(p.progress), loadgen.WithGenerator(o.generator),
		loadgen.WithDescription(o.target, p.principal.Name, filters, t.seeded, "pagewalk "+version)}
	if p.sink != nil {
		ropts = append(ropts, loadgen.WithResultSink(p.sink))
	}
	if !p.start.IsZero() {
		ropts = append(ropts, loadgen.WithStartAt(p.start, o.phaseGap))
	}
	var out *loadgen.Output
	if o.outDir != "" {
		dir := o.outDir
		if len(t.bindings) > 1 {
			dir = filepath.Join(dir, string(b))
		}
		var err error
		if out, err = loadgen.CreateOutput(dir); err != nil {
			return nil, flagErr(err)
		}
		defer out.Abort()
		ropts = append(ropts, loadgen.WithOutput(out))
	}
	runner := loadgen.NewRunner(loadgen.NewHarvester(client, hopts...), ropts...)
	if err := runner.Validate(); err != nil {
		return nil, flagErr(err)
	}
	s, err := runner.Run(ctx)
	if err != nil {
		return nil, runErr(err, b, len(t.bindings))
	}
	if p.sizes != nil {
		sr, err := runSizes(ctx, sizeRun{sizes: p.sizes, ctl: t.ctl, controlURL: t.controlURL, client: client, owner: p.principal.Name, tenant: iface.Tenant,
			pageSize: o.pageSize, historyLength: o.historyLength, rate: p.rate, duration: o.duration, warmup: o.warmup, timeout: o.timeout, ttl: t.ttl,
			maxRatio: o.maxSizeRatio, generator: o.generator, progress: p.progress, sink: p.sink, schedule: p.schedule})
		if err != nil {
			return nil, runErr(err, b, len(t.bindings))
		}
		s.AddSizes(sr)
	}
	if out != nil {
		if err := out.Close(); err != nil {
			return nil, usage("--out: %v", err)
		}
		if err := out.WriteSummary(s); err != nil {
			return nil, usage("--out: %v", err)
		}
	}
	return s, nil
}

// runErr is a run that could not be carried out: interrupted, or a setup
// error (exit 2 either way).
func runErr(err error, b a2aclient.Binding, n int) error {
	if errors.Is(err, context.Canceled) {
		return usage("%sinterrupted; no results written", bindingNote(b, n))
	}
	return flagErr(err)
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
