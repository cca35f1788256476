package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// DefaultMaxSizeRatio is the default --max-size-ratio: page 1's median
// latency at the largest store size may be at most 1.5 times that at the
// smallest (the whole confidence interval must lie at or below it).
const DefaultMaxSizeRatio = 1.5

// SizeThresholdName is the name of the size study's threshold.
const SizeThresholdName = "max-size-ratio"

// ParseSizes parses --sizes: two or more store sizes (task counts),
// comma-separated, each a whole number from 1, optionally with a k or m
// suffix (10k = 10,000; 1m = 1,000,000). It returns them sorted; a size
// given twice is an error.
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ToLower(f))
		if f == "" {
			continue
		}
		mult := 1
		switch {
		case strings.HasSuffix(f, "k"):
			mult, f = 1_000, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "m"):
			mult, f = 1_000_000, strings.TrimSuffix(f, "m")
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > 100_000_000/mult {
			return nil, fmt.Errorf("want store sizes (task counts from 1 to 100,000,000, k and m suffixes allowed), comma-separated, e.g. 10000,100000; got %q", f)
		}
		out = append(out, n*mult)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("want at least two store sizes to compare, e.g. 10000,100000; got %q", s)
	}
	slices.Sort(out)
	for i := 1; i < len(out); i++ {
		if out[i] == out[i-1] {
			return nil, fmt.Errorf("store size %d is given twice", out[i])
		}
	}
	return out, nil
}

// SizeStudy measures how ListTasks page cost grows with the number of
// tasks in the list: the store-size counterpart of the depth study. It
// seeds, through the control API, a list of its own (a fresh contextId, ids
// prefixed with it) up to each size in turn, smallest first, and at each
// size runs the same measurement as `pagewalk load` (the same warm-up, an
// open-loop attack on page 1 and on a deep page) on that list alone. It
// then compares page 1's latency at the smallest size with that at the
// largest by CompareDepths. It only adds tasks: it never resets, moves or
// reads anyone else's.
type SizeStudy struct {
	// Sizes are the store sizes (tasks in the study's list), ascending.
	Sizes []int
	// Control seeds the tasks; Client lists them (as Owner).
	Control *a2aclient.Control
	Client  *a2aclient.Client
	// Owner is the principal the tasks are seeded for (the Client's);
	// Tenant the tenant of its interface.
	Owner, Tenant string
	// PageSize and HistoryLength (-1: unset) of every request.
	PageSize, HistoryLength int
	// Rate, Duration, Warmup and Timeout are as for the depth study, per
	// depth and size.
	Rate                      Rate
	Duration, Warmup, Timeout time.Duration
	// Schedule attacks page 1 and the deep page at each size (nil:
	// DefaultSchedule).
	Schedule Schedule
	// TokenTTL is the page-token lifetime (DefaultTokenTTL if 0).
	TokenTTL time.Duration
	// MaxRatio is the largest acceptable median ratio of page 1 at the
	// largest size over the smallest (0: report without judging).
	MaxRatio float64
	// Generator names this generator in attack names.
	Generator string
	// Progress reports seeding, walks and attacks (NoProgress if nil).
	Progress Progress
	// Sink, if set, also receives every result (e.g. an AttackProgress).
	Sink func(*vegeta.Result) error
	// HTTPClient attacks (NewHTTPClient(Timeout) if nil).
	HTTPClient *http.Client
	// ContextID names the study's list (default "pwsizes-UNIXNANOS").
	ContextID string
}

// SizesResult is the outcome of a SizeStudy, in the JSON summary as
// "sizes".
type SizesResult struct {
	// Skipped, when set, says why the study did not run (e.g. no control
	// API); nothing else is then filled in.
	Skipped string `json:"skipped,omitempty"`
	// ContextID is the context of the tasks the study seeded.
	ContextID string `json:"contextId,omitempty"`
	// DeepDepth is the deep page measured at every size: the last page of
	// the smallest size.
	DeepDepth int `json:"deepDepth,omitempty"`
	// Levels holds one entry per size, smallest first.
	Levels []SizeLevel `json:"levels,omitempty"`
	// PageOne compares page 1 at the smallest size (base) with page 1 at
	// the largest (deep): the gated figure.
	PageOne *Shift `json:"pageOne,omitempty"`
	// DeepPage is the same comparison for the deep page: reported, not
	// gated.
	DeepPage *Shift `json:"deepPage,omitempty"`
}

