package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pagewalk/pagewalk/reports"
	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	"github.com/pagewalk/pagewalk/suites"
)

// checkOptions are the check command's flags.
type checkOptions struct {
	target, binding, tenant, otherTenant, control, controlToken string
	principals, focus                                           []string
	tokenTTL                                                    time.Duration
	profile                                                     string
	strict, list, verbose                                       bool
	junit, jsonReport, blackBoxText                             string
}

func checkCmd() *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Run the ListTasks conformance suite against an A2A endpoint",
		Long: `Run every ListTasks conformance case against --target, over JSON-RPC and
HTTP+JSON, and print one verdict per case, then the line
"conformance: N passed, N failed, N skipped".

Verdicts follow the spec's words: breaking a MUST is a Fail; breaking a SHOULD,
a normative sentence without an RFC 2119 keyword, or a normative example is
Non-strict; the seed article's practices (signed, bound, expiring tokens,
tie-safe cursors, catch-up) are judged only with --profile hardened.

Exit status: 0 when no case fails; 1 when a MUST fails (and, with --strict,
a Non-strict verdict; with --profile hardened, a Hardened one); 2 for bad
flags or an unreachable target.

With no --target, check runs against the built-in reference server, started
in process.`,
		Example: `  pagewalk check --target http://127.0.0.1:8080 --principal alice=alice-token --principal bob=bob-token
  pagewalk check --target https://agent.example.com/.well-known/agent-card.json --principal me=$TOKEN \
      --control https://agent.example.com/test-control --control-token $CTL --profile hardened --junit-report junit.xml
  pagewalk check --list
  pagewalk check --focus LT-TIE-BOUNDARY --profile hardened`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCheck(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.target, "target", "", "agent card URL or base URL of the A2A server (default: the built-in reference, in process)")
	f.StringVar(&o.binding, "binding", "all", "bindings to test: jsonrpc, http or all (those the agent card declares)")
	f.StringArrayVar(&o.principals, "principal", nil, "NAME=TOKEN bearer identity (repeatable; the second unlocks scoping and replay cases)")
	f.StringVar(&o.tenant, "tenant", "", "tenant to send with every request")
	f.StringVar(&o.otherTenant, "other-tenant", "", "a second tenant of the first principal, for the tenant-scoping case")
	f.StringVar(&o.control, "control", "", "control API base URL (docs/control-api.md); default: from the agent card's extension")
	f.StringVar(&o.controlToken, "control-token", "", "bearer token of the control API")
	f.DurationVar(&o.tokenTTL, "token-ttl", 0, "page-token lifetime, if the control API does not report it")
	f.StringVar(&o.profile, "profile", "default", "default, or hardened to also judge the seed article's practices")
	f.BoolVar(&o.strict, "strict", false, "also fail the run on Non-strict verdicts")
	f.StringVar(&o.junit, "junit-report", "", "write a JUnit XML report to this file")
	f.StringVar(&o.jsonReport, "json-report", "", "write the JSON report (input of pagewalk report render) to this file")
	f.BoolVar(&o.list, "list", false, "list every case (ID, level, title) and exit without running")
	f.StringSliceVar(&o.focus, "focus", nil, "run only these case IDs (repeatable or comma-separated)")
	f.StringVar(&o.blackBoxText, "blackbox-text", "", "message text black-box cases send to create tasks (default: a probe that asks the agent to keep working)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "narrate every step of every case")
	return cmd
}

// listCases prints every case without running anything.
func listCases(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tNEEDS\tTITLE")
	for _, s := range scenarios.All() {
		var needs []string
		for _, n := range s.Needs {
			needs = append(needs, string(n))
		}
		if s.BlackBox != nil && len(needs) > 0 {
			needs = append(needs, "(black-box variant without)")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.ID, s.Level, strings.Join(needs, ","), s.Title)
	}
	tw.Flush()
}

// failer lets Ginkgo's RunSpecs run from a main program.
type failer struct{ failed bool }

func (f *failer) Fail() { f.failed = true }

