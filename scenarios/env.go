package scenarios

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Result is the outcome of one scenario on one binding.
type Result struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Area     string    `json:"area"`
	Level    Level     `json:"level"`
	Reqs     []string  `json:"requirements"`
	Quote    string    `json:"quote"`
	Binding  string    `json:"binding"`
	Variant  string    `json:"variant,omitempty"` // "control", "black-box", or "" for cases that need neither
	Verdict  Verdict   `json:"verdict"`
	Findings []Finding `json:"findings,omitempty"`
	Skip     string    `json:"skipReason,omitempty"`
	// Notes say what the case's data allowed it to judge (and what not).
	Notes    []string      `json:"notes,omitempty"`
	Error    string        `json:"error,omitempty"`
	Steps    []string      `json:"steps,omitempty"`
	Requests int           `json:"requests"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNanos"`
}

// Name is the case name: ID and binding.
func (r *Result) Name() string { return r.ID + " [" + r.Binding + "]" }

// Env is what a running scenario sees: clients for each principal on its
// binding, the control API, and the finding log.
type Env struct {
	ctx      context.Context
	target   *Target
	binding  a2aclient.Binding
	blackBox bool
	res      *Result
	by       func(string)
	mu       sync.Mutex
	clients  map[string]*a2aclient.Client
	runID    string
	cleanups []func()
	msgSeq   int
}

// Note records what the case's data allowed it to judge, e.g. "ties
// observed: 0; order judged on 12 distinct timestamps".
func (e *Env) Note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	e.mu.Lock()
	e.res.Notes = append(e.res.Notes, s)
	e.mu.Unlock()
	if e.by != nil {
		e.by(s)
	}
}

// cleanup registers fn to run when the case ends, whatever its outcome.
func (e *Env) cleanup(fn func()) { e.cleanups = append(e.cleanups, fn) }

// abort and skip unwind a scenario's Run, like t.FailNow and t.SkipNow.
type abortSignal struct{ err error }
type skipSignal struct{ reason string }

// Ctx returns the scenario's context.
func (e *Env) Ctx() context.Context { return e.ctx }

// Target returns the target.
func (e *Env) Target() *Target { return e.target }

// Binding returns the binding under test ("" for cross-binding scenarios).
func (e *Env) Binding() a2aclient.Binding { return e.binding }

// BlackBox reports whether this is the black-box variant.
func (e *Env) BlackBox() bool { return e.blackBox }

// By narrates a step.
func (e *Env) By(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	e.res.Steps = append(e.res.Steps, s)
	if e.by != nil {
		e.by(s)
	}
}

// Report records findings.
func (e *Env) Report(fs ...Finding) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.res.Findings = append(e.res.Findings, fs...)
}

// Skip ends the scenario as Skipped.
func (e *Env) Skip(format string, args ...any) {
	panic(skipSignal{fmt.Sprintf(format, args...)})
}

// ReportOrSkip is for a case whose data turned out unable to show its
// property: it reports fs, and ends the case as Skipped with the reason
// unless one of fs is above Info (a finding stands on its own evidence).
func (e *Env) ReportOrSkip(fs []Finding, format string, args ...any) {
	e.Report(fs...)
	for _, f := range fs {
		if f.Class != ClassInfo {
			return
		}
	}
	e.Skip(format, args...)
}

// ReportOrDefer reports fs and, when one of them says what the case could
// not judge (kind "unfinished": another case owns the defect its data
// shows) and none is above Info, ends the case as Skipped with that
// reason: a case that could not judge its property has no pass. One
// defect, one finding.
func (e *Env) ReportOrDefer(fs []Finding) {
	for _, f := range fs {
		if f.Kind == "unfinished" {
			e.ReportOrSkip(fs, "%s", f.Message)
			return
		}
	}
	e.Report(fs...)
}

// Check aborts the scenario with a harness error if err is not nil. Use it
// for failures that prevent checking (transport errors, a control API that
// refuses), not for verdicts.
func (e *Env) Check(err error, what string) {
	if err != nil {
		panic(abortSignal{fmt.Errorf("%s: %w", what, err)})
	}
}

// Abortf aborts the scenario with a harness error.
func (e *Env) Abortf(format string, args ...any) {
	panic(abortSignal{fmt.Errorf(format, args...)})
}

func (e *Env) record(x *a2aclient.Exchange) {
	e.mu.Lock()
	e.res.Requests++
	e.mu.Unlock()
}

// Client returns principal i's client on binding b ("" = the scenario's
// binding).
func (e *Env) Client(b a2aclient.Binding, i int) *a2aclient.Client {
	if b == "" {
		b = e.binding
	}
	key := fmt.Sprintf("%s/%d", b, i)
	e.mu.Lock()
	c := e.clients[key]
	e.mu.Unlock()
	if c != nil {
		return c
	}
	c, err := e.target.Client(b, i, e.record)
	if err != nil {
		e.Skip("%v", err)
	}
	e.mu.Lock()
	e.clients[key] = c
	e.mu.Unlock()
	return c
}

