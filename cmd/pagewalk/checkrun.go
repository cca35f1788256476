package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/reports"
	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	"github.com/pagewalk/pagewalk/suites"
)

// builtinTarget is the --target value for the built-in reference.
const builtinTarget = "builtin"

// checkMain runs a check as the command does: validate, set up the target,
// run the cases (SIGINT and SIGTERM stop it early), write the reports and
// turn the verdict into the exit status.
func checkMain(ctx context.Context, o *checkOptions, stdout, stderr io.Writer) (*reports.Conformance, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	con := &console{w: stdout, verbose: o.verbose}
	if o.toStdout() != "" {
		con.w = stderr // stdout carries the report
	}
	con.color = colorFor(con.w)
	t, err := openTarget(ctx, o, stderr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &exitError{code: reports.ExitIncomplete, err: errors.New("interrupted before any case ran; no report written")}
		}
		return nil, setupErr(err, o)
	}
	defer t.close()
	fmt.Fprintf(stderr, "pagewalk check: %s, bindings %v, profile %s%s\n", t.label, t.target.Bindings, o.profile, map[bool]string{true: ", strict"}[o.strict])
	c, err := runChecks(ctx, t, o, con)
	if err != nil {
		return nil, err
	}
	if err := writeReports(c, t.card, o, stdout, stderr); err != nil {
		return c, err
	}
	fmt.Fprintln(con.w, c.Line())
	return c, verdictErr(c)
}

// validate checks every flag before anything touches the network.
func (o *checkOptions) validate() error {
	switch {
	case strings.TrimSpace(o.target) == "":
		return usage(`--target: required: an agent card URL or base URL, or "builtin" for the built-in reference (is a variable in --target "$A2A_URL" unset?)`)
	case o.profile != string(scenarios.ProfileDefault) && o.profile != string(scenarios.ProfileHardened):
		return usage("--profile: want default or hardened, got %q", o.profile)
	case o.requestTimeout <= 0:
		return usage("--request-timeout: must be positive, got %s", o.requestTimeout)
	case o.maxTime <= 0:
		return usage("--max-time: must be positive, got %s", o.maxTime)
	case o.maxWait <= 0:
		return usage("--max-wait: must be positive, got %s", o.maxWait)
	case o.maxPages < 1:
		return usage("--max-pages: must be at least 1, got %d", o.maxPages)
	case o.observeTasks < 0:
		return usage("--observe-tasks: must be 0 (no observe walk) or positive, got %d", o.observeTasks)
	case o.maxResponseBytes < 1<<10:
		return usage("--max-response-bytes: must be at least 1024, got %d", o.maxResponseBytes)
	case o.tokenTTL < 0:
		return usage("--token-ttl: must not be negative, got %s", o.tokenTTL)
	}
	if o.target != builtinTarget {
		if _, err := a2aclient.CardURL(o.target); err != nil {
			return flagErr(err)
		}
	}
	if _, err := a2aclient.ParseBindings(o.binding); err != nil {
		return flagErr(err)
	}
	if _, err := a2aclient.ParsePrincipals(o.principals); err != nil {
		return flagErr(err)
	}
	for i, id := range o.focus {
		o.focus[i] = strings.TrimSpace(id)
		if _, ok := scenarios.Lookup(o.focus[i]); !ok {
			return usage("--focus: no case %q (pagewalk check --list shows them)", id)
		}
	}
	stdoutFlag := ""
	for _, out := range o.outputs() {
		if out.path == "-" {
			if stdoutFlag != "" {
				return usage("%s and %s both write to stdout (-); give one of them a file", stdoutFlag, out.flag)
			}
			stdoutFlag = out.flag
		} else if err := checkWritable(out.flag, out.path); err != nil {
			return err
		}
	}
	return nil
}

// output is one report flag.
type output struct{ flag, path string }

func (o *checkOptions) outputs() []output {
	var out []output
	for _, x := range []output{{"--json-report", o.jsonReport}, {"--junit-report", o.junitReport}, {"--md-report", o.mdReport},
		{"--html-report", o.htmlReport}, {"--bundle", o.bundle}} {
		if x.path != "" {
			out = append(out, x)
		}
	}
	return out
}

