// Command pagewalk is the conformance harness and load tester for A2A 1.0
// ListTasks pagination. It is a thin layer over pagewalk's packages: serve
// runs the reference server, check runs the conformance suite, load measures
// per-page latency at depth, report renders and merges results, and demo
// does all of it against a fresh reference server.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/pagewalk/pagewalk/cmd/internal/servecmd"
)

// version is set by the build (-ldflags "-X main.version=...").
var version = "dev"

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	root := &cobra.Command{
		Use:           "pagewalk",
		Short:         "Conformance harness and load tester for A2A 1.0 ListTasks pagination",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(servecmd.Command(version))
	root.AddCommand(checkCmd())
	root.AddCommand(loadCmd())
	root.AddCommand(reportCmd())
	root.AddCommand(demoCmd())
	if err := root.Execute(); err != nil {
		code := 2
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		if err.Error() != "" {
			fmt.Fprintln(os.Stderr, "pagewalk:", err)
		}
		os.Exit(code)
	}
}