// A returns the main principal's client on the scenario's binding.
func (e *Env) A() *a2aclient.Client { return e.Client("", 0) }

// B returns the second principal's client on the scenario's binding.
func (e *Env) B() *a2aclient.Client { return e.Client("", 1) }

// Control returns the control API (nil in black-box variants).
func (e *Env) Control() *a2aclient.Control {
	if e.blackBox {
		return nil
	}
	return e.target.Control
}

// ID returns a task or context id unique to this run.
func (e *Env) ID(s string) string { return e.runID + "-" + s }

// RunOptions configures Run.
type RunOptions struct {
	Judgement Judgement
	// By, if set, receives each narrated step (the Ginkgo suite passes By).
	By func(string)
	// Timeout bounds one scenario (default 2 minutes).
	Timeout time.Duration
}

var runSeq struct {
	sync.Mutex
	n int
}

func nextRunID(id string) string {
	runSeq.Lock()
	defer runSeq.Unlock()
	runSeq.n++
	short := strings.ToLower(strings.TrimPrefix(id, "LT-"))
	return fmt.Sprintf("%s-%03d-%s", runPrefix, runSeq.n, short)
}

// Run runs scenario s against t on binding b ("" for cross-binding
// scenarios) and judges it.
func Run(ctx context.Context, t *Target, s *Scenario, b a2aclient.Binding, o RunOptions) *Result {
	res := &Result{ID: s.ID, Title: s.Title, Area: s.Area, Level: s.Level, Reqs: s.Reqs, Quote: s.Quote,
		Binding: string(b), Started: time.Now()}
	for _, n := range s.Needs {
		if n == NeedControl {
			res.Variant = "control"
		}
	}
	if s.CrossBinding {
		res.Binding = "all"
	}
	defer func() { res.Duration = time.Since(res.Started) }()
	if s.Level == Hardened && o.Judgement.Profile != ProfileHardened {
		res.Verdict, res.Skip = Skipped, "hardened practice: run with --profile hardened"
		return res
	}
	run := s.Run
	if c, how := t.Missing(s.Needs); c != "" {
		if s.BlackBox == nil {
			res.Verdict, res.Skip = Skipped, fmt.Sprintf("needs %s: %s", c, how)
			return res
		}
		if c2, how2 := t.Missing(s.BlackBoxNeeds); c2 != "" {
			res.Verdict, res.Skip = Skipped, fmt.Sprintf("needs %s: %s", c2, how2)
			return res
		}
		run, res.Variant = s.BlackBox, "black-box"
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 2*time.Minute + t.MaxWait
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	e := &Env{ctx: ctx, target: t, binding: b, blackBox: res.Variant == "black-box", res: res, by: o.By,
		clients: map[string]*a2aclient.Client{}, runID: nextRunID(s.ID)}
	func() {
		defer func() {
			switch r := recover().(type) {
			case nil:
			case skipSignal:
				res.Verdict, res.Skip = Skipped, r.reason
			case abortSignal:
				res.Verdict, res.Error = Errored, r.err.Error()
				if errors.Is(r.err, context.DeadlineExceeded) && ctx.Err() != nil {
					res.Error += fmt.Sprintf(" (the scenario's %s timeout ran out)", timeout)
				}
			default:
				res.Verdict, res.Error = Errored, fmt.Sprintf("harness panic: %v\n%s", r, debug.Stack())
			}
		}()
		defer func() {
			for i := len(e.cleanups) - 1; i >= 0; i-- {
				e.cleanups[i]()
			}
		}()
		run(e)
	}()
	if res.Verdict == "" {
		if o.Judgement.Profile != ProfileHardened {
			for i, f := range res.Findings {
				if f.Class == ClassHardened {
					res.Findings[i].Class = ClassInfo
					res.Findings[i].Message = "(hardened practice, judged only with --profile hardened) " + f.Message
				}
			}
		}
		res.Verdict = verdictOf(res.Findings)
	}
	res.Findings = Group(res.Findings)
	return res
}

// Headline is the one line a person reads first for a case that did not
// pass: its worst finding (class, requirements, message) and how many other
// findings above Info it has, or its error or skip reason.
func (r *Result) Headline() string {
	switch {
	case r.Error != "":
		return "error: " + r.Error
	case r.Verdict == Skipped:
		return "skipped: " + r.Skip
	}
	w, more, ok := Worst(r.Findings)
	if !ok {
		return ""
	}
	s := fmt.Sprintf("[%s %s] %s%s", w.Class, strings.Join(w.Reqs, ","), w.Message, w.More())
	if more > 0 {
		s += fmt.Sprintf(" (+%d more)", more)
	}
	return s
}

// resetClients drops cached clients, after the target's card changed (a
// restart moves the server).
func (e *Env) resetClients() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clients = map[string]*a2aclient.Client{}
}
