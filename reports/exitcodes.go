package reports

import (
	"fmt"
	"io"
	"strings"
)

// The exit statuses of every pagewalk command (docs/exit-codes.md is this
// table; pagewalk --help prints it).
const (
	// ExitPass: every verdict passed.
	ExitPass = 0
	// ExitFail: a verdict failed the run.
	ExitFail = 1
	// ExitSetup: bad flags or input, a setup error, an unreachable target or
	// rejected credentials; no verdict was given.
	ExitSetup = 2
	// ExitIncomplete: interrupted (SIGINT, SIGTERM) or out of time
	// (--max-time); the reports written are partial.
	ExitIncomplete = 3
	// ExitNothingChecked: the run judged nothing (every case was skipped).
	ExitNothingChecked = 4
)

// ExitCode is one row of the exit-code table.
type ExitCode struct {
	Code    int
	Meaning string
}

// ExitCodes is the exit-code table, the same for every command.
var ExitCodes = []ExitCode{
	{ExitPass, "pass: no verdict failed the run (load: pass, or inconclusive without --fail-inconclusive)"},
	{ExitFail, "a verdict failed the run: a Fail or Error case (with --strict also Non-strict, with --profile hardened also Hardened, with --fail-on-skip any skip); load: a threshold or the depth cost failed, or inconclusive with --fail-inconclusive; report verify: the bundle was changed"},
	{ExitSetup, "bad flags or input, a setup error, an unreachable target, or rejected credentials (\"credentials for alice were rejected (HTTP 401)\"); no spec verdict was given"},
	{ExitIncomplete, "the run did not finish: interrupted (SIGINT, SIGTERM) or --max-time ran out; the reports hold the cases that finished, marked partial"},
	{ExitNothingChecked, "nothing was checked: every case was skipped (see the skip reasons)"},
}

// WriteExitCodes writes the table as aligned text (for --help).
func WriteExitCodes(w io.Writer) {
	for _, e := range ExitCodes {
		fmt.Fprintf(w, "  %d  %s\n", e.Code, e.Meaning)
	}
}

// ExitCodesMarkdown renders the table as Markdown (docs/exit-codes.md
// holds it; a test keeps the two equal).
func ExitCodesMarkdown() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, e := range ExitCodes {
		fmt.Fprintf(&b, "| %d | %s |\n", e.Code, strings.ReplaceAll(e.Meaning, "|", `\|`))
	}
	return b.String()
}
