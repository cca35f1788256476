package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pagewalk/pagewalk/scenarios"
)

// checkOptions are the check command's flags.
type checkOptions struct {
	target, binding, tenant, otherTenant, control, controlToken, blackBoxText string
	principals, focus                                                         []string
	tokenTTL, requestTimeout, maxTime, maxWait                                time.Duration
	maxPages, observeTasks                                                    int
	maxResponseBytes                                                          int64
	profile                                                                   string
	strict, failOnSkip, list, verbose                                         bool
	// The reports to write ("" none, "-" stdout) and the bundle.
	jsonReport, junitReport, mdReport, htmlReport, bundle string
	// flags are the flags as given, secrets redacted, for the reports.
	flags []string
}

func checkCmd() *cobra.Command {
	o := defaultCheckOptions()
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Run the ListTasks conformance suite against an A2A endpoint",
		Long: `Run every ListTasks conformance case against --target, over JSON-RPC and
HTTP+JSON, and print one line per case and binding that did not pass (its
worst finding, then "(+N more)"), then the line
"conformance: N passed, N failed, N skipped". -v narrates every step.

--target is required: an Agent Card URL or base URL, or "builtin" for the
built-in reference server (started in this process and served on a
loopback port). Before any case runs, check fetches the Agent Card and
makes one ListTasks call per --principal on each binding: rejected
credentials end the run with exit 2 and no spec verdict.

Verdicts follow the spec's words (docs/verdicts.md): breaking a MUST is a
Fail; a SHOULD, a normative sentence without an RFC 2119 keyword, or a
normative example is Non-strict; the seed article's practices are judged
only with --profile hardened.

Reports: --json-report (everything), --junit-report, --md-report,
--html-report ("-" writes one to stdout), and --bundle, a certification
bundle pagewalk report verify checks. SIGINT or SIGTERM, or --max-time,
end the run early with the reports of the cases that finished, marked
partial (exit 3). Exit codes: pagewalk --help, docs/exit-codes.md.`,
		Example: `  pagewalk check --target http://127.0.0.1:8080 --principal alice=alice-token --principal bob=bob-token
  pagewalk check --target https://agent.example.com/.well-known/agent-card.json --principal me=$TOKEN \
      --control https://agent.example.com/test-control --control-token $CTL --profile hardened \
      --junit-report junit.xml --md-report summary.md --bundle pagewalk-bundle.tar.gz
  pagewalk check --target builtin --focus LT-TIE-BOUNDARY --profile hardened -v
  pagewalk check --list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.flags = redactedFlags(cmd.Flags())
			if o.list {
				listCases(cmd.OutOrStdout())
				return nil
			}
			boundCheckMemory()
			_, err := checkMain(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			return err
		},
	}
	o.register(cmd.Flags())
	return cmd
}

// checkMemoryLimit is check's soft memory limit (Go's runtime/debug
// SetMemoryLimit), unless GOMEMLIMIT says otherwise. What check keeps is
// bounded by its reply cap and each walk's byte budget (tens of MB at
// worst); what it throws away decoding hostile replies of several MB is
// not, and with Go's default GC pacing that garbage alone took RSS past
// 256 MB (suites/hostile). The limit makes the collector run earlier near
// it; it never fails an allocation.
const checkMemoryLimit = 160 << 20

func boundCheckMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(checkMemoryLimit)
	}
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

// defaultCheckOptions are the defaults of the flags.
func defaultCheckOptions() *checkOptions {
	return &checkOptions{binding: "all", profile: string(scenarios.ProfileDefault), requestTimeout: 30 * time.Second, maxTime: 15 * time.Minute,
		maxWait: scenarios.DefaultMaxWait, observeTasks: scenarios.DefaultObserveTasks, maxPages: 1000, maxResponseBytes: 8 << 20}
}

func (o *checkOptions) register(f *pflag.FlagSet) {
	f.StringVar(&o.target, "target", "", `agent card URL or base URL of the A2A server, or "builtin" for the built-in reference (required)`)
	f.StringVar(&o.binding, "binding", o.binding, "bindings to test: jsonrpc, http or all (those the agent card declares)")
	f.StringArrayVar(&o.principals, "principal", nil, "NAME=TOKEN bearer identity (repeatable; the second unlocks scoping and replay cases)")
	f.StringVar(&o.tenant, "tenant", "", "tenant to send with every request")
	f.StringVar(&o.otherTenant, "other-tenant", "", "a second tenant of the first principal, for the tenant-scoping case")
	f.StringVar(&o.control, "control", "", "control API base URL (docs/control-api.md); default: from the agent card's extension")
	f.StringVar(&o.controlToken, "control-token", "", "bearer token of the control API")
	f.DurationVar(&o.tokenTTL, "token-ttl", 0, "page-token lifetime, if the control API does not report it")
	f.StringVar(&o.profile, "profile", o.profile, "default, or hardened to also judge the seed article's practices")
	f.BoolVar(&o.strict, "strict", false, "also fail the run on Non-strict verdicts")
	f.BoolVar(&o.failOnSkip, "fail-on-skip", false, "fail the run when any case is skipped (except hardened practices under --profile default)")
	f.StringVar(&o.jsonReport, "json-report", "", "write the JSON report, with every finding whole, to this file (- for stdout)")
	f.StringVar(&o.junitReport, "junit-report", "", "write a JUnit XML report to this file (- for stdout)")
	f.StringVar(&o.mdReport, "md-report", "", "write a Markdown summary (under 64 KiB, for a CI job summary) to this file (- for stdout)")
	f.StringVar(&o.htmlReport, "html-report", "", "write a self-contained HTML report to this file (- for stdout)")
	f.StringVar(&o.bundle, "bundle", "", "write a certification bundle (.tar.gz: the reports, the Agent Card, conformance.yaml, manifest.json; pagewalk report verify checks it) (- for stdout)")
	f.BoolVar(&o.list, "list", false, "list every case (ID, level, title) and exit without running")
	f.StringSliceVar(&o.focus, "focus", nil, "run only these case IDs (repeatable or comma-separated)")
	f.StringVar(&o.blackBoxText, "blackbox-text", "", "message text black-box cases send to create tasks (default: a probe that asks the agent to keep working)")
	f.DurationVar(&o.requestTimeout, "request-timeout", o.requestTimeout, "bound on each request, from sending it to the last byte of the reply")
	f.Int64Var(&o.maxResponseBytes, "max-response-bytes", o.maxResponseBytes, "bound on each reply body; a longer reply is an error")
	f.DurationVar(&o.maxTime, "max-time", o.maxTime, "bound on the whole run; when it runs out the reports of the finished cases are written, marked partial (exit 3)")
	f.DurationVar(&o.maxWait, "max-wait", o.maxWait, "bound on any real-time wait for a black-box target to act on its own")
	f.IntVar(&o.maxPages, "max-pages", o.maxPages, "page cap of any one walk (each case also has its own, smaller cap)")
	f.IntVar(&o.observeTasks, "observe-tasks", o.observeTasks, "most tasks of each principal black-box cases walk through, read-only, to judge data they did not create (0: none)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "narrate every step of every case, with findings and witnesses")
}
