package loadgen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// MergeFiles decodes vegeta result files (gob, JSON or CSV, sniffed by
// vegeta.DecoderFor) written by pagewalk generators, recomputes the
// per-depth figures over all of them (coordinated-omission corrected from
// the attack names) and evaluates the thresholds once, on the merged data.
//
// Every file is read completely before anything is returned; any bad file
// (unreadable, not a result file, truncated, not from a pagewalk attack, or
// holding an attack that another file also holds) fails the whole merge
// with an error naming that file.
//
// Files that measured different things — another target (endpoint),
// binding, page size, filters or store size — are refused with an error
// naming the difference and the files, since their figures do not add up;
// WithForce(true) merges them anyway, with a warning per difference.
func MergeFiles(paths []string, t Thresholds, opts ...MergeOption) (*Summary, error) {
	var cfg mergeConfig
	for _, o := range opts {
		o(&cfg)
	}
	if len(paths) == 0 {
		return nil, errors.New("no result files to merge")
	}
	agg := NewAggregator(0)
	owner := map[string]string{} // attack name -> file
	var profiles []*runProfile
	for _, p := range paths {
		prof := newRunProfile(p)
		if err := mergeFile(agg, owner, p, prof); err != nil {
			return nil, err
		}
		profiles = append(profiles, prof)
	}
	diffs := differences(profiles)
	if len(diffs) > 0 && !cfg.force {
		return nil, fmt.Errorf("the files measured different things, so their figures do not add up: %s (give --force to merge anyway)", strings.Join(diffs, "; "))
	}
	s := Summarize(agg)
	for _, d := range diffs {
		s.Warnings = append(s.Warnings, "merged with --force although "+d)
	}
	s.Source = "merge"
	s.Files = append([]string(nil), paths...)
	s.Target = strings.Join(s.Endpoints, " ")
	s.Evaluate(t, agg)
	return s, nil
}

func mergeFile(agg *Aggregator, owner map[string]string, path string, prof *runProfile) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return fmt.Errorf("%s: is a directory; give its %s", path, ResultsFile)
	}
	dec := vegeta.DecoderFor(bufio.NewReaderSize(f, 256<<10))
	if dec == nil {
		return fmt.Errorf("%s: not a vegeta result file (gob, JSON or CSV), or empty", path)
	}
	n := 0
	for ; ; n++ {
		var res vegeta.Result // fresh each time: gob leaves absent (zero) fields untouched
		if err := dec.Decode(&res); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("%s: result %d: %w (truncated or corrupt file?)", path, n+1, err)
		}
		if o, ok := owner[res.Attack]; ok && o != path {
			return fmt.Errorf("%s: attack %q also appears in %s (the same results given twice?)", path, res.Attack, o)
		}
		owner[res.Attack] = path
		if err := agg.Add(&res); err != nil {
			return fmt.Errorf("%s: result %d: %w", path, n+1, err)
		}
		prof.add(agg.attacks[res.Attack].name, res.URL)
	}
	if n == 0 {
		return fmt.Errorf("%s: holds no results", path)
	}
	return nil
}
