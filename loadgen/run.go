package loadgen

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Default attack settings.
const (
	// DefaultDuration is the measured attack duration per depth.
	DefaultDuration = 10 * time.Second
	// DefaultTimeout is the per-request timeout.
	DefaultTimeout = 30 * time.Second
)

// DefaultRate is 50 requests per second.
var DefaultRate = Rate{Freq: 50, Per: time.Second}

// Runner runs one load test: it harvests tokens, attacks the depth buckets
// open loop with vegeta (unbounded workers) as its Schedule says (by
// default one attack interleaving every depth), and measures them.
type Runner struct {
	h          *Harvester
	rate       Rate
	duration   time.Duration
	warmup     time.Duration
	timeout    time.Duration
	generator  string
	target     string
	principal  string
	filters    map[string]string
	thresholds Thresholds
	schedule   Schedule
	progress   Progress
	out        *Output
	sink       func(*vegeta.Result) error
	startAt    time.Time
	phaseGap   time.Duration
	client     *http.Client
	seeded     int
	tool       string
	store      int
}

// Option configures a Runner.
type Option func(*Runner)

// WithRate sets the open-loop rate per depth (default DefaultRate).
func WithRate(r Rate) Option { return func(x *Runner) { x.rate = r } }

// WithDuration sets the attack duration per depth (default DefaultDuration).
func WithDuration(d time.Duration) Option { return func(x *Runner) { x.duration = d } }

// WithWarmup runs an unmeasured attack of d on each depth, at the same
// rate and on the same connections, just before the measured one (default
// 0: none). It keeps connection set-up and cold caches out of the first
// depth's figures.
func WithWarmup(d time.Duration) Option { return func(x *Runner) { x.warmup = d } }

// WithTimeout sets the per-request timeout (default DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(x *Runner) { x.timeout = d } }

// WithGenerator names this generator in attack names (default
// DefaultGenerator()).
func WithGenerator(name string) Option { return func(x *Runner) { x.generator = name } }

// WithThresholds sets the CI gates (default DefaultThresholds).
func WithThresholds(t Thresholds) Option { return func(x *Runner) { x.thresholds = t } }

// WithSchedule sets how the depth buckets are attacked (default
// DefaultSchedule: interleaved).
func WithSchedule(s Schedule) Option { return func(x *Runner) { x.schedule = s } }

// WithProgress reports progress (default NoProgress).
func WithProgress(p Progress) Option { return func(x *Runner) { x.progress = p } }

// WithOutput writes results, HDR logs and the summary into o.
func WithOutput(o *Output) Option { return func(x *Runner) { x.out = o } }

// WithResultSink receives every result after classification (body
// dropped), in arrival order.
func WithResultSink(f func(*vegeta.Result) error) Option { return func(x *Runner) { x.sink = f } }

// WithStartAt aligns several generators: the interleaved attack (warm-up
// included) begins at t; under the sequential schedule, the attack on the
// i-th depth bucket begins at t + i·(warmup + duration + gap). Times are by
// the wall clock, so generators started together hit the same depths at
// the same time. The first harvest must be over by t.
func WithStartAt(t time.Time, gap time.Duration) Option {
	return func(x *Runner) { x.startAt, x.phaseGap = t, gap }
}

// WithHTTPClient sets the client for the attacks. Its Transport should be
// an *http.Transport with enough idle connections per host; the default
// keeps 10,000, like vegeta's.
func WithHTTPClient(c *http.Client) Option { return func(x *Runner) { x.client = c } }

// WithDescription records, for the summary, the target as the user gave
// it, the principal, the filters, the number of tasks seeded and the tool
// version.
func WithDescription(target, principal string, filters map[string]string, seeded int, tool string) Option {
	return func(x *Runner) {
		x.target, x.principal, x.filters, x.seeded, x.tool = target, principal, filters, seeded, tool
	}
}

// NewRunner returns a Runner that harvests with h.
func NewRunner(h *Harvester, opts ...Option) *Runner {
	r := &Runner{h: h, rate: DefaultRate, duration: DefaultDuration, timeout: DefaultTimeout,
		thresholds: DefaultThresholds, schedule: DefaultSchedule, progress: NoProgress}
	for _, o := range opts {
		o(r)
	}
	if r.generator == "" {
		r.generator = DefaultGenerator()
	}
	if r.client == nil {
		r.client = NewHTTPClient(r.timeout)
	}
	return r
}