func runCheck(cmd *cobra.Command, o checkOptions) error {
	out := cmd.OutOrStdout()
	if o.list {
		listCases(out)
		return nil
	}
	j := scenarios.Judgement{Profile: scenarios.Profile(o.profile), Strict: o.strict}
	if j.Profile != scenarios.ProfileDefault && j.Profile != scenarios.ProfileHardened {
		return usage("--profile: want default or hardened, got %q", o.profile)
	}
	for i, id := range o.focus {
		o.focus[i] = strings.TrimSpace(id)
		if _, ok := scenarios.Lookup(o.focus[i]); !ok {
			return usage("--focus: no case %q (pagewalk check --list shows them)", id)
		}
	}
	if err := checkWritable("--junit-report", o.junit); err != nil {
		return err
	}
	if err := checkWritable("--json-report", o.jsonReport); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Minute)
	defer cancel()
	hc := &http.Client{Timeout: 30 * time.Second}
	var target *scenarios.Target
	name := o.target
	if o.target == "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "pagewalk check: no --target; checking the built-in reference server (in process)")
		ref, err := suites.StartInProcess()
		if err != nil {
			return err
		}
		defer ref.Close()
		if target, err = suites.ReferenceTarget(ctx, ref, hc); err != nil {
			return err
		}
		if target.Bindings, err = a2aclient.SelectBindings(target.Card, o.binding); err != nil {
			return flagErr(err)
		}
		name = "built-in reference (in process)"
	} else {
		ps, err := a2aclient.ParsePrincipals(o.principals)
		if err != nil {
			return flagErr(err)
		}
		target, err = suites.ExternalTarget(ctx, suites.TargetOptions{URL: o.target, Principals: ps, Tenant: o.tenant, OtherTenant: o.otherTenant,
			ControlURL: o.control, ControlToken: o.controlToken, TokenTTL: o.tokenTTL, Binding: o.binding, BlackBoxText: o.blackBoxText, HTTP: hc})
		if err != nil {
			return flagErr(err)
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "pagewalk check: %s, bindings %v, profile %s%s\n", target.Card.URL, target.Bindings, j.Profile, map[bool]string{true: ", strict"}[j.Strict])
	return runSuite(out, target, name, j, o)
}

// runSuite runs the Ginkgo suite from this program and turns the result
// into an exit status.
func runSuite(out io.Writer, target *scenarios.Target, name string, j scenarios.Judgement, o checkOptions) error {
	suite, err := suites.Define(suites.Config{
		Judgement: j, Bindings: target.Bindings, Focus: o.focus, JSONReport: o.jsonReport, Out: out, Version: version, NoLine: true,
		Target: func() *scenarios.Target { return target }, TargetName: func() string { return name },
	})
	if err != nil {
		return flagErr(err)
	}
	gomega.RegisterFailHandler(ginkgo.Fail)
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.FailOnEmpty = true
	sc.Timeout = 30 * time.Minute
	rc.NoColor = !isTerminal(out)
	rc.JUnitReport = o.junit
	rc.Verbose = o.verbose
	rc.Succinct = !o.verbose
	f := &failer{}
	ginkgo.RunSpecs(f, "pagewalk conformance", sc, rc)
	if suite.Report == nil {
		return &exitError{code: 2, err: fmt.Errorf("the suite did not finish")}
	}
	printSummary(out, suite.Report)
	if o.jsonReport != "" {
		fmt.Fprintf(out, "JSON report: %s (pagewalk report render --in %s --format html)\n", o.jsonReport, o.jsonReport)
	}
	if o.junit != "" {
		fmt.Fprintf(out, "JUnit report: %s\n", o.junit)
	}
	fmt.Fprintf(out, "%s\n", suite.Report.Line())
	if suite.Report.ExitCode != 0 {
		return &exitError{code: suite.Report.ExitCode, err: fmt.Errorf("")}
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// checkWritable fails early, naming the flag, when a report path cannot be
// written, so a long run is not lost at the end.
func checkWritable(flag, path string) error {
	if path == "" {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".pagewalk-probe-*")
	if err != nil {
		return usage("%s %s: cannot write there: %v", flag, path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// printSummary lists every case that did not pass, sorted by ID so runs
// diff cleanly, and groups skipped cases by reason.
func printSummary(w io.Writer, c *reports.Conformance) {
	fmt.Fprintln(w)
	skips := map[string][]string{}
	var reasons []string
	for _, r := range c.Cases {
		switch r.Verdict {
		case scenarios.Pass:
		case scenarios.Skipped:
			if _, ok := skips[r.Skip]; !ok {
				reasons = append(reasons, r.Skip)
			}
			skips[r.Skip] = append(skips[r.Skip], r.Name())
		default:
			msg := r.Error
			if msg == "" && len(r.Findings) > 0 {
				for _, f := range r.Findings {
					if f.Class != scenarios.ClassInfo {
						msg = fmt.Sprintf("[%s] %s", strings.Join(f.Reqs, ","), f.Message)
						break
					}
				}
			}
			fmt.Fprintf(w, "%-10s %s: %s\n", r.Verdict, r.Name(), firstLine(msg))
		}
	}
	for _, reason := range reasons {
		fmt.Fprintf(w, "%-10s %d cases: %s\n", "Skipped", len(skips[reason]), reason)
	}
	if len(c.Skipped) > 0 {
		var ids []string
		for _, k := range c.Skipped {
			ids = append(ids, k.Requirement)
		}
		fmt.Fprintf(w, "Not checked (every case resting on them was skipped): %s\n", strings.Join(ids, ", "))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
