// Command pagewalk is the conformance harness and load tester for A2A 1.0
// ListTasks pagination. It is a thin layer over pagewalk's packages: serve
// runs the reference server, check runs the conformance suite, load measures
// per-page latency at depth, report renders, merges and verifies results,
// and demo does all of it against a fresh reference server.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pagewalk/pagewalk/cmd/internal/servecmd"
	"github.com/pagewalk/pagewalk/reports"
)

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// rootCmd is the pagewalk command and its subcommands.
func rootCmd() *cobra.Command {
	var codes strings.Builder
	reports.WriteExitCodes(&codes)
	root := &cobra.Command{
		Use:   "pagewalk",
		Short: "Conformance harness and load tester for A2A 1.0 ListTasks pagination",
		Long: `pagewalk checks an A2A 1.0 server's ListTasks pagination against the spec
(pagewalk check), measures per-page latency at depth (pagewalk load), and
writes reports a CI job and a person can read (pagewalk report).

Exit codes, the same for every command (docs/exit-codes.md):
` + codes.String(),
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// --version only on the root command, without the -v shorthand cobra
	// would give it: -v means --verbose wherever a command has it.
	root.Flags().Bool("version", false, "print the version (module version and VCS commit) and exit")
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{code: reports.ExitSetup, err: err} })
	root.AddCommand(servecmd.Command(versionString()))
	root.AddCommand(checkCmd())
	root.AddCommand(loadCmd())
	rc := reportCmd()
	rc.AddCommand(reportVerifyCmd())
	root.AddCommand(rc)
	root.AddCommand(demoCmd())
	return root
}

func main() {
	err := rootCmd().Execute()
	if err == nil {
		return
	}
	code := reports.ExitSetup
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if err.Error() != "" {
		fmt.Fprintln(os.Stderr, "pagewalk:", err)
	}
	os.Exit(code)
}
