package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios"
)

// SchemaConformance identifies the JSON document written by pagewalk check.
const SchemaConformance = "pagewalk/conformance/v1"

// Conformance is one conformance run: what was checked, how it was judged,
// and every case's result.
type Conformance struct {
	Schema  string `json:"schema"`
	Tool    string `json:"tool"`
	Version string `json:"version"`
	// Commit is the VCS revision the harness was built from, when known.
	Commit string `json:"commit,omitempty"`
	// SpecVersion is the specification the cases check ("A2A 1.0").
	SpecVersion string `json:"specVersion,omitempty"`
	Target      string `json:"target"`
	CardURL     string `json:"cardUrl"`
	// CardSHA256 is the hex sha256 of the Agent Card as fetched.
	CardSHA256 string            `json:"cardSha256,omitempty"`
	Bindings   []string          `json:"bindings"`
	Profile    scenarios.Profile `json:"profile"`
	Strict     bool              `json:"strict"`
	// FailOnSkip: any skip (other than a case the profile does not judge)
	// fails the run.
	FailOnSkip bool `json:"failOnSkip,omitempty"`
	// Flags are the command-line flags the run was given, secrets
	// redacted.
	Flags    []string      `json:"flags,omitempty"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNanos"`
	// Partial is true when the run stopped before its last case
	// (StopReason says why; NotRun counts the cases that did not finish).
	Partial    bool                 `json:"partial,omitempty"`
	StopReason string               `json:"stopReason,omitempty"`
	NotRun     int                  `json:"notRun,omitempty"`
	Summary    Summary              `json:"summary"`
	Cases      []*scenarios.Result  `json:"cases"`
	Skipped    []SkippedRequirement `json:"skippedRequirements,omitempty"`
	ExitCode   int                  `json:"exitCode"`
	// Verdict is PASS, FAIL, NOTHING CHECKED or INCOMPLETE (see ExitCodes).
	Verdict string `json:"verdict"`
}

// The run verdicts.
const (
	VerdictPass           = "PASS"
	VerdictFail           = "FAIL"
	VerdictNothingChecked = "NOTHING CHECKED"
	VerdictIncomplete     = "INCOMPLETE"
)

// SpecVersion is the specification pagewalk's cases check.
const SpecVersion = "A2A 1.0"

// Option adjusts how NewConformance judges a run.
type Option func(*Conformance)

// FailOnSkip makes any skip fail the run, except a case the profile does
// not judge (a hardened practice under the default profile).
func FailOnSkip(on bool) Option { return func(c *Conformance) { c.FailOnSkip = on } }

// Stopped marks the run partial: it stopped early for reason, with notRun
// cases unfinished.
func Stopped(reason string, notRun int) Option {
	return func(c *Conformance) {
		if reason != "" {
			c.Partial, c.StopReason, c.NotRun = true, reason, notRun
		}
	}
}

// Summary counts cases by verdict.
type Summary struct {
	Total     int `json:"total"`
	Passed    int `json:"passed"`
	Failed    int `json:"failed"`
	NonStrict int `json:"nonStrict"`
	Hardened  int `json:"hardened"`
	Skipped   int `json:"skipped"`
	Errored   int `json:"errored"`
}

// SkippedRequirement is a requirement no case could check, with why.
type SkippedRequirement struct {
	Requirement string   `json:"requirement"`
	Cases       []string `json:"cases"`
	Reasons     []string `json:"reasons"`
}