// SizeLevel is the measurement at one store size.
type SizeLevel struct {
	// Tasks is the number of tasks in the study's list; Seeded how many
	// were added for this size; SeedMillis how long that took.
	Tasks      int     `json:"tasks"`
	Seeded     int     `json:"seeded"`
	SeedMillis float64 `json:"seedMillis"`
	// TotalSize is page 1's totalSize, if the server sent one.
	TotalSize *int `json:"totalSize,omitempty"`
	// Depths are the figures of page 1 and of the deep page, as in the
	// depth study.
	Depths []DepthStats `json:"depths"`
}

// Validate checks the study's settings before anything is sent.
func (st *SizeStudy) Validate() error {
	switch {
	case len(st.Sizes) < 2:
		return fmt.Errorf("--sizes: want at least two store sizes, got %v", st.Sizes)
	case !slices.IsSorted(st.Sizes) || st.Sizes[0] < 1:
		return fmt.Errorf("--sizes: want ascending positive sizes, got %v", st.Sizes)
	case st.MaxRatio < 0 || (st.MaxRatio > 0 && st.MaxRatio < 1):
		return fmt.Errorf("--max-size-ratio: must be 0 (off) or at least 1, got %s", FormatNumber(st.MaxRatio, 3))
	case st.PageSize < 1:
		return fmt.Errorf("--page-size: must be at least 1, got %d", st.PageSize)
	case st.Control == nil || st.Client == nil:
		return errors.New("--sizes: needs the control API and the A2A client")
	}
	return nil
}

// Run seeds and measures every size in turn and compares them. An error
// means the study could not be carried out (seeding, walking, context).
func (st *SizeStudy) Run(ctx context.Context) (*SizesResult, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	p := st.Progress
	if p == nil {
		p = NoProgress
	}
	ttl := st.TokenTTL
	if ttl <= 0 {
		ttl = DefaultTokenTTL
	}
	hc := st.HTTPClient
	if hc == nil {
		hc = NewHTTPClient(st.Timeout)
	}
	ctxID := st.ContextID
	if ctxID == "" {
		ctxID = fmt.Sprintf("pwsizes-%d", time.Now().UnixNano())
	}
	deep := (st.Sizes[0] + st.PageSize - 1) / st.PageSize
	depths := slices.Compact([]int{1, deep})
	res := &SizesResult{ContextID: ctxID, DeepDepth: deep}
	samples := make([]map[int][]float64, len(st.Sizes))
	have := 0
	for i, n := range st.Sizes {
		add := n - have
		p.Logf("size study: seeding %s more tasks for %s in context %s (%s in all)", FormatCount(int64(add)), st.Owner, ctxID, FormatCount(int64(n)))
		t0 := time.Now()
		seeded, err := Seed(ctx, st.Control, SeedSpec{Count: add, Owner: st.Owner, Tenant: st.Tenant, ContextID: ctxID,
			IDPrefix: fmt.Sprintf("%s-s%d-", ctxID, i+1)}, p)
		if err != nil {
			return nil, fmt.Errorf("--sizes: seeding up to %d tasks: %w", n, err)
		}
		have += seeded
		level := SizeLevel{Tasks: have, Seeded: seeded, SeedMillis: ms(time.Since(t0))}
		h := NewHarvester(st.Client, WithDepths(DepthSpec{Depths: depths}), WithPageSize(st.PageSize), WithContextID(ctxID),
			WithHistoryLength(st.HistoryLength), WithMaxPages(deep), WithTokenTTL(ttl, 0), WithHarvestProgress(p))
		got := map[int][]float64{}
		samples[i] = got
		collect := func(r *vegeta.Result) error {
			if ErrorKind(r) != "" {
				return nil
			}
			name, err := ParseAttackName(r.Attack)
			if err != nil {
				return err
			}
			// The depth comes from the URL tag: an interleaved attack
			// visits several depths under one name.
			d, ok := DepthOf(r.URL)
			if !ok {
				return fmt.Errorf("result of attack %q has no #%s=N tag", r.Attack, DepthFragment)
			}
			got[d] = append(got[d], ms(r.End().Sub(name.Intended(r.Seq))))
			return nil
		}
		p.Logf("size study: %s tasks: page 1 and page %d", FormatCount(int64(have)), deep)
		r := NewRunner(h, WithRate(st.Rate), WithDuration(st.Duration), WithWarmup(st.Warmup), WithTimeout(st.Timeout),
			WithGenerator(st.Generator), WithThresholds(Thresholds{MaxErrorRate: -1}), WithProgress(p), WithStoreSize(have),
			WithResultSink(ChainSinks(collect, st.Sink)), WithHTTPClient(hc))
		if st.Schedule != nil {
			WithSchedule(st.Schedule)(r)
		}
		s, err := r.Run(ctx)
		if err != nil {
			return nil, fmt.Errorf("--sizes: measuring at %d tasks: %w", have, err)
		}
		if s.Harvest != nil && s.Harvest.Pages < deep {
			return nil, fmt.Errorf("--sizes: the list of context %s reached only page %d at %d tasks, want page %d: the server did not list the tasks seeded",
				ctxID, s.Harvest.Pages, have, deep)
		}
		if s.Harvest != nil {
			level.TotalSize = s.Harvest.TotalSize
		}
		level.Depths = s.Depths
		res.Levels = append(res.Levels, level)
	}
	first, last := samples[0], samples[len(samples)-1]
	one := CompareDepths(first[1], last[1], st.MaxRatio, WithDurationAdvice(st.Duration))
	res.PageOne = &one
	if deep > 1 {
		d := CompareDepths(first[deep], last[deep], 0)
		res.DeepPage = &d
	}
	return res, nil
}

