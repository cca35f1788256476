package loadgen

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
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
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("it"),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
		)
		return &barTracker{bar: bar}
	}
	return &lineTracker{p: p, label: label, total: total, start: time.Now(), last: time.Now()}
}

type barTracker struct{ bar *progressbar.ProgressBar }

func (t *barTracker) Add(n int64)          { _ = t.bar.Add64(n) }
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
	el := time.Since(t.start).Round(100 * time.Millisecond)
	if t.total > 0 {
		t.p.Logf("%s: %d/%d (%.0f%%, %s)%s", t.label, t.done, t.total, 100*float64(t.done)/float64(t.total), el, suffix)
		return
	}
	t.p.Logf("%s: %d (%s)%s", t.label, t.done, el, suffix)
}
