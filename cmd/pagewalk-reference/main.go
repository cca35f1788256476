// Command pagewalk-reference is the reference A2A server and nothing else:
// the serve command of pagewalk, without the harness. The reference image
// runs it, so the image carries no conformance suite and no load generator.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pagewalk/pagewalk/cmd/internal/servecmd"
)

// version is set by the build (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	root := &cobra.Command{
		Use:           "pagewalk-reference",
		Short:         "The pagewalk reference A2A 1.0 server (ListTasks pagination)",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(servecmd.Command(version))
	// SIGINT and SIGTERM cancel the command's context: serve then drains
	// the requests in flight and closes its store.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagewalk-reference:", err)
		os.Exit(2)
	}
}