// SizeThreshold judges the study's page-1 comparison against its maximum:
// pass, fail, inconclusive (never a pass) or no-samples (which fails). It
// returns false when the study was skipped or not judged (MaxRatio 0).
func (r *SizesResult) SizeThreshold() (ThresholdResult, bool) {
	if r == nil || r.Skipped != "" || r.PageOne == nil || r.PageOne.Max <= 0 {
		return ThresholdResult{}, false
	}
	s := r.PageOne
	small, large := r.Levels[0].Tasks, r.Levels[len(r.Levels)-1].Tasks
	t := ThresholdResult{Name: SizeThresholdName, Limit: s.Max, Observed: s.Ratio, Unit: "ratio", Samples: int64(min(s.Base, s.Deep))}
	switch {
	case s.Base == 0 || s.Deep == 0:
		t.Status = StatusNoSamples
		t.Detail = fmt.Sprintf("page 1 needs successful samples at %s tasks (has %d) and at %s tasks (has %d)",
			FormatCount(int64(small)), s.Base, FormatCount(int64(large)), s.Deep)
		return t, true
	case s.Verdict == ShiftFail:
		// The large size was slower even if the server queued.
		t.Status = StatusFail
	case r.queued() != "":
		// A server that fell behind the schedule queues every request
		// alike, which hides a size cost: not a pass.
		t.Status = StatusInconclusive
		t.Advice = "the server fell behind the schedule (" + r.queued() + "), so queueing, not page cost, set the latency; lower --rate"
	case s.Verdict == ShiftPass:
		t.Status = StatusPass
	default:
		t.Status = StatusInconclusive
		t.Advice = s.Advice
	}
	t.Detail = fmt.Sprintf("median page 1 at %s tasks %s / at %s tasks %s = %s, %.0f%% interval %s–%s",
		FormatCount(int64(large)), FormatLatency(s.DeepMedianMs), FormatCount(int64(small)), FormatLatency(s.BaseMedianMs),
		FormatRatio(s.Ratio), 100*s.Confidence, FormatRatio(s.Lo), FormatRatio(s.Hi))
	return t, true
}

