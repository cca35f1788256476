package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios"
)

// Markdown writes the bundle as Markdown: the verdict, the failing cases
// with their findings and witnesses, skipped requirements, every case in a
// table, and the load figures.
func (b Bundle) Markdown(w io.Writer) error {
	var s strings.Builder
	s.WriteString("# pagewalk report\n\n")
	if c := b.Conformance; c != nil {
		writeConformanceMD(&s, c)
	}
	if l := b.Load; l != nil {
		writeLoadMD(&s, l)
	}
	_, err := io.WriteString(w, s.String())
	return err
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func writeConformanceMD(s *strings.Builder, c *Conformance) {
	fmt.Fprintf(s, "## Conformance: %s\n\n", c.Verdict)
	fmt.Fprintf(s, "- target: %s (%s)\n- bindings: %s\n- profile: %s, strict: %v\n- pagewalk %s, %s, took %s\n\n",
		c.Target, c.CardURL, strings.Join(c.Bindings, ", "), c.Profile, c.Strict, c.Version, c.Started.UTC().Format("2006-01-02 15:04:05Z"), c.Duration.Round(1e6))
	fmt.Fprintf(s, "`%s`\n\n", c.Line())
	fmt.Fprintf(s, "| verdict | cases |\n|---|---|\n| Pass | %d |\n| Fail | %d |\n| Non-strict | %d |\n| Hardened | %d |\n| Error | %d |\n| Skipped | %d |\n\n",
		c.Summary.Passed, c.Summary.Failed, c.Summary.NonStrict, c.Summary.Hardened, c.Summary.Errored, c.Summary.Skipped)
	var bad []*scenarios.Result
	for _, r := range c.Cases {
		if r.Verdict != scenarios.Pass && r.Verdict != scenarios.Skipped {
			bad = append(bad, r)
		}
	}
	if len(bad) > 0 {
		s.WriteString("### Findings\n\n")
		for _, r := range bad {
			fmt.Fprintf(s, "#### %s: %s\n\n%s\n\n> %s\n\n", r.Name(), r.Verdict, r.Title, r.Quote)
			if r.Error != "" {
				fmt.Fprintf(s, "Error: %s\n\n", r.Error)
			}
			for _, f := range r.Findings {
				fmt.Fprintf(s, "- **%s** (%s): %s\n", f.Class, strings.Join(f.Reqs, ", "), f.Message)
				if f.Witness != "" {
					fmt.Fprintf(s, "\n  ```\n  %s\n  ```\n", strings.ReplaceAll(f.Witness, "\n", "\n  "))
				}
			}
			s.WriteString("\n")
		}
	}
	if len(c.Skipped) > 0 {
		s.WriteString("### Requirements not checked\n\n| requirement | why | cases |\n|---|---|---|\n")
		for _, k := range c.Skipped {
			fmt.Fprintf(s, "| %s | %s | %s |\n", k.Requirement, mdEscape(strings.Join(k.Reasons, "; ")), mdEscape(strings.Join(k.Cases, ", ")))
		}
		s.WriteString("\n")
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
		fmt.Fprintf(s, "| %s | %s | %s | %s | %s | %s |\n", r.ID, r.Binding, r.Level, r.Verdict, strings.Join(r.Reqs, ", "), mdEscape(trim(note, 240)))
	}
	s.WriteString("\n")
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}

func writeLoadMD(s *strings.Builder, l *loadgen.Summary) {
	fmt.Fprintf(s, "## Load: %s\n\n", strings.ToUpper(l.Verdict))
	fmt.Fprintf(s, "- target: %s, binding %s, pageSize %d\n- open-loop rate %.0f/s per depth for %.0fs; generators: %s\n",
		l.Target, l.Binding, l.PageSize, l.Rate.PerSecond, l.DurationSeconds, strings.Join(l.Generators, ", "))
	if l.Seeded > 0 {
		fmt.Fprintf(s, "- seeded %d tasks first\n", l.Seeded)
	}
	s.WriteString("- latency is timed from the intended send time (coordinated omission corrected); vegeta's uncorrected p99 stands beside it\n\n")
	s.WriteString("| depth | requests | errors | dropped | late | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | vegeta p99 ms | throughput/s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, d := range l.Depths {
		fmt.Fprintf(s, "| %s | %d | %d | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f |\n", d.Label, d.Requests, d.Errors, d.Dropped, d.Late,
			d.Corrected.P50Ms, d.Corrected.P90Ms, d.Corrected.P99Ms, d.Corrected.P999Ms, d.Corrected.MaxMs, d.Vegeta.P99Ms, d.ThroughputPerSecond)
	}
	s.WriteString("\n")
	if r := l.DepthRatio; r != nil {
		fmt.Fprintf(s, "Depth cost: p99(depth %d) / p99(depth %d) = **%.2f** (%.2f ms / %.2f ms)", r.DeepDepth, r.FirstDepth, r.Value, r.DeepP99Ms, r.FirstP99Ms)
	}
	if sl := l.Slope; sl != nil {
		fmt.Fprintf(s, "; slope %.1f µs (p50) and %.1f µs (p99) per 1,000 pages", sl.P50UsPer1000Pages, sl.P99UsPer1000Pages)
	}
	s.WriteString("\n\n| threshold | limit | observed | samples | status |\n|---|---|---|---|---|\n")
	for _, t := range l.Thresholds {
		fmt.Fprintf(s, "| %s | %g %s | %.3g %s | %d | %s |\n", t.Name, t.Limit, t.Unit, t.Observed, t.Unit, t.Samples, t.Status)
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(s, "\n> warning: %s\n", w)
	}
	s.WriteString("\n")
}
