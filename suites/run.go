package suites

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// RunOptions configure Run, the plain engine: the cases to run, how to
// judge them, what to tell the caller as they go, and when to stop.
type RunOptions struct {
	// Judgement turns findings into verdicts.
	Judgement scenarios.Judgement
	// Focus limits the run to these case IDs (empty: every case).
	Focus []string
	// Bindings limits the bindings (empty: the target's Bindings).
	Bindings []a2aclient.Binding
	// OnStart, if set, is called before each case runs, with its name
	// ("LT-… [binding]").
	OnStart func(name string)
	// OnStep, if set, receives each step a case narrates (Env.By), with the
	// case's name.
	OnStep func(name, step string)
	// OnCase, if set, is called with each finished case, in run order.
	OnCase func(r *scenarios.Result)
	// MaxTime bounds the whole run (0: no bound beyond ctx). A run that
	// reaches it stops as Outcome.Stopped = StopBudget.
	MaxTime time.Duration
	// CaseTimeout bounds one case (0: the scenarios default).
	CaseTimeout time.Duration
}

// StopReason says why a run ended before its last case.
type StopReason string

// The reasons a run stops early.
const (
	// StopNone: every case ran.
	StopNone StopReason = ""
	// StopInterrupted: the caller's context was cancelled (SIGINT, SIGTERM).
	StopInterrupted StopReason = "interrupted"
	// StopBudget: RunOptions.MaxTime ran out.
	StopBudget StopReason = "time budget"
)

// Outcome is a finished (or stopped) run.
type Outcome struct {
	// Results are the cases that finished, in run order. A case cut off by
	// the stop is not among them: its verdict would rest on a run it did
	// not complete.
	Results []*scenarios.Result
	// Stopped says why the run ended early (StopNone if it did not).
	Stopped StopReason
	// NotRun counts the cases (per binding) that did not finish.
	NotRun int
	// Started and Duration time the run.
	Started  time.Time
	Duration time.Duration
}

// Partial reports whether the run stopped before its last case.
func (o *Outcome) Partial() bool { return o.Stopped != StopNone }

// plan is one case on one binding.
type plan struct {
	s *scenarios.Scenario
	b a2aclient.Binding
}

// Plan returns the cases a run with o would run on t, in run order (area,
// then ID; each case on each binding, cross-binding cases once), and an
// error naming the parameter ("focus") when a focused ID is unknown.
func Plan(t *scenarios.Target, o RunOptions) ([]string, error) {
	ps, err := makePlan(t, o)
	var names []string
	for _, p := range ps {
		names = append(names, caseName(p))
	}
	return names, err
}

func makePlan(t *scenarios.Target, o RunOptions) ([]plan, error) {
	list := scenarios.All()
	if len(o.Focus) > 0 {
		want := map[string]bool{}
		for _, id := range o.Focus {
			if _, ok := scenarios.Lookup(id); !ok {
				return nil, &a2aclient.ParamError{Param: "focus", Msg: fmt.Sprintf("no case %q (pagewalk check --list shows them)", id)}
			}
			want[id] = true
		}
		var keep []*scenarios.Scenario
		for _, s := range list {
			if want[s.ID] {
				keep = append(keep, s)
			}
		}
		list = keep
	}
	bindings := o.Bindings
	if len(bindings) == 0 {
		bindings = t.Bindings
	}
	var out []plan
	for _, s := range list {
		bs := bindings
		if s.CrossBinding {
			bs = []a2aclient.Binding{""}
		}
		for _, b := range bs {
			out = append(out, plan{s: s, b: b})
		}
	}
	return out, nil
}

func caseName(p plan) string {
	b := string(p.b)
	if b == "" {
		b = "all"
	}
	return p.s.ID + " [" + b + "]"
}

// Run runs the cases o selects against t, one after another, without
// Ginkgo: the engine of pagewalk check and of the kill matrix. It stops
// early, keeping the cases that finished, when ctx is cancelled or
// o.MaxTime runs out. The only error is a bad option (an unknown focus ID,
// as an *a2aclient.ParamError).
func Run(ctx context.Context, t *scenarios.Target, o RunOptions) (*Outcome, error) {
	plans, err := makePlan(t, o)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Started: time.Now()}
	defer func() { out.Duration = time.Since(out.Started) }()
	runCtx := ctx
	if o.MaxTime > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, o.MaxTime)
		defer cancel()
	}
	for i, p := range plans {
		if stop := stopReason(ctx, runCtx); stop != StopNone {
			out.Stopped, out.NotRun = stop, len(plans)-i
			return out, nil
		}
		name := caseName(p)
		if o.OnStart != nil {
			o.OnStart(name)
		}
		ro := scenarios.RunOptions{Judgement: o.Judgement, Timeout: o.CaseTimeout}
		if o.OnStep != nil {
			ro.By = func(step string) { o.OnStep(name, step) }
		}
		r := scenarios.Run(runCtx, t, p.s, p.b, ro)
		// A case that ends after the stop was cut off: its verdict (most
		// often an Error from a cancelled request) is not a judgement.
		if stop := stopReason(ctx, runCtx); stop != StopNone {
			out.Stopped, out.NotRun = stop, len(plans)-i
			return out, nil
		}
		out.Results = append(out.Results, r)
		if o.OnCase != nil {
			o.OnCase(r)
		}
	}
	return out, nil
}

// stopReason tells a cancelled caller (interrupted) from a spent budget.
func stopReason(parent, run context.Context) StopReason {
	switch {
	case parent.Err() != nil:
		return StopInterrupted
	case errors.Is(run.Err(), context.DeadlineExceeded):
		return StopBudget
	case run.Err() != nil:
		return StopInterrupted
	}
	return StopNone
}

// RunAll runs every scenario on every binding of t without Ginkgo, in the
// same order and with the same engine as the Ginkgo suite. The kill matrix
// uses it to run the suite against many servers in one process.
func RunAll(ctx context.Context, t *scenarios.Target, j scenarios.Judgement) []*scenarios.Result {
	out, _ := Run(ctx, t, RunOptions{Judgement: j})
	return out.Results
}
