package main

import (
	"os"
	"path/filepath"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/spf13/cobra"
)

func reportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Merge load results from several generators, or render reports",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usage("report: give a subcommand (see pagewalk report --help)")
		},
	}
	cmd.AddCommand(reportMergeCmd())
	cmd.AddCommand(reportRenderCmd())
	return cmd
}

func reportMergeCmd() *cobra.Command {
	var (
		jsonPath string
		force    bool
		th       thresholdFlags
	)
	cmd := &cobra.Command{
		Use:   "merge RESULTS.bin...",
		Short: "Merge load results from several generators and judge them once",
		Long: `Merge vegeta result files written by pagewalk load --out (results.bin, gob; JSON
and CSV result files work too) from one or more generators. The per-depth
figures are recomputed over all of them, latency corrected for coordinated
omission from the intended send times carried in each attack's name, and the
thresholds are evaluated once, on the merged data.

Every file is read completely first: a bad file (unreadable, not a result
file, truncated, or holding results another file also holds) fails the merge
with an error naming it, and nothing is written. Files that measured
different things (another target, binding, page size, filters or store
size) are refused, naming the difference, unless --force.

Exit codes: 0 pass; 1 a threshold was breached or had no samples; 2 bad
input or flags.`,
		Example: `  pagewalk report merge gen-0/results.bin gen-1/results.bin gen-2/results.bin --json merged.json
  pagewalk report merge results/*/results.bin --max-depth-ratio 1.5 --max-p99 50ms`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			thresholds, err := th.thresholds()
			if err != nil {
				return flagErr(err)
			}
			if jsonPath != "" && jsonPath != "-" {
				abs, _ := filepath.Abs(jsonPath)
				for _, f := range files {
					if a, _ := filepath.Abs(f); a == abs {
						return usage("--json: %s is also an input file; refusing to overwrite it", jsonPath)
					}
				}
				if st, err := os.Stat(jsonPath); err == nil && st.IsDir() {
					return usage("--json: %s is a directory", jsonPath)
				}
			}
			s, err := loadgen.MergeFiles(files, thresholds, loadgen.WithForce(force))
			if err != nil {
				return usage("merge: %v", err)
			}
			s.Tool = "pagewalk " + version
			return finishSummary(cmd.OutOrStdout(), s, jsonPath, th.failInconclusive)
		},
	}
	f := cmd.Flags()
	f.StringVar(&jsonPath, "json", "", "write the merged JSON summary to this file (- for stdout, after the table)")
	f.BoolVar(&force, "force", false, "merge files even when they measured different targets, bindings, page sizes, filters or store sizes (a warning names each difference)")
	th.register(f)
	return cmd
}
