package scenarios

import (
	"bytes"

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
