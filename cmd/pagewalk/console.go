package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/term"

	"github.com/pagewalk/pagewalk/reports"
	"github.com/pagewalk/pagewalk/scenarios"
)

// console prints a check as it runs: by default one line per case and
// binding that did not pass (its worst finding, then "(+N more)"), and at
// the end the closing line "conformance: N passed, N failed, N skipped";
// verbose adds each case's steps, verdict and findings with their
// witnesses (capped).
type console struct {
	w       io.Writer
	color   bool
	verbose bool
}

// colorFor reports whether output to w may be coloured: only to a
// terminal, and never when NO_COLOR is set (https://no-color.org) or TERM
// is dumb.
func colorFor(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

var verdictColor = map[scenarios.Verdict]string{
	scenarios.Pass: "32", scenarios.VFail: "31", scenarios.Errored: "31", scenarios.VNonStict: "33", scenarios.VHardened: "35", scenarios.Skipped: "90",
}

// verdict renders v padded to a column, coloured when allowed.
func (c *console) verdict(v scenarios.Verdict) string {
	s := fmt.Sprintf("%-10s", v)
	if c.color {
		return "\x1b[" + verdictColor[v] + "m" + s + "\x1b[0m"
	}
	return s
}

func (c *console) start(name string) {
	if c.verbose {
		fmt.Fprintf(c.w, "=== %s\n", name)
	}
}

func (c *console) step(_, step string) {
	if c.verbose {
		fmt.Fprintf(c.w, "    %s\n", reports.OneLine(step, reports.HeadlineCap))
	}
}

func (c *console) done(r *scenarios.Result) {
	if !c.verbose {
		if r.Verdict != scenarios.Pass && r.Verdict != scenarios.Skipped {
			fmt.Fprintf(c.w, "%s %s: %s\n", c.verdict(r.Verdict), r.Name(), reports.Headline(r))
		}
		return
	}
	note := ""
	switch {
	case r.Verdict == scenarios.Skipped:
		note = ": " + r.Skip
	case r.Verdict != scenarios.Pass:
		note = ": " + reports.Headline(r)
	}
	fmt.Fprintf(c.w, "--- %s %s (%s)%s\n", c.verdict(r.Verdict), r.Name(), r.Duration.Round(1e6), note)
	if r.Error != "" {
		fmt.Fprintf(c.w, "    error: %s\n", indent(reports.Cap(r.Error, reports.WitnessCap)))
	}
	for _, f := range r.Findings {
		fmt.Fprintf(c.w, "    [%s %s] %s%s\n", f.Class, strings.Join(f.Reqs, ","), indent(reports.Cap(f.Message, reports.MessageCap)), f.More())
		if f.Witness != "" {
			fmt.Fprintf(c.w, "      witness:\n        %s\n", strings.ReplaceAll(reports.Cap(f.Witness, reports.WitnessCap), "\n", "\n        "))
		}
	}
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }

// quietSkipReasons is how many skip reasons a run prints without -v: what
// was not checked, and why, belongs on the console, but never floods it.
const quietSkipReasons = 10

// skips prints the skipped cases grouped by reason (at most
// quietSkipReasons lines without -v) and, with -v, the requirements no
// case checked.
func (c *console) skips(conf *reports.Conformance) {
	groups := map[string][]string{}
	for _, r := range conf.Cases {
		if r.Verdict == scenarios.Skipped {
			groups[r.Skip] = append(groups[r.Skip], r.Name())
		}
	}
	reasons := make([]string, 0, len(groups))
	for k := range groups {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for i, k := range reasons {
		if !c.verbose && i == quietSkipReasons {
			fmt.Fprintf(c.w, "(+%d more skip reasons; -v lists them all)\n", len(reasons)-i)
			break
		}
		fmt.Fprintf(c.w, "%s %d cases: %s\n", c.verdict(scenarios.Skipped), len(groups[k]), reports.OneLine(k, reports.HeadlineCap))
	}
	if !c.verbose {
		return
	}
	if len(conf.Skipped) > 0 {
		var ids []string
		for _, k := range conf.Skipped {
			ids = append(ids, k.Requirement)
		}
		fmt.Fprintf(c.w, "Not checked (every case resting on them was skipped): %s\n", strings.Join(ids, ", "))
	}
}
