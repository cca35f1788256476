package main

import (
	"bytes"

	"github.com/spf13/cobra"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/reports"
)

func reportRenderCmd() *cobra.Command {
	var in, load []string
	var format, out string
	cmd := &cobra.Command{
		Use:   "render",
		Short: "Render JSON reports (conformance and load) as Markdown or self-contained HTML",
		Long: `Render the JSON written by pagewalk check --json-report and by pagewalk
load --json / report merge --json into one Markdown or HTML report. The HTML
is self-contained (inline CSS and SVG, no scripts or external resources).

Each input is read and validated before anything is written; a bad input
fails with an error naming the file, and the output file is replaced only
when rendering succeeds.`,
		Example: `  pagewalk report render --in check.json --format html --out report.html
  pagewalk report render --in check.json --in load.json --format md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(in)+len(load) == 0 {
				return usage("--in: give at least one JSON report")
			}
			var b reports.Bundle
			for _, p := range append(in, load...) {
				one, err := reports.ReadAny(p)
				if err != nil {
					return usage("--in: %v", err)
				}
				if one.Conformance != nil {
					if b.Conformance != nil {
						return usage("--in %s: a second conformance report; render one run at a time", p)
					}
					b.Conformance = one.Conformance
				}
				if one.Load != nil {
					if b.Load != nil {
						return usage("--in %s: a second load summary; merge load results first with pagewalk report merge", p)
					}
					b.Load = one.Load
				}
			}
			var buf bytes.Buffer
			switch format {
			case "html":
				if err := b.HTML(&buf); err != nil {
					return err
				}
			case "md", "markdown":
				if err := b.Markdown(&buf); err != nil {
					return err
				}
			default:
				return usage("--format: want html or md, got %q", format)
			}
			if out == "" || out == "-" {
				_, err := cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			if err := loadgen.WriteFileAtomic(out, buf.Bytes()); err != nil {
				return usage("--out: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&in, "in", nil, "a JSON report: conformance (check --json-report) or load (load --json); repeatable")
	cmd.Flags().StringArrayVar(&load, "load", nil, "a load summary JSON (same as --in)")
	cmd.Flags().StringVar(&format, "format", "html", "html or md")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default: stdout)")
	return cmd
}
