package loadgen

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/schollz/progressbar/v3"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Progress reports long steps (seeding, harvesting) and notable events.
// Implementations must be safe for use by one goroutine at a time.
type Progress interface {
	// Start begins a step of total units (total < 0: unknown).
	Start(label string, total int64) Tracker
	// Logf reports one line.
	Logf(format string, args ...any)
}

// Tracker follows one step started by Progress.Start.
type Tracker interface {
	// Add records n more units done.
	Add(n int64)
	// SetTotal changes the expected total once it is known.
	SetTotal(total int64)
	// Done ends the step.
	Done()
}

// NoProgress discards everything.
var NoProgress Progress = nopProgress{}

type nopProgress struct{}

func (nopProgress) Start(string, int64) Tracker { return nopTracker{} }
func (nopProgress) Logf(string, ...any)         {}

type nopTracker struct{}

func (nopTracker) Add(int64)      {}
func (nopTracker) SetTotal(int64) {}
func (nopTracker) Done()          {}

// NewProgress returns a Progress that writes to w: a progress bar
// (schollz/progressbar) when tty is true, otherwise a plain line at most
// every every (default 5s) and one when a step ends.
func NewProgress(w io.Writer, tty bool, every time.Duration) Progress {
	if every <= 0 {
		every = 5 * time.Second
	}
	return &writerProgress{w: w, tty: tty, every: every}
}

type writerProgress struct {
	w     io.Writer
	tty   bool
	every time.Duration
	mu    sync.Mutex
}

func (p *writerProgress) Logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "pagewalk load: "+format+"\n", args...)
}

func (p *writerProgress) Start(label string, total int64) Tracker {
	if total < 0 {
		total = -1
	}
	if p.tty {
		bar := progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
		)
		return &barTracker{bar: bar, label: label, start: time.Now()}
	}
	return &lineTracker{p: p, label: label, total: total, start: time.Now(), last: time.Now()}
}

// unitOf is the unit a step counts: the last word of its label ("seed
// tasks" counts tasks).
func unitOf(label string) string {
	if i := strings.LastIndexByte(label, ' '); i >= 0 {
		return label[i+1:]
	}
	return "units"
}

// rateOf renders done units over elapsed as "12,345 tasks/s", or "" while
// too little time has passed for a rate to mean anything (a whole batch
// counted at once would otherwise read as billions per second).
func rateOf(done int64, elapsed time.Duration, unit string) string {
	if elapsed < 200*time.Millisecond || done <= 0 {
		return ""
	}
	return FormatNumber(float64(done)/elapsed.Seconds(), 0) + " " + unit + "/s"
}

type barTracker struct {
	bar   *progressbar.ProgressBar
	label string
	start time.Time
	done  int64
}

func (t *barTracker) Add(n int64) {
	t.done += n
	if r := rateOf(t.done, time.Since(t.start), unitOf(t.label)); r != "" {
		t.bar.Describe(t.label + " (" + r + ")")
	}
	_ = t.bar.Add64(n)
}
func (t *barTracker) SetTotal(total int64) { t.bar.ChangeMax64(total) }
func (t *barTracker) Done() {
	if t.bar.GetMax64() < 0 || t.bar.State().CurrentNum < t.bar.GetMax64() {
		t.bar.ChangeMax64(t.bar.State().CurrentNum)
	}
	_ = t.bar.Finish()
}

type lineTracker struct {
	p           *writerProgress
	label       string
	total, done int64
	start, last time.Time
}

func (t *lineTracker) Add(n int64) {
	t.done += n
	if now := time.Now(); now.Sub(t.last) >= t.p.every {
		t.last = now
		t.line("")
	}
}

func (t *lineTracker) SetTotal(total int64) { t.total = total }

func (t *lineTracker) Done() { t.line(" done") }

func (t *lineTracker) line(suffix string) {
	elapsed := time.Since(t.start)
	el := FormatSeconds(elapsed.Round(100 * time.Millisecond).Seconds())
	if r := rateOf(t.done, elapsed, unitOf(t.label)); r != "" {
		el += ", " + r
	}
	if t.total > 0 {
		t.p.Logf("%s: %s/%s (%.0f%%, %s)%s", t.label, FormatCount(t.done), FormatCount(t.total), 100*float64(t.done)/float64(t.total), el, suffix)
		return
	}
	t.p.Logf("%s: %s (%s)%s", t.label, FormatCount(t.done), el, suffix)
}

