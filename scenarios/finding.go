package scenarios

import (
	"fmt"
	"regexp"
	"slices"
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

// Finding is one observation with the requirements it rests on. Its class
// is never chosen by a checker: Breach derives it from the first
// requirement's level through the severity table (ClassFor).
type Finding struct {
	Class Class `json:"class"`
	// Reqs are the requirements the finding rests on; the first is the one
	// broken, the others are context.
	Reqs    []string `json:"requirements"`
	Message string   `json:"message"`
	// Ambiguity names the ambiguity of the spec the finding rests on (e.g.
	// "A8"); it caps the class at Non-strict.
	Ambiguity string `json:"ambiguity,omitempty"`
	// Kind groups findings of the same defect within a case (e.g.
	// "missing", "duplicate", "order"); Subject is what this occurrence is
	// about (a task, a page size).
	Kind    string `json:"kind,omitempty"`
	Subject string `json:"subject,omitempty"`
	// Count is how many occurrences this entry stands for, after grouping
	// (0 or 1: one); Subjects lists what they were about.
	Count    int      `json:"count,omitempty"`
	Subjects []string `json:"subjects,omitempty"`
	// Witness is the minimal wire evidence: the fewest pages and writes
	// that prove the finding, as transcripts.
	Witness string `json:"witness,omitempty"`
}

// String renders the finding with its class, requirements and witness.
func (f Finding) String() string {
	s := fmt.Sprintf("[%s %s] %s%s", f.Class, strings.Join(f.Reqs, ","), f.Message, f.More())
	if f.Witness != "" {
		s += "\n  witness:\n    " + strings.ReplaceAll(f.Witness, "\n", "\n    ")
	}
	return s
}

// More renders how many more occurrences a grouped finding stands for, and
// of what, e.g. " (and 162 more like it: pageSize 3, pageSize 7, ...)".
func (f Finding) More() string {
	if f.Count <= 1 {
		return ""
	}
	s := fmt.Sprintf(" (and %d more like it", f.Count-1)
	if len(f.Subjects) > 1 {
		shown := f.Subjects
		if len(shown) > 6 {
			shown = append(shown[:6:6], "...")
		}
		s += ": " + strings.Join(shown, ", ")
	}
	return s + ")"
}

// Breach reports that requirement reqs[0] is broken; reqs[1:] are context.
// The class comes from the severity table, never from the caller.
func Breach(reqs []string, format string, args ...any) Finding {
	if len(reqs) == 0 {
		panic("scenarios: a breach names no requirement")
	}
	return Finding{Class: ClassFor(reqs[0], false), Reqs: reqs, Message: fmt.Sprintf(format, args...)}
}

// Observe records what the server did where nothing is broken, or where the
// spec leaves the behaviour open: an Info finding.
func Observe(reqs []string, format string, args ...any) Finding {
	return Finding{Class: ClassInfo, Reqs: reqs, Message: fmt.Sprintf(format, args...)}
}

// Ambiguous marks the finding as resting on ambiguity id of the catalogue,
// which caps its class at Non-strict.
func (f Finding) Ambiguous(id string) Finding {
	if _, ok := LookupAmbiguity(id); !ok {
		panic("scenarios: unknown ambiguity " + id)
	}
	f.Ambiguity = id
	if f.Class == ClassFail {
		f.Class = ClassNonStrict
	}
	return f
}

// Of sets the finding's kind and subject, so that the same defect seen many
// times in one case is reported once, with a count.
func (f Finding) Of(kind, subject string) Finding { f.Kind, f.Subject = kind, subject; return f }

// WithWitness returns f with its witness set.
func (f Finding) WithWitness(w string) Finding { f.Witness = w; return f }

// R is shorthand for a requirement-ID list.
func R(ids ...string) []string { return ids }

var numbers = regexp.MustCompile(`\d+`)

// groupKey is what makes two findings of one case the same defect: class,
// requirements, and the kind, or else the message with numbers masked.
func groupKey(f Finding) string {
	k := f.Kind
	if k == "" {
		k = numbers.ReplaceAllString(f.Message, "N")
	}
	return string(f.Class) + "|" + strings.Join(f.Reqs, ",") + "|" + f.Ambiguity + "|" + k
}

// Group merges findings of the same defect into one entry each: the count,
// what the occurrences were about, and the smallest witness (with the
// message that goes with it). Entries keep the order of first occurrence.
func Group(fs []Finding) []Finding {
	index := map[string]int{}
	var out []Finding
	for _, f := range fs {
		n := max(f.Count, 1)
		subjects := f.Subjects
		if len(subjects) == 0 && f.Subject != "" {
			subjects = []string{f.Subject}
		}
		key := groupKey(f)
		i, ok := index[key]
		if !ok {
			index[key] = len(out)
			f.Count, f.Subjects = n, append([]string(nil), subjects...)
			out = append(out, f)
			continue
		}
		g := &out[i]
		g.Count += n
		for _, s := range subjects {
			if !slices.Contains(g.Subjects, s) && len(g.Subjects) < 50 {
				g.Subjects = append(g.Subjects, s)
			}
		}
		if f.Witness != "" && (g.Witness == "" || len(f.Witness) < len(g.Witness)) {
			g.Witness, g.Message = f.Witness, f.Message
		}
	}
	for i := range out {
		if out[i].Count == 1 {
			out[i].Count, out[i].Subjects = 0, nil
		}
	}
	return out
}

// Judged reports whether any finding is above Info: whether the findings
// judge something rather than only record what the server did.
func Judged(fs []Finding) bool {
	for _, f := range fs {
		if f.Class != ClassInfo {
			return true
		}
	}
	return false
}

// classRank orders classes from the least to the most severe.
var classRank = map[Class]int{ClassInfo: 0, ClassHardened: 1, ClassNonStrict: 2, ClassFail: 3}

// Worst returns the most severe finding (the first of equals) and how many
// other findings above Info there are.
func Worst(fs []Finding) (Finding, int, bool) {
	best := -1
	others := 0
	for i, f := range fs {
		if best < 0 || classRank[f.Class] > classRank[fs[best].Class] {
			best = i
		}
	}
	if best < 0 {
		return Finding{}, 0, false
	}
	for i, f := range fs {
		if i != best && f.Class != ClassInfo {
			others++
		}
	}
	return fs[best], others, true
}

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