// queued names the first page-1 measurement whose latency climbed through
// its attack (Drift.Queued), "" when none did.
func (r *SizesResult) queued() string {
	for _, l := range r.Levels {
		for _, d := range l.Depths {
			if d.Depth == 1 && d.Drift.Queued() {
				return fmt.Sprintf("page 1 at %s tasks: p50 rose from %s in the first third of the attack to %s in the last",
					FormatCount(int64(l.Tasks)), FormatLatency(d.Drift.EarlyP50Ms), FormatLatency(d.Drift.LateP50Ms))
			}
		}
	}
	return ""
}

// AddSizes records a size study in the summary: its result and its
// threshold (after the depth study's), which combines with the verdict as
// the other thresholds do: fail or no-samples makes it fail; inconclusive
// makes a passing verdict inconclusive, with the advice. A skipped study is
// recorded with its reason and judges nothing.
func (s *Summary) AddSizes(r *SizesResult) {
	s.Sizes = r
	t, ok := r.SizeThreshold()
	if !ok {
		return
	}
	s.Thresholds = append(s.Thresholds, t)
	switch t.Status {
	case StatusFail, StatusNoSamples:
		s.Verdict = VerdictFail
	case StatusInconclusive:
		s.Inconclusive = append(s.Inconclusive, t.Name+": "+t.Advice)
		if s.Verdict == VerdictPass {
			s.Verdict = VerdictInconclusive
		}
	}
}

// writeSizesText renders the size study for the text table.
func (r *SizesResult) writeSizesText(b *strings.Builder) {
	if r.Skipped != "" {
		fmt.Fprintf(b, "\nsize study: SKIPPED: %s\n", r.Skipped)
		return
	}
	fmt.Fprintf(b, "\nsize study: page 1 and page %d at each store size (tasks of context %s, seeded by pagewalk); latency from the intended send time\n\n", r.DeepDepth, r.ContextID)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tasks\tdepth\treqs\texpect\tdrop\terrs\tp50\tp90\tp99\tmax\tlag p99\t")
	for _, l := range r.Levels {
		for _, d := range l.Depths {
			c := d.Corrected
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", FormatCount(int64(l.Tasks)), d.Label, FormatCount(d.Requests), FormatCount(d.Expected),
				FormatCount(d.Dropped), FormatCount(d.Errors), lat(c.Samples, c.P50Ms), lat(c.Samples, c.P90Ms), lat(c.Samples, c.P99Ms), lat(c.Samples, c.MaxMs),
				lat(d.SendLag.Samples, d.SendLag.P99Ms))
		}
	}
	tw.Flush()
	line := func(label string, s *Shift) {
		if s == nil {
			return
		}
		if s.Base == 0 || s.Deep == 0 {
			fmt.Fprintf(b, "%s: n/a (successful samples: %d and %d)\n", label, s.Base, s.Deep)
			return
		}
		fmt.Fprintf(b, "%s: median %s at %s tasks, %s at %s tasks: ratio %s (%.0f%% interval %s–%s, %d and %d samples)\n", label,
			FormatLatency(s.BaseMedianMs), FormatCount(int64(r.Levels[0].Tasks)), FormatLatency(s.DeepMedianMs), FormatCount(int64(r.Levels[len(r.Levels)-1].Tasks)),
			FormatRatio(s.Ratio), 100*s.Confidence, FormatRatio(s.Lo), FormatRatio(s.Hi), s.Base, s.Deep)
	}
	b.WriteString("\n")
	line("size cost, page 1 (gated)", r.PageOne)
	if r.DeepPage != nil {
		line(fmt.Sprintf("size cost, page %d (reported)", r.DeepDepth), r.DeepPage)
	}
	b.WriteString("\n")
}

// WriteSizesText writes just the size study's part of the text report.
func (r *SizesResult) WriteSizesText(w io.Writer) error {
	var b strings.Builder
	r.writeSizesText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}