// toStdout returns the flag of the report written to stdout, if any.
func (o *checkOptions) toStdout() string {
	for _, x := range o.outputs() {
		if x.path == "-" {
			return x.flag
		}
	}
	return ""
}

// checkWritable fails early, naming the flag, when a report path cannot be
// written, so a long run is not lost at the end.
func checkWritable(flag, path string) error {
	dir := filepath.Dir(path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usage("%s %s: is a directory", flag, path)
	}
	f, err := os.CreateTemp(dir, ".pagewalk-probe-*")
	if err != nil {
		return usage("%s %s: cannot write there: %v", flag, path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// checkTarget is a target ready to run: the cases' view of it, its label
// for the reports, the Agent Card as fetched, and how to let it go.
type checkTarget struct {
	target *scenarios.Target
	label  string
	card   []byte
	close  func()
	// baseURL is the built-in reference's current base URL (nil for an
	// external target).
	baseURL func(context.Context) (string, error)
}

// openTarget starts the built-in reference or discovers --target (with
// the credential preflight), applying the budget flags.
func openTarget(ctx context.Context, o *checkOptions, stderr io.Writer) (*checkTarget, error) {
	hc := a2aclient.NewHTTPClient(a2aclient.HTTPOptions{Timeout: o.requestTimeout, MaxResponseBytes: o.maxResponseBytes})
	ct := &checkTarget{close: func() {}}
	if o.target == builtinTarget {
		b, err := suites.StartBuiltin(ctx, hc, suites.BuiltinOptions{Binding: o.binding, MaxWait: o.maxWait, ObserveTasks: o.observeTasks, MaxPages: o.maxPages})
		if err != nil {
			return nil, err
		}
		ct.target, ct.close, ct.baseURL = b.Target, func() { b.Close() }, b.BaseURL
		ct.label = "pagewalk's built-in reference server at " + b.URL + ", served over HTTP on loopback (--target builtin)"
		if len(o.principals) > 0 {
			fmt.Fprintln(stderr, "pagewalk check: --target builtin uses its own principals alice and bob; --principal is ignored")
		}
	} else {
		ps, _ := a2aclient.ParsePrincipals(o.principals)
		observe := o.observeTasks
		if observe == 0 {
			observe = -1 // off
		}
		t, err := suites.ExternalTarget(ctx, suites.TargetOptions{URL: o.target, Principals: ps, Tenant: o.tenant, OtherTenant: o.otherTenant,
			ControlURL: o.control, ControlToken: o.controlToken, TokenTTL: o.tokenTTL, Binding: o.binding, BlackBoxText: o.blackBoxText,
			MaxWait: o.maxWait, ObserveTasks: observe, MaxPages: o.maxPages, HTTP: hc})
		if err != nil {
			return nil, err
		}
		ct.target, ct.label = t, o.target
	}
	ct.card = bytes.Clone(ct.target.Card.Raw)
	return ct, nil
}

// runChecks runs the cases on the plain engine and assembles the run.
func runChecks(ctx context.Context, t *checkTarget, o *checkOptions, con *console) (*reports.Conformance, error) {
	j := scenarios.Judgement{Profile: scenarios.Profile(o.profile), Strict: o.strict}
	cardURL := t.target.Card.URL
	out, err := suites.Run(ctx, t.target, suites.RunOptions{Judgement: j, Focus: o.focus, MaxTime: o.maxTime,
		OnStart: con.start, OnStep: con.step, OnCase: con.done})
	if err != nil {
		return nil, flagErr(err)
	}
	stop := ""
	switch out.Stopped {
	case suites.StopInterrupted:
		stop = "interrupted by a signal"
	case suites.StopBudget:
		stop = fmt.Sprintf("--max-time %s ran out", o.maxTime)
	}
	c := reports.NewConformance(out.Results, j, reports.FailOnSkip(o.failOnSkip), reports.Stopped(stop, out.NotRun))
	c.Version, c.Commit = harness()
	c.Target, c.CardURL, c.CardSHA256, c.Flags = t.label, cardURL, reports.Digest(t.card), o.flags
	for _, b := range t.target.Bindings {
		c.Bindings = append(c.Bindings, string(b))
	}
	c.Started, c.Duration = out.Started, out.Duration
	con.skips(c)
	return c, nil
}

// writeReports writes every report asked for: a file atomically, or
// stdout for "-".
func writeReports(c *reports.Conformance, card []byte, o *checkOptions, stdout, stderr io.Writer) error {
	renders := map[string]func(io.Writer) error{
		"--json-report":  func(w io.Writer) error { return jsonTo(w, c) },
		"--junit-report": c.JUnit,
		"--md-report":    reports.Bundle{Conformance: c}.Markdown,
		"--html-report":  reports.Bundle{Conformance: c}.HTML,
		"--bundle":       func(w io.Writer) error { return reports.CertBundle(w, c, card) },
	}
	for _, out := range o.outputs() {
		if err := writeOutput(out, stdout, renders[out.flag]); err != nil {
			return err
		}
		if out.path != "-" {
			fmt.Fprintf(stderr, "pagewalk check: wrote %s %s\n", strings.TrimPrefix(out.flag, "--"), out.path)
		}
	}
	return nil
}

// writeOutput renders into memory, then writes to stdout ("-") or the file
// (atomically: a failed write never leaves a truncated report).
func writeOutput(out output, stdout io.Writer, render func(io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return fmt.Errorf("%s: %w", out.flag, err)
	}
	if out.path == "-" {
		_, err := stdout.Write(b.Bytes())
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out.path), 0o755); err != nil {
		return usage("%s %s: %v", out.flag, out.path, err)
	}
	if err := loadgen.WriteFileAtomic(out.path, b.Bytes()); err != nil {
		return usage("%s %s: %v", out.flag, out.path, err)
	}
	return nil
}

func jsonTo(w io.Writer, c *reports.Conformance) error {
	var b bytes.Buffer
	enc := jsonEncoder(&b)
	if err := enc.Encode(c); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// verdictErr turns the run's verdict into the exit status.
func verdictErr(c *reports.Conformance) error {
	if c.ExitCode == reports.ExitPass {
		return nil
	}
	msg := c.Why()
	if msg == "" {
		msg = "verdict " + c.Verdict
	}
	return &exitError{code: c.ExitCode, err: errors.New(msg)}
}

// setupErr renders a setup failure as exit 2: a parameter as its flag,
// rejected credentials as such, a timeout or an oversized reply with the
// flag that bounds it.
func setupErr(err error, o *checkOptions) error {
	var ce *a2aclient.CredentialError
	if errors.As(err, &ce) {
		return &exitError{code: reports.ExitSetup, err: fmt.Errorf("%v; no spec verdict was given (check the token given with --principal %s=...)", ce, ce.Principal)}
	}
	var te *a2aclient.TimeoutError
	if errors.As(err, &te) {
		// It already says "per-request timeout": name the flag that sets it.
		return &exitError{code: reports.ExitSetup, err: fmt.Errorf("%v (--request-timeout %s)", err, o.requestTimeout)}
	}
	var ne net.Error
	if (errors.As(err, &ne) && ne.Timeout()) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, http.ErrHandlerTimeout) {
		return &exitError{code: reports.ExitSetup, err: fmt.Errorf("%v (no reply within --request-timeout %s)", err, o.requestTimeout)}
	}
	return flagErr(err)
}

// redactedFlags lists the flags given on the command line, with tokens
// replaced, for the reports and the bundle manifest.
func redactedFlags(fs *pflag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *pflag.Flag) {
		vals := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			switch f.Name {
			case "principal":
				if name, _, ok := strings.Cut(v, "="); ok {
					v = name + "=REDACTED"
				}
			case "control-token":
				v = "REDACTED"
			}
			out = append(out, "--"+f.Name+"="+v)
		}
	})
	return out
}

func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc
}
