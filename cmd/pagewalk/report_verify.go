package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pagewalk/pagewalk/reports"
)

func reportVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify BUNDLE.tar.gz",
		Short: "Check that a certification bundle is intact and print its verdict",
		Long: `Verify a certification bundle written by pagewalk check --bundle: the archive
is whole, it holds exactly the files manifest.json lists, each with the
sha256 recorded there, and the manifest agrees with report.json. Then print
what was checked, by which harness, and the verdict line.

Exit codes: 0 the bundle is intact (whatever verdict it holds); 1 it was
changed or is damaged (the error names the file and what differs); 2 it
cannot be read.`,
		Example: `  pagewalk report verify pagewalk-bundle.tar.gz`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := reports.VerifyCertBundle(args[0])
			var be *reports.BundleError
			switch {
			case errors.As(err, &be):
				return &exitError{code: reports.ExitFail, err: fmt.Errorf("verify: %w", err)}
			case err != nil:
				return usage("verify: %v", err)
			}
			m, w := v.Manifest, cmd.OutOrStdout()
			fmt.Fprintf(w, "%s: intact: %d files match %s\n", args[0], len(m.Files), reports.BundleManifest)
			fmt.Fprintf(w, "target: %s\nagent card: %s (sha256 %s)\n", m.Target, m.CardURL, m.CardSHA256)
			fmt.Fprintf(w, "harness: %s %s%s, checking %s, profile %s, strict %v\n", m.Tool, m.Version, commitSuffix(m.Commit), m.SpecVersion, m.Profile, m.Strict)
			fmt.Fprintf(w, "run: %s, verdict %s\n%s\n", m.Time.Format("2006-01-02 15:04:05Z07:00"), m.Verdict, m.Line)
			return nil
		},
	}
}

func commitSuffix(c string) string {
	if c == "" {
		return ""
	}
	return " (commit " + c + ")"
}