// NewHTTPClient returns the client a Runner attacks with by default: keep-
// alive, 10,000 idle connections per host, no redirects followed, the given
// timeout per request.
func NewHTTPClient(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         d.DialContext,
			MaxIdleConnsPerHost: vegeta.DefaultConnections,
			IdleConnTimeout:     90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Validate checks the runner's settings before anything is sent.
func (r *Runner) Validate() error {
	switch {
	case r.rate.Interval() <= 0:
		return paramErr("rate", "must be positive, got %s", r.rate)
	case r.duration <= 0:
		return paramErr("duration", "must be positive, got %s", r.duration)
	case r.warmup < 0:
		return paramErr("warmup", "must be 0 or positive, got %s", r.warmup)
	case r.timeout <= 0:
		return paramErr("timeout", "must be positive, got %s", r.timeout)
	case !ValidGenerator(r.generator):
		return paramErr("generator", "%q must be 1-100 characters from letters, digits and . _ : @ + -", r.generator)
	case !r.startAt.IsZero() && r.phaseGap < 0:
		return paramErr("phase-gap", "must be 0 or positive, got %s", r.phaseGap)
	case r.schedule == nil:
		return paramErr("schedule", "none given")
	case r.rate.Expected(r.duration) < 1:
		return fmt.Errorf("--rate %s for --duration %s sends no request at all", r.rate, r.duration)
	}
	if ttl, margin := r.h.TTL(); r.window()+margin >= ttl {
		return fmt.Errorf("--warmup %s plus --duration %s plus the request timeout %s and a %s margin outlasts the page-token TTL %s: tokens would expire mid-attack; shorten --duration", r.warmup, r.duration, r.timeout, margin, ttl)
	}
	return nil
}

// paramErr is bad input for the named parameter; the CLI shows it as its
// flag (--param).
func paramErr(param, format string, args ...any) error {
	return &a2aclient.ParamError{Param: param, Msg: fmt.Sprintf(format, args...)}
}

// Run harvests, attacks the depth buckets as the schedule says, and
// returns the evaluated summary. An error means the run could not be
// carried out (setup, harvest, context); a breached threshold is a Summary
// with Verdict fail, not an error.
func (r *Runner) Run(ctx context.Context) (*Summary, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	started := time.Now()
	hv, err := r.h.Fresh(ctx, r.window())
	if err != nil {
		return nil, err
	}
	spec := r.h.Spec()
	buckets, skipped := hv.Buckets(spec)
	if len(buckets) == 0 {
		return nil, fmt.Errorf("no depth to attack: the list has %d page(s), --depths asks for %s", hv.Deepest, spec)
	}
	var warnings []string
	warnings = append(warnings, hv.Warnings...)
	if len(skipped) > 0 {
		warnings = append(warnings, fmt.Sprintf("depths %v are beyond the list's %d page(s) and were not attacked", skipped, hv.Deepest))
	}
	interval := time.Duration(0)
	if r.out != nil {
		interval = max(time.Second, (r.duration / 120).Round(time.Second))
	}
	agg := NewAggregator(interval)
	if !r.startAt.IsZero() && time.Now().After(r.startAt) {
		return nil, fmt.Errorf("--start-at %s passed before this generator had harvested its tokens (%s after it began); choose a later time",
			r.startAt.Format(time.RFC3339), time.Since(started).Round(time.Second))
	}
	hv, more, err := r.schedule.run(ctx, r, hv, buckets, agg)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, more...)
	if r.out != nil {
		for _, b := range buckets {
			if err := r.out.WriteHDRLog(agg, b.Depth); err != nil {
				return nil, err
			}
		}
	}
	s := Summarize(agg)
	s.Source = "load"
	s.Tool = r.tool
	s.Target = r.target
	if s.Target == "" && len(s.Endpoints) > 0 {
		s.Target = s.Endpoints[0]
	}
	s.Principal = r.principal
	s.Filters = r.filters
	s.Rate = RateInfo{Spec: r.rate.String(), PerSecond: r.rate.PerSecond()}
	s.DurationSeconds = r.duration.Seconds()
	s.Seeded = r.seeded
	ttl, _ := r.h.TTL()
	s.Harvest = &HarvestInfo{Pages: hv.Deepest, LastPageReached: hv.Complete, Walks: r.h.Walks(), TokenTTL: ttl.Seconds(),
		TotalSize: hv.TotalSize, WalkMillis: float64(hv.Finished.Sub(hv.Started)) / 1e6,
		FirstPageMillis: ms(hv.FirstPage), DeepestPageMillis: ms(hv.DeepestPage), StoppedBy: hv.StoppedBy()}
	s.SkippedDepths = skipped
	s.Warnings = append(warnings, s.Warnings...)
	s.Schedule = r.schedule.Name()
	s.Started = started
	s.Finished = time.Now()
	s.Evaluate(r.thresholds, agg)
	return s, nil
}

// sleepUntil waits for the wall-clock time t (at once if it has passed).
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Runner) window() time.Duration { return r.warmup + r.duration + r.timeout }

// Warmup runs an unmeasured open-loop attack on tgt for the warm-up
// duration and discards its results.
func (r *Runner) Warmup(ctx context.Context, tgt vegeta.Target) error {
	return r.warm(ctx, func(t *vegeta.Target) error { *t = tgt; return nil }, r.rate)
}

// warm runs an unmeasured open-loop attack at rate for the warm-up
// duration and discards its results.
func (r *Runner) warm(ctx context.Context, targeter vegeta.Targeter, rate Rate) error {
	c := *r.client
	c.Timeout = r.timeout
	atk := vegeta.NewAttacker(vegeta.Client(&c), vegeta.MaxBody(0))
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	for range atk.Attack(targeter, rate.pacer(), r.warmup, "pagewalk-warmup") {
	}
	return ctx.Err()
}

