package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pagewalk/pagewalk/loadgen"
)

// Bundle is what one rendered report shows: a conformance run, a load run,
// or both (as pagewalk demo writes them).
type Bundle struct {
	Conformance *Conformance
	Load        *loadgen.Summary
}

// ReadLoad reads a load summary written by pagewalk load --json or
// pagewalk report merge --json. Errors name the file and what is wrong.
func ReadLoad(path string) (*loadgen.Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeLoad(path, b)
}

// decodeLoad decodes a load summary; path labels errors.
func decodeLoad(path string, b []byte) (*loadgen.Summary, error) {
	var s loadgen.Summary
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: not a pagewalk load summary: %v", path, err)
	}
	if s.Kind != loadgen.SummaryKind {
		return nil, fmt.Errorf("%s: kind %q, want %q (is this a pagewalk load --json file?)", path, s.Kind, loadgen.SummaryKind)
	}
	if s.SchemaVersion != loadgen.SummarySchemaVersion {
		return nil, fmt.Errorf("%s: load summary schema version %d, this pagewalk reads version %d", path, s.SchemaVersion, loadgen.SummarySchemaVersion)
	}
	return &s, nil
}

// ReadAny reads a pagewalk JSON file of either kind into a Bundle.
func ReadAny(path string) (Bundle, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Bundle{}, err
	}
	var probe struct {
		Schema string `json:"schema"`
		Kind   string `json:"kind"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return Bundle{}, fmt.Errorf("%s: not a pagewalk JSON report: %v", path, err)
	}
	switch {
	case probe.Schema == SchemaConformance:
		c, err := DecodeConformance(path, bytes.NewReader(b))
		return Bundle{Conformance: c}, err
	case probe.Kind == loadgen.SummaryKind:
		s, err := decodeLoad(path, b)
		return Bundle{Load: s}, err
	}
	return Bundle{}, fmt.Errorf("%s: neither a conformance report (schema %q) nor a load summary (kind %q)", path, SchemaConformance, loadgen.SummaryKind)
}
