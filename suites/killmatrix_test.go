package suites

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/reference"
	"github.com/pagewalk/pagewalk/reports"
	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/suites/container"
)

var (
	matrixSeed = flag.Uint64("pagewalk.seed", 1, "seed of the kill matrix's randomness (the preseeded data); printed, so a run can be replayed")
)

// The columns of the kill matrix.
type column string

const (
	colDefault  column = "default profile"
	colHardened column = "hardened profile"
	colBlackBox column = "black-box"
)

var columns = []column{colDefault, colHardened, colBlackBox}

func (c column) judgement() scenarios.Judgement {
	if c == colDefault {
		return scenarios.Judgement{Profile: scenarios.ProfileDefault, Strict: true}
	}
	return scenarios.Judgement{Profile: scenarios.ProfileHardened, Strict: true}
}

// blackBoxTTL is the page-token lifetime of the reference in the black-box
// column, so that LT-TOKEN-EXPIRED's real-time variant waits it out.
const blackBoxTTL = 2 * time.Second

// matrixRun is one row run in one column.
type matrixRun struct {
	results []*scenarios.Result
	kind    string
	err     error
}

// runColumn runs the whole suite against a fresh reference with fault in
// column col.
func runColumn(ctx context.Context, row killRow, col column, inContainer bool) matrixRun {
	run := launchAndRun(ctx, row, col, inContainer, 0, "")
	if col == colBlackBox && run.err == nil && (row.Fault == "" || names(row.BlackBox, "LT-TOKEN-EXPIRED")) {
		// The real-time expiry case runs alone against a server whose
		// tokens live blackBoxTTL, so that no other case can race a token
		// that short on a busy machine.
		exp := launchAndRun(ctx, row, col, false, blackBoxTTL, "LT-TOKEN-EXPIRED")
		if exp.err != nil {
			return exp
		}
		var out []*scenarios.Result
		for _, r := range run.results {
			if r.ID != "LT-TOKEN-EXPIRED" {
				out = append(out, r)
			}
		}
		run.results = append(out, exp.results...)
	}
	return run
}

// launchAndRun launches the reference for a row and runs the suite (only
// case focus, when given) in column col. ttl > 0 gives the server that
// page-token lifetime and tells the harness.
func launchAndRun(ctx context.Context, row killRow, col column, inContainer bool, ttl time.Duration, focus string) matrixRun {
	var faults []string
	if row.Fault != "" {
		faults = []string{row.Fault}
	}
	var extra []reference.Option
	if row.CardTenant {
		// Tenants are a boundary the spec holds a server to where its card
		// declares them.
		extra = append(extra, reference.WithCardTenant("tenant-a"))
	}
	if ttl > 0 {
		extra = append(extra, reference.WithTokenTTL(ttl))
	}
	var ref Reference
	var err error
	kind := "in-process"
	if inContainer && col != colBlackBox {
		var opts []container.Option
		for _, f := range faults {
			opts = append(opts, container.WithFault(f))
		}
		ref, err = container.RunReference(ctx, opts...)
		kind = "container"
	} else {
		ref, err = StartInProcessWith(extra, faults...)
	}
	if err != nil {
		return matrixRun{kind: kind, err: err}
	}
	defer ref.Close()
	t, err := ReferenceTarget(ctx, ref, &http.Client{Timeout: 30 * time.Second})
	if err != nil {
		return matrixRun{kind: kind, err: err}
	}
	if col == colBlackBox {
		preseedViaControl(testingTB{}, t, 400, *matrixSeed)
		t.Control, t.Restart, t.TokenTTL = nil, nil, ttl
	}
	if focus == "" {
		return matrixRun{results: RunAll(ctx, t, col.judgement()), kind: kind}
	}
	s, _ := scenarios.Lookup(focus)
	var out []*scenarios.Result
	for _, b := range t.Bindings {
		out = append(out, scenarios.Run(ctx, t, s, b, scenarios.RunOptions{Judgement: col.judgement()}))
	}
	return matrixRun{results: out, kind: kind}
}

func names(ks []kill, id string) bool {
	for _, kl := range ks {
		if kl.Case == id {
			return true
		}
	}
	return false
}

// testingTB lets preseedViaControl panic outside a test's goroutine; the
// matrix turns the panic into the row's error.
type testingTB struct{ testing.TB }