// Attack runs one open-loop attack on depth bucket b with target tgt (which
// must carry the "#depth=N" tag) and folds its results into agg. MaxWorkers
// stays unbounded, so a slow server cannot slow the schedule down
// (no coordinated omission at the source); vegeta's extra "no targets"
// result is dropped.
func (r *Runner) Attack(ctx context.Context, b Bucket, tgt vegeta.Target, agg *Aggregator) error {
	if d, ok := DepthOf(tgt.URL); !ok || d != b.Depth {
		return fmt.Errorf("target URL %q is not tagged #%s=%d", tgt.URL, DepthFragment, b.Depth)
	}
	return r.attack(ctx, b, func(t *vegeta.Target) error { *t = tgt; return nil }, agg)
}

func (r *Runner) attack(ctx context.Context, b Bucket, targeter vegeta.Targeter, agg *Aggregator) error {
	return r.attackNamed(ctx, r.attackName(b), targeter, agg)
}

// attackName is the name of an attack on bucket b at the runner's rate;
// its Start is set when the attack begins.
func (r *Runner) attackName(b Bucket) AttackName {
	return AttackName{Generator: r.generator, Depth: b.Depth, Last: b.Last, Rate: r.rate, Duration: r.duration,
		Binding: string(r.h.client.Iface.Binding), PageSize: r.h.PageSize(), Filters: r.h.Filters(), Store: r.storeSize()}
}

// attackNamed runs one open-loop attack named name (Start is set here)
// and folds its results into agg.
func (r *Runner) attackNamed(ctx context.Context, name AttackName, targeter vegeta.Targeter, agg *Aggregator) error {
	binding := r.h.client.Iface.Binding
	c := *r.client
	c.Timeout = r.timeout
	atk := vegeta.NewAttacker(vegeta.Client(&c), vegeta.MaxBody(-1))
	stop := context.AfterFunc(ctx, func() { atk.Stop() })
	defer stop()
	name.Start = time.Now()
	var firstErr error
	for res := range atk.Attack(targeter, name.Rate.pacer(), name.Duration, name.String()) {
		if res.Code == 0 && res.Error == vegeta.ErrNoTargets.Error() {
			continue
		}
		Classify(res, binding)
		res.Body = nil
		if err := agg.Add(res); err != nil && firstErr == nil {
			firstErr = err
		}
		if r.out != nil {
			if err := r.out.Encode(res); err != nil && firstErr == nil {
				firstErr = fmt.Errorf("writing results: %w", err)
				atk.Stop()
			}
		}
		if r.sink != nil {
			if err := r.sink(res); err != nil && firstErr == nil {
				firstErr = err
				atk.Stop()
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return firstErr
}

// Summarize builds an unevaluated Summary from an aggregator: depths,
// endpoints, bindings, generators, page size and the time span. Callers
// fill in the rest and call Evaluate.
func Summarize(agg *Aggregator) *Summary {
	s := &Summary{Kind: SummaryKind, SchemaVersion: SummarySchemaVersion, Depths: agg.Depths()}
	gens, bindings, pageSizes := map[string]bool{}, map[string]bool{}, map[int]bool{}
	for _, n := range agg.Attacks() {
		gens[n.Generator] = true
		bindings[n.Binding] = true
		pageSizes[n.PageSize] = true
		if s.Started.IsZero() || n.Start.Before(s.Started) {
			s.Started = n.Start
		}
		if end := n.Start.Add(n.Duration); end.After(s.Finished) {
			s.Finished = end
		}
		s.DurationSeconds = max(s.DurationSeconds, n.Duration.Seconds())
	}
	s.Generators = slices.Sorted(maps.Keys(gens))
	s.Endpoints = slices.Sorted(maps.Keys(agg.endpoints))
	switch bs := slices.Sorted(maps.Keys(bindings)); len(bs) {
	case 0:
	case 1:
		s.Binding = bs[0]
	default:
		s.Binding = "mixed"
		s.Warnings = append(s.Warnings, fmt.Sprintf("results mix bindings %v", bs))
	}
	switch ps := slices.Sorted(maps.Keys(pageSizes)); len(ps) {
	case 0:
	case 1:
		s.PageSize = ps[0]
	default:
		s.Warnings = append(s.Warnings, fmt.Sprintf("results mix page sizes %v; depths are not comparable", ps))
	}
	for _, d := range s.Depths {
		s.Rate.PerSecond = max(s.Rate.PerSecond, d.RatePerSecond)
		if d.Expected > 0 && float64(d.Dropped) > 0.01*float64(d.Expected) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("depth %d: %d of %d intended sends were never made: the generator fell behind, so the rate was not held", d.Depth, d.Dropped, d.Expected))
		}
		if d.Requests > 0 && float64(d.Late) > 0.01*float64(d.Requests) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("depth %d: %d of %d requests started late (the generator could not keep the schedule); the corrected latency includes that delay", d.Depth, d.Late, d.Requests))
		}
	}
	return s
}