// AttackProgress prints a live line about the attack in flight, at most
// once per interval: elapsed time, results received against the sends
// expected, errors, and the corrected p50 so far. Feed it every result
// (Sink, e.g. through WithResultSink) and Stop it when the run ends. It
// writes through a Progress, so it goes where the other progress lines go;
// callers enable it only on a terminal or when asked (-v), since a line
// every interval would flood a CI log.
type AttackProgress struct {
	p     Progress
	every time.Duration
	mu    sync.Mutex
	cur   *attackLive
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

type attackLive struct {
	name     AttackName
	raw      string
	received int64
	errors   int64
	hist     *hdr.Histogram
	printed  bool
}

// NewAttackProgress starts an AttackProgress that writes to p every
// interval (default 2s).
func NewAttackProgress(p Progress, every time.Duration) *AttackProgress {
	if every <= 0 {
		every = 2 * time.Second
	}
	a := &AttackProgress{p: p, every: every, stop: make(chan struct{}), done: make(chan struct{})}
	go a.loop()
	return a
}

func (a *AttackProgress) loop() {
	defer close(a.done)
	t := time.NewTicker(a.every)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
			if line := a.Line(time.Now()); line != "" {
				a.p.Logf("%s", line)
			}
		}
	}
}

// Sink records one result; it never fails. Results of anything but a
// pagewalk attack are ignored.
func (a *AttackProgress) Sink(res *vegeta.Result) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur == nil || a.cur.raw != res.Attack {
		n, err := ParseAttackName(res.Attack)
		if err != nil {
			return nil
		}
		a.cur = &attackLive{name: n, raw: res.Attack, hist: hdr.New(hdrLowest, hdrHighest, hdrDigits)}
	}
	c := a.cur
	c.received++
	if ErrorKind(res) != "" {
		c.errors++
		return nil
	}
	_ = c.hist.RecordValue(min(max(int64(res.End().Sub(c.name.Intended(res.Seq))), 0), hdrHighest))
	return nil
}

// Line renders the progress line of the attack in flight at now, or ""
// when there is none or it has had all its results.
func (a *AttackProgress) Line(now time.Time) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.cur
	if c == nil {
		return ""
	}
	expected := int64(c.name.Expected())
	if c.received >= expected {
		if c.printed {
			return ""
		}
		c.printed = true
	}
	label := "depth " + Bucket{Depth: c.name.Depth, Last: c.name.Last}.Label()
	if c.name.Interleaved() {
		ds := make([]string, len(c.name.Depths))
		for i, d := range c.name.Depths {
			ds[i] = Bucket{Depth: d, Last: c.name.LastAt(d)}.Label()
		}
		label = "depths " + strings.Join(ds, ", ")
	}
	if c.name.Store > 0 {
		label = FormatCount(int64(c.name.Store)) + " tasks, " + label
	}
	p50 := "-"
	if c.hist.TotalCount() > 0 {
		p50 = FormatLatency(nsToMs(c.hist.ValueAtQuantile(50)))
	}
	el := now.Sub(c.name.Start).Truncate(100 * time.Millisecond)
	when := fmt.Sprintf("%s of %s", FormatSeconds(el.Seconds()), FormatSeconds(c.name.Duration.Seconds()))
	if el > c.name.Duration {
		when = fmt.Sprintf("schedule over, waiting for replies (%s)", FormatSeconds(el.Seconds()))
	}
	return fmt.Sprintf("%s: %s, %s/%s results, %s errors, p50 so far %s", label, when,
		FormatCount(c.received), FormatCount(expected), FormatCount(c.errors), p50)
}

// Stop ends the periodic lines. It is safe to call more than once.
func (a *AttackProgress) Stop() {
	a.once.Do(func() { close(a.stop); <-a.done })
}

// ChainSinks returns a result sink that passes each result to every sink
// in turn, stopping at the first error. Nil sinks are skipped.
func ChainSinks(sinks ...func(*vegeta.Result) error) func(*vegeta.Result) error {
	return func(res *vegeta.Result) error {
		for _, s := range sinks {
			if s == nil {
				continue
			}
			if err := s(res); err != nil {
				return err
			}
		}
		return nil
	}
}
