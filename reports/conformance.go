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
	Schema   string               `json:"schema"`
	Tool     string               `json:"tool"`
	Version  string               `json:"version"`
	Target   string               `json:"target"`
	CardURL  string               `json:"cardUrl"`
	Bindings []string             `json:"bindings"`
	Profile  scenarios.Profile    `json:"profile"`
	Strict   bool                 `json:"strict"`
	Started  time.Time            `json:"started"`
	Duration time.Duration        `json:"durationNanos"`
	Summary  Summary              `json:"summary"`
	Cases    []*scenarios.Result  `json:"cases"`
	Skipped  []SkippedRequirement `json:"skippedRequirements,omitempty"`
	ExitCode int                  `json:"exitCode"`
	Verdict  string               `json:"verdict"` // PASS or FAIL
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
func NewConformance(results []*scenarios.Result, j scenarios.Judgement) *Conformance {
	c := &Conformance{Schema: SchemaConformance, Tool: "pagewalk", Profile: j.Profile, Strict: j.Strict, Cases: results}
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
	c.Verdict = "PASS"
	if c.ExitCode != 0 {
		c.Verdict = "FAIL"
	}
	return c
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
