package scenarios

import (
	"fmt"
	"strings"
)

// Class is the verdict class of one finding.
type Class string

// The finding classes (design-notes.md, "Verdict vocabulary").
const (
	// ClassFail: a MUST (or REQUIRED field) is broken.
	ClassFail Class = "Fail"
	// ClassNonStrict: a SHOULD is broken, or a normative sentence without an
	// RFC 2119 keyword, or a normative example.
	ClassNonStrict Class = "Non-strict"
	// ClassHardened: the spec is silent, but the seed article's practice
	// (signed, bound, expiring tokens; tie-safe cursors; catch-up) is not
	// followed. Judged only under the hardened profile.
	ClassHardened Class = "Hardened"
	// ClassInfo: behaviour the spec leaves open, recorded for the user.
	ClassInfo Class = "Info"
)

// Finding is one observation with the requirements it rests on.
type Finding struct {
	Class   Class    `json:"class"`
	Reqs    []string `json:"requirements"`
	Message string   `json:"message"`
	// Witness is the minimal wire evidence: the fewest pages and writes
	// that prove the finding, as transcripts.
	Witness string `json:"witness,omitempty"`
}

// String renders the finding with its class, requirements and witness.
func (f Finding) String() string {
	s := fmt.Sprintf("[%s %s] %s", f.Class, strings.Join(f.Reqs, ","), f.Message)
	if f.Witness != "" {
		s += "\n  witness:\n    " + strings.ReplaceAll(f.Witness, "\n", "\n    ")
	}
	return s
}

// Fail builds a Fail finding.
func Fail(reqs []string, format string, args ...any) Finding {
	return Finding{Class: ClassFail, Reqs: reqs, Message: fmt.Sprintf(format, args...)}
}

// NonStrict builds a Non-strict finding.
func NonStrict(reqs []string, format string, args ...any) Finding {
	return Finding{Class: ClassNonStrict, Reqs: reqs, Message: fmt.Sprintf(format, args...)}
}

// HardenedFinding builds a Hardened finding.
func HardenedFinding(reqs []string, format string, args ...any) Finding {
	return Finding{Class: ClassHardened, Reqs: reqs, Message: fmt.Sprintf(format, args...)}
}

// Info builds an Info finding.
func Info(reqs []string, format string, args ...any) Finding {
	return Finding{Class: ClassInfo, Reqs: reqs, Message: fmt.Sprintf(format, args...)}
}

// WithWitness returns f with its witness set.
func (f Finding) WithWitness(w string) Finding { f.Witness = w; return f }

// R is shorthand for a requirement-ID list.
func R(ids ...string) []string { return ids }

// Verdict is the outcome of one scenario run.
type Verdict string

// The verdicts.
const (
	Pass      Verdict = "Pass"
	VFail     Verdict = "Fail"
	VNonStict Verdict = "Non-strict"
	VHardened Verdict = "Hardened"
	Skipped   Verdict = "Skipped"
	// Errored: the harness could not finish the check (for example the
	// server stopped answering). It fails the run.
	Errored Verdict = "Error"
)

// Profile selects which practices are judged.
type Profile string

// The profiles.
const (
	ProfileDefault  Profile = "default"
	ProfileHardened Profile = "hardened"
)

// Judgement configures how findings become verdicts and the exit status.
type Judgement struct {
	Profile Profile
	// Strict makes Non-strict verdicts fail the run.
	Strict bool
}

// verdictOf returns the worst class among findings as a verdict.
func verdictOf(fs []Finding) Verdict {
	v := Pass
	rank := map[Verdict]int{Pass: 0, VHardened: 1, VNonStict: 2, VFail: 3}
	for _, f := range fs {
		var c Verdict
		switch f.Class {
		case ClassFail:
			c = VFail
		case ClassNonStrict:
			c = VNonStict
		case ClassHardened:
			c = VHardened
		default:
			continue
		}
		if rank[c] > rank[v] {
			v = c
		}
	}
	return v
}

// Failing reports whether verdict v fails the run under j: a Fail or Error
// always; Non-strict with --strict; Hardened under the hardened profile.
func (j Judgement) Failing(v Verdict) bool {
	switch v {
	case VFail, Errored:
		return true
	case VNonStict:
		return j.Strict
	case VHardened:
		return j.Profile == ProfileHardened
	}
	return false
}
