package reports

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios"
)

// Markdown writes the bundle as Markdown: the verdict, one line per case
// that did not pass, the findings with their witnesses, the requirements
// no case checked, every case in a table, and the load figures. It stays
// under MarkdownBudget whatever the run holds: witnesses and messages are
// capped, and entries that would not fit are left out with a note (the
// JSON report has them all).
func (b Bundle) Markdown(w io.Writer) error {
	var load strings.Builder
	if l := b.Load; l != nil {
		writeLoadMD(&load, l)
	}
	const footer = "\nRequirement IDs are defined, with their level and the spec's words, in [docs/requirements.md](" + RequirementsDoc + ").\n"
	d := &budget{limit: MarkdownBudget - load.Len() - len(footer)}
	d.b.WriteString("# pagewalk report\n\n")
	if c := b.Conformance; c != nil {
		writeConformanceMD(d, c)
	}
	d.b.WriteString(load.String())
	d.b.WriteString(footer)
	_, err := io.WriteString(w, d.b.String())
	return err
}

// RequirementsDoc is the repository-relative path of the requirement
// catalogue the reports link to (a certification bundle carries a copy at
// the same path).
const RequirementsDoc = "docs/requirements.md"

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// mdFence returns a fence longer than any run of backticks in s.
func mdFence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f
}

// omittedNote is reserved at the end of each budgeted section.
const omittedNote = "\n> %d more entries are left out to keep this summary under 64 KiB; the JSON report has them all.\n\n"

func writeConformanceMD(d *budget, c *Conformance) {
	s := &d.b
	fmt.Fprintf(s, "## Conformance: %s\n\n", c.Verdict)
	if why := c.Why(); why != "" {
		fmt.Fprintf(s, "**%s**\n\n", why)
	}
	fmt.Fprintf(s, "- target: %s (%s)\n", mdEscape(c.Target), mdEscape(c.CardURL))
	if c.CardSHA256 != "" {
		fmt.Fprintf(s, "- agent card sha256: `%s`\n", c.CardSHA256)
	}
	fmt.Fprintf(s, "- bindings: %s\n- profile: %s, strict: %v", strings.Join(c.Bindings, ", "), c.Profile, c.Strict)
	if c.FailOnSkip {
		s.WriteString(", fail on skip")
	}
	fmt.Fprintf(s, "\n- pagewalk %s%s, %s, %s, took %s\n\n", c.Version, commitNote(c.Commit), specOr(c.SpecVersion),
		c.Started.UTC().Format("2006-01-02 15:04:05Z"), c.Duration.Round(1e6))
	fmt.Fprintf(s, "`%s`\n\n", c.Line())
	fmt.Fprintf(s, "| verdict | cases |\n|---|---|\n| Pass | %d |\n| Fail | %d |\n| Non-strict | %d |\n| Hardened | %d |\n| Error | %d |\n| Skipped | %d |\n\n",
		c.Summary.Passed, c.Summary.Failed, c.Summary.NonStrict, c.Summary.Hardened, c.Summary.Errored, c.Summary.Skipped)
	reserve := len(omittedNote) + 16
	var bad []*scenarios.Result
	for _, r := range c.Cases {
		if judged(r) {
			bad = append(bad, r)
		}
	}
	if len(bad) > 0 {
		s.WriteString("### Cases that did not pass\n\n")
		for _, r := range bad {
			d.add(fmt.Sprintf("- **%s** `%s`: %s\n", r.Verdict, r.Name(), mdEscape(Headline(r))), reserve)
		}
		closeSection(d)
		s.WriteString("### Findings\n\n")
		for _, r := range bad {
			if !d.add(fmt.Sprintf("#### %s: %s\n\n%s\n\n> %s\n\n", r.Name(), r.Verdict, mdEscape(r.Title), mdEscape(r.Quote)), reserve) {
				continue
			}
			if r.Error != "" {
				d.add(fmt.Sprintf("Error: %s\n\n", mdEscape(Cap(r.Error, MessageCap))), reserve)
			}
			for _, f := range r.Findings {
				part := fmt.Sprintf("- %s\n", mdEscape(findingText(f)))
				if f.Witness != "" {
					wit := Cap(f.Witness, WitnessCap)
					fence := mdFence(wit)
					part += fmt.Sprintf("\n  %s\n  %s\n  %s\n", fence, strings.ReplaceAll(wit, "\n", "\n  "), fence)
				}
				d.add(part, reserve)
			}
			d.b.WriteString("\n")
		}
		closeSection(d)
	}
	if len(c.Skipped) > 0 {
		s.WriteString("### Requirements not checked\n\n| requirement | why | cases |\n|---|---|---|\n")
		for _, k := range c.Skipped {
			d.add(fmt.Sprintf("| %s | %s | %s |\n", k.Requirement, mdEscape(trim(strings.Join(k.Reasons, "; "), 400)), mdEscape(trim(strings.Join(k.Cases, ", "), 400))), reserve)
		}
		closeSection(d)
	}
	s.WriteString("### All cases\n\n| case | binding | level | verdict | requirements | notes |\n|---|---|---|---|---|---|\n")
	for _, r := range c.Cases {
		note := r.Skip
		if note == "" {
			var infos []string
			for _, f := range r.Findings {
				if f.Class == scenarios.ClassInfo {
					infos = append(infos, f.Message)
				}
			}
			note = strings.Join(infos, "; ")
		}
		d.add(fmt.Sprintf("| %s | %s | %s | %s | %s | %s |\n", r.ID, r.Binding, r.Level, r.Verdict, strings.Join(r.Reqs, ", "), mdEscape(trim(note, 240))), reserve)
	}
	closeSection(d)
}

