package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Output file names inside an output directory.
const (
	// ResultsFile holds every result of the run, all depths, gob-encoded
	// with vegeta's encoder (bodies dropped). `vegeta report`, `vegeta
	// plot` and `pagewalk report merge` read it.
	ResultsFile = "results.bin"
	// SummaryFile holds the run's Summary as JSON.
	SummaryFile = "summary.json"
)

// HDRLogFile returns the name of depth's HdrHistogram log.
func HDRLogFile(depth int) string { return fmt.Sprintf("depth-%d.hlog", depth) }

// Output writes a run's files into a directory: ResultsFile, one
// HDRLogFile per depth and SummaryFile. Every file is written under a
// temporary name and renamed into place only when complete, and only when
// the run completes (Close), so an interrupted run replaces nothing.
type Output struct {
	dir  string
	tmp  *os.File
	bw   *bufio.Writer
	enc  vegeta.Encoder
	logs map[int][]byte
}

// CreateOutput creates dir if needed and opens the results file.
func CreateOutput(dir string) (*Output, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+ResultsFile+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	return &Output{dir: dir, tmp: f, bw: bw, enc: vegeta.NewEncoder(bw), logs: map[int][]byte{}}, nil
}

// Dir returns the output directory.
func (o *Output) Dir() string { return o.dir }

// Encode appends one result to the results file.
func (o *Output) Encode(res *vegeta.Result) error { return o.enc.Encode(res) }

// WriteHDRLog renders depth's HDR log from agg (see
// Aggregator.WriteHDRLog); Close writes it beside the results.
func (o *Output) WriteHDRLog(agg *Aggregator, depth int) error {
	var b bytes.Buffer
	if err := agg.WriteHDRLog(&b, depth); err != nil {
		return fmt.Errorf("HDR log for depth %d: %w", depth, err)
	}
	o.logs[depth] = b.Bytes()
	return nil
}

// WriteSummary writes s as SummaryFile.
func (o *Output) WriteSummary(s *Summary) error {
	b, err := s.JSON()
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(o.dir, SummaryFile), b)
}

// Close completes the results file, renames it into place and writes the
// HDR logs. Until Close, nothing in the directory has been replaced.
func (o *Output) Close() error {
	if o.tmp == nil {
		return nil
	}
	f := o.tmp
	o.tmp = nil
	err := errors.Join(o.bw.Flush(), f.Sync(), f.Close())
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(o.dir, ResultsFile))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", filepath.Join(o.dir, ResultsFile), err)
	}
	for _, d := range slices.Sorted(maps.Keys(o.logs)) {
		if err := WriteFileAtomic(filepath.Join(o.dir, HDRLogFile(d)), o.logs[d]); err != nil {
			return err
		}
	}
	return nil
}

// Abort discards the unfinished results file.
func (o *Output) Abort() {
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.tmp = nil
	}
}

// WriteFileAtomic writes data to a temporary file next to path and renames
// it over path, so path holds either its old content or all of data.
func WriteFileAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
