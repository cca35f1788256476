package reports

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pagewalk/pagewalk/scenarios"
)

// Caps on what the console, JUnit and Markdown show of one run. The JSON
// report keeps everything; these keep the human-facing formats readable
// and within what CI accepts (a job summary takes at most 1 MiB; JUnit
// parsers choke on multi-megabyte attributes) even for a server that
// produces hundreds of findings.
const (
	// WitnessCap is the most of one witness (one exchange transcript)
	// shown.
	WitnessCap = 4 << 10
	// MessageCap is the most of one finding's message, or a failure
	// message attribute, shown.
	MessageCap = 1 << 10
	// HeadlineCap is the most of a case's one-line headline shown.
	HeadlineCap = 400
	// MarkdownBudget bounds the Markdown summary (GitHub's job summary
	// limit is 1 MiB per step; 64 KiB keeps it readable).
	MarkdownBudget = 60 << 10
	// JUnitBudget bounds the JUnit file.
	JUnitBudget = 900 << 10
)

// TruncationNote ends a capped text.
const TruncationNote = "(truncated; the JSON report has it whole)"

// Cap returns s cut to at most n bytes (on a rune boundary) with the
// truncation note appended, or s when it fits.
func Cap(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-len(TruncationNote)-5, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " ... " + TruncationNote
}

// OneLine returns the first line of s, capped at n bytes.
func OneLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	return Cap(s, n)
}

// Headline is the one line a person reads for a case that did not pass:
// its worst finding (class, requirements, message), then "(+N more)"; or
// its error or skip reason. It is scenarios.Result.Headline, capped.
func Headline(r *scenarios.Result) string {
	return OneLine(r.Headline(), HeadlineCap)
}

// judged reports whether a case got a verdict other than Pass or Skipped.
func judged(r *scenarios.Result) bool {
	return r.Verdict != scenarios.Pass && r.Verdict != scenarios.Skipped
}

// findingText renders one finding for a person: class, requirements,
// message (capped) and how many more occurrences it stands for.
func findingText(f scenarios.Finding) string {
	return fmt.Sprintf("[%s %s] %s%s", f.Class, strings.Join(f.Reqs, ","), Cap(f.Message, MessageCap), f.More())
}

// budget hands out room in a document of bounded size: a part is added
// whole or not at all, so no cut leaves a code fence open.
type budget struct {
	b       strings.Builder
	limit   int
	omitted int
	// size measures a part as it will be written (default len); extra is
	// how much more than their length the parts measured.
	size  func(string) int
	extra int
}

// add appends part if it fits in the room left minus reserve, and reports
// whether it did; a part that does not fit is counted as omitted.
func (d *budget) add(part string, reserve int) bool {
	n := len(part)
	if d.size != nil {
		n = d.size(part)
	}
	if d.b.Len()+d.extra+n+reserve > d.limit {
		d.omitted++
		return false
	}
	d.b.WriteString(part)
	d.extra += n - len(part)
	return true
}

// room is how many bytes are left.
func (d *budget) room() int { return d.limit - d.b.Len() - d.extra }

// xmlLen is the length of s once XML-escaped (encoding/xml.EscapeText).
func xmlLen(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case '&', '<', '>':
			n += 5
		case '"', '\'', '\t', '\n', '\r':
			n += 6
		default:
			if r == utf8.RuneError {
				n += 3
			} else {
				n += utf8.RuneLen(r)
			}
		}
	}
	return n
}