// closeSection ends a budgeted section with the note on what was left out.
func closeSection(d *budget) {
	if d.omitted > 0 {
		fmt.Fprintf(&d.b, omittedNote, d.omitted)
		d.omitted = 0
		return
	}
	d.b.WriteString("\n")
}

func commitNote(commit string) string {
	if commit == "" {
		return ""
	}
	return " (commit " + commit + ")"
}

func specOr(s string) string {
	if s == "" {
		return SpecVersion
	}
	return s
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func writeLoadMD(s *strings.Builder, l *loadgen.Summary) {
	fmt.Fprintf(s, "## Load: %s\n\n", strings.ToUpper(l.Verdict))
	fmt.Fprintf(s, "- target: %s, binding %s, pageSize %d\n- open-loop rate %s per depth for %s; generators: %s\n",
		l.Target, l.Binding, l.PageSize, loadgen.FormatRate(l.Rate.PerSecond), loadgen.FormatSeconds(l.DurationSeconds), strings.Join(l.Generators, ", "))
	if l.Seeded > 0 {
		fmt.Fprintf(s, "- seeded %s tasks first\n", loadgen.FormatCount(int64(l.Seeded)))
	}
	s.WriteString("- latency is timed from the intended send time (coordinated omission corrected); the uncorrected p99 (from the actual send) stands beside it\n\n")
	s.WriteString("| depth | requests | errors | dropped | late | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | uncorrected p99 ms | throughput/s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	c, m := loadgen.FormatCount, loadgen.FormatMsValue
	for _, d := range l.Depths {
		fmt.Fprintf(s, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", d.Label, c(d.Requests), c(d.Errors), c(d.Dropped), c(d.Late),
			m(d.Corrected.P50Ms), m(d.Corrected.P90Ms), m(d.Corrected.P99Ms), m(d.Corrected.P999Ms), m(d.Corrected.MaxMs), m(uncorrectedP99(d)), loadgen.FormatNumber(d.ThroughputPerSecond, 1))
	}
	s.WriteString("\n")
	if d := l.DepthShift; d != nil {
		fmt.Fprintf(s, "Depth cost: median(depth %d) / median(depth %d) = **%s** (%s ms / %s ms), %.0f%% interval %s–%s, %s and %s samples; p90 ratio %s",
			d.DeepDepth, d.BaseDepth, loadgen.FormatRatio(d.Ratio), loadgen.FormatMsValue(d.DeepMedianMs), loadgen.FormatMsValue(d.BaseMedianMs), 100*d.Confidence,
			loadgen.FormatRatio(d.Lo), loadgen.FormatRatio(d.Hi), loadgen.FormatCount(int64(d.Base)), loadgen.FormatCount(int64(d.Deep)), loadgen.FormatRatio(d.P90Ratio))
		if r := l.DepthRatio; r != nil {
			fmt.Fprintf(s, "; p99 ratio %s (reported only)", loadgen.FormatRatio(r.Value))
		}
	} else if r := l.DepthRatio; r != nil {
		fmt.Fprintf(s, "Depth cost: p99(depth %d) / p99(depth %d) = **%s** (%s ms / %s ms)", r.DeepDepth, r.FirstDepth, loadgen.FormatRatio(r.Value),
			loadgen.FormatMsValue(r.DeepP99Ms), loadgen.FormatMsValue(r.FirstP99Ms))
	}
	if sl := l.Slope; sl != nil {
		fmt.Fprintf(s, "; slope %s (p50) and %s (p99)", loadgen.FormatSlope(sl.P50UsPer1000Pages), loadgen.FormatSlope(sl.P99UsPer1000Pages))
	}
	if z := l.Sizes; z != nil {
		writeSizesMD(s, z)
	}
	s.WriteString("\n\n| threshold | limit | observed | samples | status |\n|---|---|---|---|---|\n")
	for _, t := range l.Thresholds {
		fmt.Fprintf(s, "| %s | %s | %s | %s | %s |\n", t.Name, loadgen.FormatThreshold(t.Unit, t.Limit), observedOf(t), c(t.Samples), t.Status)
	}
	for _, w := range l.Inconclusive {
		fmt.Fprintf(s, "\n> inconclusive: %s\n", w)
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(s, "\n> warning: %s\n", w)
	}
	s.WriteString("\n")
}

// observedOf renders a threshold's observed value, or "-" when it had no
// samples to observe.
func observedOf(t loadgen.ThresholdResult) string {
	if t.Status == loadgen.StatusNoSamples {
		return "-"
	}
	return loadgen.FormatThreshold(t.Unit, t.Observed)
}

// uncorrectedP99 is the uncorrected p99 of a depth: from the second HDR
// histogram when the summary has one, else vegeta's figure (older
// summaries).
func uncorrectedP99(d loadgen.DepthStats) float64 {
	if d.Uncorrected.Samples > 0 {
		return d.Uncorrected.P99Ms
	}
	return d.Vegeta.P99Ms
}

// writeSizesMD renders the store-size study (pagewalk load --sizes).
func writeSizesMD(s *strings.Builder, z *loadgen.SizesResult) {
	if z.Skipped != "" {
		fmt.Fprintf(s, "\n\nSize study: skipped: %s", z.Skipped)
		return
	}
	fmt.Fprintf(s, "\n\nSize study: page 1 and page %d at each store size (tasks seeded by pagewalk in context `%s`).\n\n", z.DeepDepth, z.ContextID)
	s.WriteString("| tasks | depth | requests | errors | p50 ms | p90 ms | p99 ms |\n|---|---|---|---|---|---|---|\n")
	c, m := loadgen.FormatCount, loadgen.FormatMsValue
	for _, lv := range z.Levels {
		for _, d := range lv.Depths {
			fmt.Fprintf(s, "| %s | %s | %s | %s | %s | %s | %s |\n", c(int64(lv.Tasks)), d.Label, c(d.Requests), c(d.Errors),
				m(d.Corrected.P50Ms), m(d.Corrected.P90Ms), m(d.Corrected.P99Ms))
		}
	}
	if p := z.PageOne; p != nil && p.Base > 0 && p.Deep > 0 {
		fmt.Fprintf(s, "\nPage 1 at the largest size over the smallest: median ratio **%s** (%.0f%% interval %s–%s; %s / %s)",
			loadgen.FormatRatio(p.Ratio), 100*p.Confidence, loadgen.FormatRatio(p.Lo), loadgen.FormatRatio(p.Hi),
			loadgen.FormatLatency(p.DeepMedianMs), loadgen.FormatLatency(p.BaseMedianMs))
	}
}