func (testingTB) Helper()                           {}
func (testingTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// reported returns the class of the worst finding of case id whose first
// requirement is req ("" when there is none above Info).
func reported(results []*scenarios.Result, id, req string) scenarios.Class {
	var worst scenarios.Class
	rank := map[scenarios.Class]int{"": 0, scenarios.ClassInfo: 0, scenarios.ClassHardened: 1, scenarios.ClassNonStrict: 2, scenarios.ClassFail: 3}
	for _, r := range results {
		if r.ID != id || r.Verdict == scenarios.Skipped {
			continue
		}
		for _, f := range r.Findings {
			if f.Class != scenarios.ClassInfo && len(f.Reqs) > 0 && f.Reqs[0] == req && rank[f.Class] > rank[worst] {
				worst = f.Class
			}
		}
	}
	return worst
}

// expected returns the kills a row must show in a column.
func (row killRow) expected(col column) []kill {
	switch col {
	case colDefault:
		if row.HardenedOnly != "" {
			return nil
		}
		return row.Kills
	case colHardened:
		return row.Kills
	}
	return row.BlackBox
}

// TestKillMatrix runs the whole suite against every fault mode of the
// reference, in three columns: the default and the hardened profile with
// the control API, and black-box (no control API, existing data preseeded).
// A mutant is killed in a column only when every case its row names
// reports a finding above Info whose first requirement is the row's.
// Legal variants must get no finding above Info anywhere, and the clean
// reference no judged verdict. docs/kill-matrix.md is the golden record of
// the run: the test fails when it is stale (regenerate with -update).
func TestKillMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill matrix runs the whole suite three times per fault mode")
	}
	ctx := context.Background()
	t.Logf("kill matrix seed %d (replay with -args -pagewalk.seed=%d)", *matrixSeed, *matrixSeed)
	dockerErr := container.DockerAvailable(ctx)
	if dockerErr != nil && os.Getenv(RequireDockerEnv) == "1" {
		t.Fatalf("no Docker engine and %s=1: %v", RequireDockerEnv, dockerErr)
	}

	clean := killRow{Fault: ""}
	rows := append([]killRow{clean}, killRows...)
	runs := make([]map[column]matrixRun, len(rows))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, row := range rows {
		runs[i] = map[column]matrixRun{}
		var mu sync.Mutex
		for _, col := range columns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				var r matrixRun
				func() {
					defer func() {
						if p := recover(); p != nil {
							r = matrixRun{err: fmt.Errorf("%v", p)}
						}
					}()
					r = runColumn(ctx, row, col, row.Container && dockerErr == nil)
				}()
				mu.Lock()
				runs[i][col] = r
				mu.Unlock()
			}()
		}
	}
	wg.Wait()

	killedBy := map[string]bool{}
	for i, row := range rows {
		alsoSeen := map[string]bool{}
		for _, col := range columns {
			run := runs[i][col]
			name := row.Fault
			if name == "" {
				name = "clean reference"
			}
			if run.err != nil {
				t.Errorf("%s, %s: %v", name, col, run.err)
				continue
			}
			checkOutputSizes(t, name, col, run.results, col.judgement())
			switch {
			case row.Fault == "":
				checkClean(t, col, run.results)
			case row.Legal || row.PerfOnly:
				for _, r := range run.results {
					if r.Verdict == scenarios.Errored {
						t.Errorf("%s %s, %s: %s errored: %s", variantKind(row), name, col, r.Name(), r.Error)
					}
					for _, f := range r.Findings {
						if f.Class != scenarios.ClassInfo {
							t.Errorf("%s %s, %s: %s reported %v", variantKind(row), name, col, r.Name(), f)
						}
					}
				}
			default:
				for _, kl := range row.expected(col) {
					if c := reported(run.results, kl.Case, kl.Req); c == "" {
						t.Errorf("mutant %s survived the %s column: %s reported no finding above Info resting on %s%s", name, col, kl.Case, kl.Req, verdictsOf(run.results, kl.Case))
					} else {
						killedBy[kl.Case] = true
					}
				}
				if col == colDefault && row.HardenedOnly != "" {
					for _, kl := range row.Kills {
						if c := reported(run.results, kl.Case, kl.Req); c != "" && c != scenarios.ClassHardened {
							t.Errorf("%s: says it survives the default profile (%s), but %s reported %s on %s there", name, row.HardenedOnly, kl.Case, c, kl.Req)
						}
					}
				}
				if col != colBlackBox {
					for _, id := range alsoCases(row, col, run.results) {
						alsoSeen[id] = true
						if _, ok := row.Also[id]; !ok {
							t.Errorf("%s, %s: %s also reports a finding above Info%s; one defect, one finding: make it say what it could not judge, or explain the second defect in the row's Also", name, col, id, verdictsOf(run.results, id))
						}
					}
				}
				if col == colBlackBox && len(row.BlackBox) == 0 && row.NotBlackBox == "" {
					t.Errorf("%s: the row names no black-box kill and does not say why it cannot be seen black-box", name)
				}
			}
		}
		for id := range row.Also {
			if !alsoSeen[id] && runs[i][colDefault].err == nil && runs[i][colHardened].err == nil {
				t.Errorf("%s: the row's Also explains %s, which reported nothing above Info in either control-API column: drop it", row.Fault, id)
			}
		}
	}
	for _, s := range scenarios.All() {
		if !killedBy[s.ID] {
			if why, ok := noKiller[s.ID]; ok {
				t.Logf("%s kills no mutant: %s", s.ID, why)
			} else {
				t.Errorf("scenario %s kills no mutant: every check must be shown to fail against a fault mode", s.ID)
			}
		}
	}
	doc := matrixDoc(rows, runs)
	path := filepath.Join(moduleRoot(t), "docs", "kill-matrix.md")
	if *update {
		if err := os.WriteFile(path, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want, err := os.ReadFile(path); err != nil || !bytes.Equal(want, doc) {
		t.Errorf("docs/kill-matrix.md is stale: the run differs from the golden record; review the change and run `go test ./suites -run TestKillMatrix -args -update`")
	}
}

// alsoCases returns the cases other than the row's own (in this column)
// that report a finding above Info.
func alsoCases(row killRow, col column, results []*scenarios.Result) []string {
	own := map[string]bool{}
	for _, kl := range row.expected(col) {
		own[kl.Case] = true
	}
	for _, kl := range row.Kills {
		own[kl.Case] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range results {
		if own[r.ID] || seen[r.ID] {
			continue
		}
		for _, f := range r.Findings {
			if f.Class != scenarios.ClassInfo {
				seen[r.ID] = true
				out = append(out, r.ID)
				break
			}
		}
	}
	return out
}

// variantKind names the kind of a row that must get no finding above Info.
func variantKind(r killRow) string {
	if r.PerfOnly {
		return "performance-only fault"
	}
	return "legal variant"
}

func verdictsOf(results []*scenarios.Result, id string) string {
	var parts []string
	for _, r := range results {
		if r.ID == id {
			s := fmt.Sprintf("%s %s", r.Binding, r.Verdict)
			if h := r.Headline(); h != "" {
				s += ": " + h
			}
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// blackBoxSkips are the cases that may skip on the clean reference without
// the control API (with two principals, another tenant and a token TTL
// given): they need a key rotation or a restart. (Without another tenant
// or a token TTL, LT-SCOPE-TENANT and LT-TOKEN-EXPIRED skip too.)
var blackBoxSkips = map[string]bool{"LT-TOKEN-ROTATION": true, "LT-TOKEN-RESTART": true}

func checkClean(t *testing.T, col column, results []*scenarios.Result) {
	for _, r := range results {
		switch {
		case r.Verdict != scenarios.Pass && r.Verdict != scenarios.Skipped:
			t.Errorf("clean reference, %s: %s is %s: %s %v", col, r.Name(), r.Verdict, r.Error, r.Findings)
		case r.Verdict == scenarios.Skipped && col == colHardened:
			t.Errorf("clean reference, %s: %s skipped: %s", col, r.Name(), r.Skip)
		case r.Verdict == scenarios.Skipped && col == colBlackBox && !blackBoxSkips[r.ID]:
			t.Errorf("clean reference, %s: %s skipped: %s", col, r.Name(), r.Skip)
		}
	}
}

// checkOutputSizes: whatever a server does, the Markdown summary of a run
// stays under 64 KiB (CI job summaries take 1 MiB) and the JUnit report
// under 1 MiB.
func checkOutputSizes(t *testing.T, name string, col column, results []*scenarios.Result, j scenarios.Judgement) {
	c := reports.NewConformance(results, j)
	var md, junit bytes.Buffer
	if err := (reports.Bundle{Conformance: c}).Markdown(&md); err != nil {
		t.Errorf("%s, %s: markdown: %v", name, col, err)
	}
	if md.Len() > 64<<10 {
		t.Errorf("%s, %s: the Markdown summary is %d bytes, over 64 KiB", name, col, md.Len())
	}
	if err := c.JUnit(&junit); err != nil {
		t.Errorf("%s, %s: junit: %v", name, col, err)
	}
	if junit.Len() > 1<<20 {
		t.Errorf("%s, %s: the JUnit report is %d bytes, over 1 MiB", name, col, junit.Len())
	}
}

// noKiller explains scenarios that no fault mode kills yet.
var noKiller = map[string]string{}

func moduleRoot(t *testing.T) string {
	root, err := container.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestKillRowsMatchFaults fails when a reference fault mode has no row of
// expectations (or a row names a fault that does not exist, or disagrees
// on whether it is legal), so no fault mode goes unjudged.
func TestKillRowsMatchFaults(t *testing.T) {
	rows := map[string]killRow{}
	for _, r := range killRows {
		if _, dup := rows[r.Fault]; dup {
			t.Errorf("fault %s has two rows", r.Fault)
		}
		rows[r.Fault] = r
	}
	for _, f := range reference.Faults() {
		r, ok := rows[string(f.Name)]
		switch {
		case !ok:
			t.Errorf("fault %s has no row in killRows", f.Name)
		case r.Legal != f.Legal:
			t.Errorf("fault %s: reference says legal=%v, its row says %v", f.Name, f.Legal, r.Legal)
		case r.PerfOnly != f.PerfOnly:
			t.Errorf("fault %s: reference says performance-only=%v, its row says %v", f.Name, f.PerfOnly, r.PerfOnly)
		case r.PerfOnly && r.KilledBy == "":
			t.Errorf("fault %s: a performance-only row must say what kills it", f.Name)
		case !r.Legal && !r.PerfOnly && len(r.Kills) == 0:
			t.Errorf("fault %s: the row names no case that kills it", f.Name)
		}
		for _, kl := range append(r.Kills, r.BlackBox...) {
			if _, ok := scenarios.Lookup(kl.Case); !ok {
				t.Errorf("fault %s: the row names case %s, which does not exist", f.Name, kl.Case)
			}
			if _, ok := scenarios.LookupRequirement(kl.Req); !ok {
				t.Errorf("fault %s: the row names requirement %s, which is not in the catalogue", f.Name, kl.Req)
			}
		}
		delete(rows, string(f.Name))
	}
	for name := range rows {
		t.Errorf("row %s names no reference fault", name)
	}
}

var letter = map[scenarios.Class]string{scenarios.ClassFail: "F", scenarios.ClassNonStrict: "N", scenarios.ClassHardened: "H"}

// matrixDoc renders docs/kill-matrix.md from the run. It holds only what
// the run decides (kills, side effects, skips), never timings or ids, so
// the same code gives the same document.
func matrixDoc(rows []killRow, runs []map[column]matrixRun) []byte {
	var b strings.Builder
	b.WriteString("# Kill matrix\n\n")
	b.WriteString("Generated by `go test ./suites -run TestKillMatrix` (part of `make test`); `go test ./suites -run TestKillMatrix -args -update` rewrites it, and the test fails when it is stale. Do not edit by hand.\n\n")
	illegal, killed := map[column]int{}, map[column]int{}
	for i, row := range rows {
		if row.Fault == "" || row.Legal || row.PerfOnly {
			continue
		}
		for _, col := range columns {
			exp := row.expected(col)
			if len(exp) == 0 {
				continue
			}
			illegal[col]++
			all := true
			for _, kl := range exp {
				all = all && reported(runs[i][col].results, kl.Case, kl.Req) != ""
			}
			if all {
				killed[col]++
			}
		}
	}
	for _, col := range columns {
		fmt.Fprintf(&b, "- **%s**: killed %d of the %d mutants this column can see.\n", col, killed[col], illegal[col])
	}
	b.WriteString("\nEach row is a reference fault mode (`pagewalk serve --fault NAME`). A mutant is killed in a column only when every case its row names reports a finding above Info whose first requirement is the row's (cells: the class, **F** Fail, **N** Non-strict, **H** Hardened). ")
	b.WriteString("The columns: the default and the hardened profile with the control API (strict), and black-box: no control API, the hardened profile, each principal holding 400 existing tasks (contexts, every state, ties, history, artifacts), a second principal, another tenant and the token lifetime given. ")
	b.WriteString("\"also\" lists the other cases with findings above Info in the two control-API columns (the black-box column's probe tasks are made in real time, so which other cases see a fault there may vary between runs). Legal variants must get no finding above Info in any case.\n\n")
	b.WriteString("| fault | must be killed by | " + string(colDefault) + " | " + string(colHardened) + " | " + string(colBlackBox) + " | also |\n|---|---|---|---|---|---|\n")
	for i, row := range rows {
		if row.Fault == "" {
			continue
		}
		var want []string
		for _, kl := range row.Kills {
			want = append(want, kl.Case+" / "+kl.Req)
		}
		if row.Legal {
			want = []string{"legal variant: no finding above Info"}
		}
		if row.PerfOnly {
			want = []string{"performance only, no finding above Info; " + row.KilledBy}
		}
		cells := []string{}
		named := map[string]bool{}
		for _, col := range columns {
			cells = append(cells, matrixCell(row, col, runs[i][col], named))
		}
		var also []string
		seen := map[string]bool{}
		for _, col := range columns {
			if col == colBlackBox {
				// Its probe tasks are made in real time: which other cases
				// also see a fault there can vary from run to run, and this
				// file is compared as a golden.
				continue
			}
			for _, r := range runs[i][col].results {
				if named[r.ID] || seen[r.ID] {
					continue
				}
				for _, f := range r.Findings {
					if f.Class != scenarios.ClassInfo {
						seen[r.ID] = true
						also = append(also, r.ID)
						break
					}
				}
			}
		}
		sort.Strings(also)
		for j, id := range also {
			if why, ok := row.Also[id]; ok {
				also[j] = id + " (" + why + ")"
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", row.Fault, strings.Join(want, ", "), cells[0], cells[1], cells[2], strings.Join(also, ", "))
	}
	b.WriteString("\n## Cases and the mutants they kill\n\n| case | level | kills (column) |\n|---|---|---|\n")
	for _, s := range scenarios.All() {
		var by []string
		for i, row := range rows {
			if row.Fault == "" || row.Legal || row.PerfOnly {
				continue
			}
			var cols []string
			for _, col := range columns {
				for _, kl := range row.expected(col) {
					if kl.Case == s.ID {
						if c := reported(runs[i][col].results, kl.Case, kl.Req); c != "" {
							cols = append(cols, shortCol(col)+" "+letter[c])
						}
					}
				}
			}
			if len(cols) > 0 {
				by = append(by, fmt.Sprintf("`%s` (%s)", row.Fault, strings.Join(cols, ", ")))
			}
		}
		cell := strings.Join(by, ", ")
		if cell == "" {
			cell = "none: " + noKiller[s.ID]
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.ID, s.Level, cell)
	}
	b.WriteString("\nFault modes are listed by `pagewalk serve --help`; what each breaks is in `reference/faultmodes*.go`, and its row in `suites/killrows*_test.go`.\n")
	return []byte(b.String())
}

func shortCol(c column) string {
	switch c {
	case colDefault:
		return "default"
	case colHardened:
		return "hardened"
	}
	return "black-box"
}

// matrixCell renders a row's result in one column.
func matrixCell(row killRow, col column, run matrixRun, named map[string]bool) string {
	if run.err != nil {
		return "**could not run**"
	}
	if row.Legal || row.PerfOnly {
		for _, r := range run.results {
			for _, f := range r.Findings {
				if f.Class != scenarios.ClassInfo {
					return "**FALSE FINDING**"
				}
			}
		}
		return "passes"
	}
	exp := row.expected(col)
	if len(exp) == 0 {
		switch {
		case col == colDefault:
			return "survives: " + row.HardenedOnly
		case col == colBlackBox:
			return "not visible: " + row.NotBlackBox
		}
	}
	var parts []string
	for _, kl := range exp {
		named[kl.Case] = true
		if c := reported(run.results, kl.Case, kl.Req); c != "" {
			parts = append(parts, kl.Case+" **"+letter[c]+"**")
		} else {
			parts = append(parts, kl.Case+" **SURVIVED**")
		}
	}
	return strings.Join(parts, ", ")
}
