package scenarios

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// GoldenCase is one entry of the golden list (conformance.yaml).
type GoldenCase struct {
	ID           string   `yaml:"id"`
	Level        Level    `yaml:"level"`
	Area         string   `yaml:"area"`
	Title        string   `yaml:"title"`
	Requirements []string `yaml:"requirements"`
	Quote        string   `yaml:"quote"`
	Checker      string   `yaml:"checker"`
	Needs        []string `yaml:"needs,omitempty"`
	BlackBox     bool     `yaml:"blackBox"`
	Bindings     string   `yaml:"bindings"`
}

// Golden renders the golden list of conformance cases, generated from the
// registered scenarios, as YAML. CI compares it with the checked-in
// conformance.yaml so that no case silently disappears or changes level.
func Golden() ([]byte, error) {
	var cases []GoldenCase
	for _, s := range All() {
		g := GoldenCase{ID: s.ID, Level: s.Level, Area: s.Area, Title: s.Title, Requirements: s.Reqs, Quote: s.Quote,
			Checker: s.Checker, BlackBox: s.BlackBox != nil, Bindings: "each"}
		if s.CrossBinding {
			g.Bindings = "both at once"
		}
		for _, n := range s.Needs {
			g.Needs = append(g.Needs, string(n))
		}
		cases = append(cases, g)
	}
	var b bytes.Buffer
	b.WriteString("# Golden list of pagewalk conformance cases. Generated from the code by\n# `make golden`; CI fails when it is stale. Do not edit by hand.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(map[string]any{"cases": cases}); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// RequirementsDoc renders docs/requirements.md from the requirement
// catalogue and the case registry: every requirement ID with its level, the
// class a breach of it gets, its quote and section, and the cases that check
// it or why none does; then the ambiguities.
func RequirementsDoc() []byte {
	byReq := map[string][]string{}
	for _, s := range All() {
		for _, r := range s.Reqs {
			byReq[r] = append(byReq[r], s.ID)
		}
	}
	var b bytes.Buffer
	b.WriteString("# A2A 1.0 ListTasks requirements\n\n")
	b.WriteString("Generated from the code (`scenarios/catalogue.go` and the case registry) by `make golden`; CI fails when it is stale. Do not edit by hand.\n\n")
	b.WriteString("Every requirement ID a pagewalk verdict names is listed here with its level, in the spec's words, and the class a finding that breaks it gets ")
	b.WriteString("(the severity table, [verdicts.md](verdicts.md)). The levels: **MUST** (RFC 2119 MUST/REQUIRED), **SHOULD**, **should** (lower case, no RFC 2119 keyword), ")
	b.WriteString("**MAY**, **proto** (a normative proto comment), **spec** (a normative sentence without a keyword), **example** (only an example says it), **ADR** (ADR-001), ")
	b.WriteString("**silent** (the spec does not say), **note**, **client** (a rule for clients), **seed** (the seed article's practice). Where the spec is ambiguous (the A-items at the end), a finding is at most Non-strict.\n\n")
	b.WriteString("| ID | level | breach | quote | § | checked by |\n|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }
	for _, r := range Requirements() {
		by := strings.Join(byReq[r.ID], ", ")
		if by == "" {
			by = "not checked: " + Unchecked(r.ID)
			if Unchecked(r.ID) == "" {
				by = "not checked yet"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.ID, r.Written, ClassFor(r.ID, false), cell(r.Quote), cell(r.Section), cell(by))
	}
	b.WriteString("\n## Ambiguities\n\n| ID | what | detail |\n|---|---|---|\n")
	for _, a := range Ambiguities() {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", a.ID, cell(a.Title), cell(a.Text))
	}
	return b.Bytes()
}