// NewConformance assembles a run from its results and computes the summary,
// the skipped requirements, the exit code and the verdict. Cases are sorted
// by ID then binding so runs diff cleanly.
func NewConformance(results []*scenarios.Result, j scenarios.Judgement, opts ...Option) *Conformance {
	c := &Conformance{Schema: SchemaConformance, Tool: "pagewalk", SpecVersion: SpecVersion, Profile: j.Profile, Strict: j.Strict, Cases: results}
	for _, o := range opts {
		o(c)
	}
	ruledOutSkips := 0
	sort.SliceStable(c.Cases, func(a, b int) bool {
		if c.Cases[a].ID != c.Cases[b].ID {
			return c.Cases[a].ID < c.Cases[b].ID
		}
		return c.Cases[a].Binding < c.Cases[b].Binding
	})
	checked := map[string]bool{}
	skipped := map[string]*SkippedRequirement{}
	for _, r := range c.Cases {
		c.Summary.Total++
		switch r.Verdict {
		case scenarios.Pass:
			c.Summary.Passed++
		case scenarios.VFail:
			c.Summary.Failed++
		case scenarios.VNonStict:
			c.Summary.NonStrict++
		case scenarios.VHardened:
			c.Summary.Hardened++
		case scenarios.Skipped:
			c.Summary.Skipped++
			if c.FailOnSkip && !(r.Level == scenarios.Hardened && j.Profile != scenarios.ProfileHardened) {
				ruledOutSkips++
			}
		case scenarios.Errored:
			c.Summary.Errored++
		}
		if j.Failing(r.Verdict) {
			c.ExitCode = 1
		}
		for _, req := range r.Reqs {
			if r.Verdict == scenarios.Skipped {
				s := skipped[req]
				if s == nil {
					s = &SkippedRequirement{Requirement: req}
					skipped[req] = s
				}
				s.Cases = appendUnique(s.Cases, r.Name())
				s.Reasons = appendUnique(s.Reasons, r.Skip)
			} else {
				checked[req] = true
			}
		}
	}
	for req, s := range skipped {
		if !checked[req] {
			c.Skipped = append(c.Skipped, *s)
		}
	}
	sort.Slice(c.Skipped, func(a, b int) bool { return c.Skipped[a].Requirement < c.Skipped[b].Requirement })
	switch {
	case c.Partial:
		c.ExitCode, c.Verdict = ExitIncomplete, VerdictIncomplete
	case c.ExitCode != 0:
		c.ExitCode, c.Verdict = ExitFail, VerdictFail
	case c.Summary.Total == c.Summary.Skipped:
		c.ExitCode, c.Verdict = ExitNothingChecked, VerdictNothingChecked
	case ruledOutSkips > 0:
		c.ExitCode, c.Verdict = ExitFail, VerdictFail
	default:
		c.ExitCode, c.Verdict = ExitPass, VerdictPass
	}
	return c
}

// Why says in one line why the run got its verdict when it did not pass,
// or "" when it passed.
func (c *Conformance) Why() string {
	switch c.Verdict {
	case VerdictIncomplete:
		return fmt.Sprintf("the run did not finish (%s); %d cases did not run; this report is partial", c.StopReason, c.NotRun)
	case VerdictNothingChecked:
		return fmt.Sprintf("nothing was checked: all %d cases were skipped", c.Summary.Total)
	case VerdictFail:
		j := scenarios.Judgement{Profile: c.Profile, Strict: c.Strict}
		failing := false
		for _, r := range c.Cases {
			failing = failing || j.Failing(r.Verdict)
		}
		if !failing && c.FailOnSkip {
			return fmt.Sprintf("%d cases were skipped, and --fail-on-skip makes a skip fail the run", c.Summary.Skipped)
		}
	}
	return ""
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// Line is the one-line verdict CI reads: "conformance: N passed, N failed,
// N skipped". Non-strict, hardened and errored cases count as failed only
// when they fail the run under its judgement.
func (c *Conformance) Line() string {
	failed := c.Summary.Failed + c.Summary.Errored
	passed := c.Summary.Passed
	j := scenarios.Judgement{Profile: c.Profile, Strict: c.Strict}
	if j.Failing(scenarios.VNonStict) {
		failed += c.Summary.NonStrict
	} else {
		passed += c.Summary.NonStrict
	}
	if j.Failing(scenarios.VHardened) {
		failed += c.Summary.Hardened
	} else {
		passed += c.Summary.Hardened
	}
	return fmt.Sprintf("conformance: %d passed, %d failed, %d skipped", passed, failed, c.Summary.Skipped)
}

// WriteJSON writes c to path atomically (a temp file renamed into place),
// so a failed write never leaves a truncated report.
func (c *Conformance) WriteJSON(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return loadgen.WriteFileAtomic(path, append(b, '\n'))
}

// ReadConformance reads a JSON report written by WriteJSON. Errors name the
// file and what is wrong with it.
func ReadConformance(path string) (*Conformance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeConformance(path, bytes.NewReader(b))
}

// DecodeConformance decodes a JSON report from r; name labels errors.
func DecodeConformance(name string, r io.Reader) (*Conformance, error) {
	dec := json.NewDecoder(r)
	var c Conformance
	if err := dec.Decode(&c); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: not a pagewalk JSON report: invalid JSON at byte %d: %v", name, se.Offset, err)
		}
		return nil, fmt.Errorf("%s: not a pagewalk JSON report: %v", name, err)
	}
	if c.Schema != SchemaConformance {
		return nil, fmt.Errorf("%s: schema %q, want %q (is this a pagewalk check --json-report file?)", name, c.Schema, SchemaConformance)
	}
	for i, r := range c.Cases {
		if r == nil || r.ID == "" || r.Verdict == "" {
			return nil, fmt.Errorf("%s: cases[%d] has no id or verdict", name, i)
		}
	}
	return &c, nil
}
