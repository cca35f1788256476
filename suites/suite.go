// Package suites runs pagewalk's conformance scenarios as a Ginkgo v2 suite
// against any A2A endpoint, over JSON-RPC and HTTP+JSON. With no target it
// starts the reference server in a container (testcontainers-go), falling
// back to an in-process server when no Docker engine answers.
//
// Every case is one Ginkgo It, labelled with its requirement IDs, its level
// and its binding, and narrated with By. The run ends with the line
// "conformance: N passed, N failed, N skipped" on a line of its own.
package suites

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/pagewalk/pagewalk/reports"
	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Config configures a conformance suite.
type Config struct {
	Judgement scenarios.Judgement
	// Bindings limits the bindings tested; empty means every binding the
	// Agent Card declares.
	Bindings []a2aclient.Binding
	// Focus limits the run to these scenario IDs; empty means all.
	Focus []string
	// JSONReport, if set, is where the JSON report is written.
	JSONReport string
	// Out receives the closing verdict line (default os.Stdout).
	Out io.Writer
	// NoLine leaves printing the verdict line to the caller (the check
	// command prints it last, after its summary).
	NoLine bool
	// Target returns the target; it is called when the specs run, after
	// BeforeSuite has launched or discovered it.
	Target func() *scenarios.Target
	// TargetName labels the report.
	TargetName func() string
	Version    string
}

// Suite is a defined conformance suite; after RunSpecs, Report holds the
// run.
type Suite struct {
	cfg     Config
	mu      sync.Mutex
	results []*scenarios.Result
	// Report is the finished run (set by the ReportAfterSuite node).
	Report *reports.Conformance
}

// CaseLabels returns the Ginkgo labels of a case: its ID, requirement IDs,
// level, area and binding.
func CaseLabels(s *scenarios.Scenario, b string) Labels {
	l := Labels{s.ID, string(s.Level), "area:" + s.Area, "binding:" + b}
	l = append(l, s.Reqs...)
	return l
}

// Define defines one Ginkgo It per scenario and binding, and the
// ReportAfterSuite node that prints the verdict line and writes the JSON
// report. Call it before RunSpecs.
func Define(cfg Config) (*Suite, error) {
	if cfg.Out == nil {
		cfg.Out = os.Stdout
	}
	suite := &Suite{cfg: cfg}
	var list []*scenarios.Scenario
	if len(cfg.Focus) == 0 {
		list = scenarios.All()
	} else {
		for _, id := range cfg.Focus {
			s, ok := scenarios.Lookup(id)
			if !ok {
				return nil, fmt.Errorf("--focus: no case %q; known cases: %s", id, scenarios.IDs())
			}
			list = append(list, s)
		}
	}
	bindings := cfg.Bindings
	if len(bindings) == 0 {
		bindings = []a2aclient.Binding{a2aclient.JSONRPC, a2aclient.HTTPJSON}
	}
	Describe("A2A 1.0 ListTasks conformance", func() {
		for _, s := range list {
			bs := bindings
			if s.CrossBinding {
				bs = []a2aclient.Binding{""}
			}
			for _, b := range bs {
				name := string(b)
				if name == "" {
					name = "all"
				}
				// The spec's location is the case, with its ID and the spec
				// sentence it rests on, not a harness source line.
				at := types.NewCustomCodeLocation(fmt.Sprintf("%s, %s: %s", s.ID, s.Checker, s.Quote))
				It(fmt.Sprintf("%s [%s] %s", s.ID, name, s.Title), CaseLabels(s, name), at, func(ctx SpecContext) {
					t := cfg.Target()
					if b != "" && !declares(t, b) {
						res := &scenarios.Result{ID: s.ID, Title: s.Title, Area: s.Area, Level: s.Level, Reqs: s.Reqs, Quote: s.Quote,
							Binding: name, Verdict: scenarios.Skipped, Skip: fmt.Sprintf("the Agent Card declares no %s 1.0 interface, or --binding excludes it", name)}
						suite.add(res)
						Skip(res.Skip)
					}
					res := scenarios.Run(ctx, t, s, b, scenarios.RunOptions{Judgement: cfg.Judgement, By: func(step string) { By(step) }})
					suite.add(res)
					AddReportEntry("pagewalk", res, ReportEntryVisibilityNever)
					switch {
					case res.Verdict == scenarios.Skipped:
						Skip(res.Skip)
					case cfg.Judgement.Failing(res.Verdict):
						Fail(describe(res), 1)
					case len(res.Findings) > 0:
						GinkgoWriter.Println(describe(res))
					}
				})
			}
		}
	})
	ReportAfterSuite("pagewalk conformance report", func(r Report) {
		conf := reports.NewConformance(suite.snapshot(), cfg.Judgement)
		conf.Version = cfg.Version
		if t := cfg.Target; t != nil {
			if tt := t(); tt != nil && tt.Card != nil {
				conf.CardURL = tt.Card.URL
				for _, b := range tt.Bindings {
					conf.Bindings = append(conf.Bindings, string(b))
				}
			}
		}
		if cfg.TargetName != nil {
			conf.Target = cfg.TargetName()
		}
		conf.Started, conf.Duration = r.StartTime, r.RunTime
		suite.Report = conf
		if cfg.JSONReport != "" {
			if err := conf.WriteJSON(cfg.JSONReport); err != nil {
				fmt.Fprintf(cfg.Out, "\npagewalk: writing --json-report %s: %v\n", cfg.JSONReport, err)
			}
		}
		if !cfg.NoLine {
			fmt.Fprintf(cfg.Out, "\n%s\n", conf.Line())
		}
	})
	return suite, nil
}

func declares(t *scenarios.Target, b a2aclient.Binding) bool {
	if _, ok := t.Card.Interface(b); !ok {
		return false
	}
	for _, x := range t.Bindings {
		if x == b {
			return true
		}
	}
	return false
}

func (s *Suite) add(r *scenarios.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results = append(s.results, r)
}

func (s *Suite) snapshot() []*scenarios.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*scenarios.Result(nil), s.results...)
}

// describe renders a result's verdict and findings for a failure message.
func describe(r *scenarios.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n  rests on: %s\n", r.Name(), r.Verdict, r.Quote)
	if r.Error != "" {
		fmt.Fprintf(&b, "  error: %s\n", r.Error)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(f.String(), "\n", "\n  "))
	}
	return b.String()
}
