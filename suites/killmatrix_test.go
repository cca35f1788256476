package suites

import (
	"context"
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
	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/suites/container"
)

// killRow is one row of expectations: the rule a fault mode breaks (by
// requirement ID), or that it is a legal variant. Adding a fault mode adds
// one row here.
type killRow struct {
	Fault  string
	Breaks []string // a kill needs a Fail, Non-strict or Hardened finding naming one of these
	Legal  bool     // must get no Fail at all
	// PerfOnly rows break no rule a conformance case can see, only the cost
	// of a page: the suite must give them no Fail (their answers are exactly
	// right), and KilledBy says what kills them instead.
	PerfOnly bool
	KilledBy string
	// Container rows run the fault in the reference container instead of
	// in process, so the matrix exercises both launchers.
	Container bool
}

var killRows = []killRow{
	{Fault: "offset-cursor", Breaks: []string{"LT-OP-4", "LT-OP-5"}},
	{Fault: "timestamp-only-cursor", Breaks: []string{"LT-SEED-2", "LT-ORDER-3"}},
	{Fault: "ascending-order", Breaks: []string{"LT-ORDER-1", "LT-ORDER-2"}},
	{Fault: "unsorted-page", Breaks: []string{"LT-ORDER-1", "LT-ORDER-2"}},
	{Fault: "unsigned-token", Breaks: []string{"LT-SEED-3"}},
	{Fault: "unbound-principal", Breaks: []string{"LT-SEED-3"}},
	{Fault: "leak-principal", Breaks: []string{"LT-AUTHZ-1", "LT-AUTHZ-4"}, Container: true},
	{Fault: "unbound-filters", Breaks: []string{"LT-SEED-4"}},
	{Fault: "no-key-overlap", Breaks: []string{"LT-SEED-3"}},
	{Fault: "ephemeral-keys", Breaks: []string{"LT-SEED-3"}, Container: true},
	{Fault: "no-expiry", Breaks: []string{"LT-SEED-3"}},
	{Fault: "expired-empty-page", Breaks: []string{"LT-SEED-4"}},
	{Fault: "missing-next-token", Breaks: []string{"LT-RESP-2"}},
	{Fault: "null-next-token", Breaks: []string{"LT-RESP-2", "LT-RESP-3"}},
	{Fault: "early-empty-token", Breaks: []string{"LT-RESP-3", "LT-OP-4"}},
	{Fault: "artifacts-empty-array", Breaks: []string{"LT-ART-2"}},
	{Fault: "artifacts-by-default", Breaks: []string{"LT-ART-1"}},
	{Fault: "history-ignored", Breaks: []string{"LT-HIST-5", "LT-HIST-3", "LT-HIST-4"}},
	{Fault: "negative-history-accepted", Breaks: []string{"LT-HIST-6"}},
	{Fault: "pagesize-unchecked", Breaks: []string{"LT-ERR-1", "LT-REQ-4"}},
	{Fault: "pagesize-zero-as-default", Breaks: []string{"LT-REQ-4"}},
	{Fault: "wrong-default-page-size", Breaks: []string{"LT-REQ-4", "LT-REQ-9"}},
	{Fault: "total-size-wrong", Breaks: []string{"LT-RESP-6"}},
	{Fault: "tasks-null-when-empty", Breaks: []string{"LT-RESP-1", "LT-RESP-7"}},
	{Fault: "exclusive-timestamp-after", Breaks: []string{"LT-TSA-2"}},
	{Fault: "wrong-error-code", Breaks: []string{"LT-ERR-2"}},
	{Fault: "gettask-cross-principal", Breaks: []string{"LT-AUTHZ-6"}},
	{Fault: "filter-ignored-on-http", Breaks: []string{"LT-OP-8"}},
	{Fault: "unscoped-list", Breaks: []string{"LT-AUTHZ-3", "LT-AUTHZ-4"}},
	{Fault: "unscoped-tenant", Breaks: []string{"LT-AUTHZ-2"}},
	{Fault: "store-scan", PerfOnly: true, KilledBy: "killed by pagewalk load --sizes (loadgen)"},
	{Fault: "short-pages", Legal: true},
	{Fault: "opaque-token-format", Legal: true},
	{Fault: "tie-break-ascending", Legal: true},
}

// matrixJudgement judges every class: hardened practices and Non-strict
// verdicts count as kills.
var matrixJudgement = scenarios.Judgement{Profile: scenarios.ProfileHardened, Strict: true}

type rowResult struct {
	row     killRow
	results []*scenarios.Result
	err     error
	kind    string
}

func runRow(ctx context.Context, fault string, inContainer bool) ([]*scenarios.Result, string, error) {
	var ref Reference
	var err error
	kind := "in-process"
	var faults []string
	if fault != "" {
		faults = []string{fault}
	}
	if inContainer {
		ref, err = container.RunReference(ctx, faultOpts(faults)...)
		kind = "container"
	} else {
		ref, err = StartInProcess(faults...)
	}
	if err != nil {
		return nil, kind, err
	}
	defer ref.Close()
	t, err := ReferenceTarget(ctx, ref, &http.Client{Timeout: 30 * time.Second})
	if err != nil {
		return nil, kind, err
	}
	return RunAll(ctx, t, matrixJudgement), kind, nil
}

func faultOpts(faults []string) []container.Option {
	var o []container.Option
	for _, f := range faults {
		o = append(o, container.WithFault(f))
	}
	return o
}

// kills returns the findings of results that kill a fault breaking reqs.
func kills(results []*scenarios.Result, breaks []string) map[string]scenarios.Class {
	out := map[string]scenarios.Class{}
	for _, r := range results {
		for _, f := range r.Findings {
			if f.Class == scenarios.ClassInfo {
				continue
			}
			for _, req := range f.Reqs {
				for _, b := range breaks {
					if req == b {
						if worse(f.Class, out[r.ID]) {
							out[r.ID] = f.Class
						}
					}
				}
			}
		}
	}
	return out
}

func worse(a, b scenarios.Class) bool {
	rank := map[scenarios.Class]int{"": 0, scenarios.ClassHardened: 1, scenarios.ClassNonStrict: 2, scenarios.ClassFail: 3}
	return rank[a] > rank[b]
}

// TestKillMatrix runs the whole suite against every fault mode of the
// reference (most in process, some in the container) and writes
// docs/kill-matrix.md. It fails if an illegal mutant survives, if a legal
// variant gets a Fail, or if the clean reference gets any failing verdict
// in either profile.
func TestKillMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill matrix runs the whole suite once per fault mode")
	}
	ctx := context.Background()
	dockerErr := container.DockerAvailable(ctx)
	if dockerErr != nil && os.Getenv(RequireDockerEnv) == "1" {
		t.Fatalf("no Docker engine and %s=1: %v", RequireDockerEnv, dockerErr)
	}

	// The clean reference, in both profiles.
	for _, j := range []scenarios.Judgement{{Profile: scenarios.ProfileDefault, Strict: true}, matrixJudgement} {
		ref, err := StartInProcess()
		if err != nil {
			t.Fatal(err)
		}
		tg, err := ReferenceTarget(ctx, ref, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range RunAll(ctx, tg, j) {
			if r.Verdict != scenarios.Pass && r.Verdict != scenarios.Skipped {
				t.Errorf("clean reference, %s profile: %s is %s: %s %v", j.Profile, r.Name(), r.Verdict, r.Error, r.Findings)
			}
			if r.Verdict == scenarios.Skipped && j.Profile == scenarios.ProfileHardened {
				t.Errorf("clean reference: %s skipped: %s", r.Name(), r.Skip)
			}
		}
		ref.Close()
	}

	// The clean reference in the container, default profile (the Ginkgo
	// suite covers the container in the hardened profile).
	if dockerErr == nil {
		ref, err := container.RunReference(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := ReferenceTarget(ctx, ref, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range RunAll(ctx, tg, scenarios.Judgement{Profile: scenarios.ProfileDefault, Strict: true}) {
			if r.Verdict != scenarios.Pass && r.Verdict != scenarios.Skipped {
				t.Errorf("clean reference in the container, default profile: %s is %s: %s %v", r.Name(), r.Verdict, r.Error, r.Findings)
			}
		}
		ref.Close()
	}

	rows := make([]rowResult, len(killRows))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, row := range killRows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			inContainer := row.Container && dockerErr == nil
			res, kind, err := runRow(ctx, row.Fault, inContainer)
			rows[i] = rowResult{row: row, results: res, err: err, kind: kind}
		}()
	}
	wg.Wait()

	killedBy := map[string]bool{}
	killed, illegal := 0, 0
	for _, rr := range rows {
		if rr.err != nil {
			t.Errorf("%s: %v", rr.row.Fault, rr.err)
			continue
		}
		for _, r := range rr.results {
			if r.Verdict == scenarios.Errored {
				// A broken server may stop a check from finishing; that fails
				// the run, but only a legal variant must never cause it.
				if rr.row.Legal || rr.row.PerfOnly {
					t.Errorf("legal variant %s: %s errored: %s", rr.row.Fault, r.Name(), r.Error)
				} else {
					t.Logf("%s: %s errored: %s", rr.row.Fault, r.Name(), r.Error)
				}
			}
		}
		if rr.row.Legal || rr.row.PerfOnly {
			for _, r := range rr.results {
				if r.Verdict == scenarios.VFail {
					t.Errorf("%s %s: %s got a Fail: %v", variantKind(rr.row), rr.row.Fault, r.Name(), r.Findings)
				}
			}
			continue
		}
		illegal++
		k := kills(rr.results, rr.row.Breaks)
		if len(k) == 0 {
			t.Errorf("mutant %s survived: no Fail, Non-strict or Hardened finding names %v", rr.row.Fault, rr.row.Breaks)
			continue
		}
		killed++
		for id := range k {
			killedBy[id] = true
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
	if err := writeMatrix(rows, killed, illegal); err != nil {
		t.Error(err)
	}
	t.Logf("kill matrix: killed %d of %d illegal mutants", killed, illegal)
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
		case !r.Legal && !r.PerfOnly && len(r.Breaks) == 0:
			t.Errorf("fault %s: the row names no requirement it breaks", f.Name)
		}
		delete(rows, string(f.Name))
	}
	for name := range rows {
		t.Errorf("row %s names no reference fault", name)
	}
}

// variantKind names the kind of a row whose conformance run must have no
// Fail.
func variantKind(r killRow) string {
	if r.PerfOnly {
		return "performance-only fault"
	}
	return "legal variant"
}

// noKiller explains scenarios that no fault mode can kill (none today).
var noKiller = map[string]string{}

func writeMatrix(rows []rowResult, killed, illegal int) error {
	root, err := container.ModuleRoot()
	if err != nil {
		return err
	}
	var b strings.Builder
	legalFails := 0
	for _, rr := range rows {
		if rr.row.Legal {
			for _, r := range rr.results {
				if r.Verdict == scenarios.VFail {
					legalFails++
				}
			}
		}
	}
	fmt.Fprintf(&b, "# Kill matrix\n\nGenerated by `go test ./suites -run TestKillMatrix` (part of `make test`); do not edit.\n\n")
	fmt.Fprintf(&b, "**Killed %d of %d illegal mutants; %d false failures on legal variants.**\n\n", killed, illegal, legalFails)
	b.WriteString("Each row is a reference fault mode (`pagewalk serve --fault NAME`). A mutant is killed when a case reports a Fail, Non-strict or Hardened finding naming the requirement the fault breaks; the suite runs with `--profile hardened --strict`. Cells give the class of each killing case: **F** Fail, **N** Non-strict, **H** Hardened. Other failing cases of the row (findings that name other requirements) are listed as side effects.\n\n")
	b.WriteString("| fault | launcher | breaks | killed by | also failing |\n|---|---|---|---|---|\n")
	letter := map[scenarios.Class]string{scenarios.ClassFail: "F", scenarios.ClassNonStrict: "N", scenarios.ClassHardened: "H"}
	for _, rr := range rows {
		breaks := strings.Join(rr.row.Breaks, ", ")
		switch {
		case rr.row.Legal:
			breaks = "legal variant"
		case rr.row.PerfOnly:
			breaks = "performance only (answers exactly right)"
		}
		k := kills(rr.results, rr.row.Breaks)
		var killers, others []string
		for id, c := range k {
			killers = append(killers, fmt.Sprintf("%s (**%s**)", id, letter[c]))
		}
		side := map[string]scenarios.Class{}
		for _, r := range rr.results {
			if _, ok := k[r.ID]; ok {
				continue
			}
			for _, f := range r.Findings {
				if f.Class != scenarios.ClassInfo && worse(f.Class, side[r.ID]) {
					side[r.ID] = f.Class
				}
			}
		}
		for id, c := range side {
			others = append(others, fmt.Sprintf("%s (%s)", id, letter[c]))
		}
		sort.Strings(killers)
		sort.Strings(others)
		kill := strings.Join(killers, ", ")
		if rr.row.Legal {
			kill = "n/a (must pass)"
		} else if rr.row.PerfOnly {
			kill = rr.row.KilledBy + "; must pass the suite"
		} else if kill == "" {
			kill = "**SURVIVED**"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", rr.row.Fault, rr.kind, breaks, kill, strings.Join(others, ", "))
	}
	b.WriteString("\n## Cases and the mutants they kill\n\n| case | level | kills |\n|---|---|---|\n")
	for _, s := range scenarios.All() {
		var by []string
		for _, rr := range rows {
			if rr.row.Legal || rr.row.PerfOnly {
				continue
			}
			if c, ok := kills(rr.results, rr.row.Breaks)[s.ID]; ok {
				by = append(by, fmt.Sprintf("`%s` (%s)", rr.row.Fault, letter[c]))
			}
		}
		cell := strings.Join(by, ", ")
		if cell == "" {
			cell = "none: " + noKiller[s.ID]
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.ID, s.Level, cell)
	}
	b.WriteString("\nFault modes are listed by `pagewalk serve --help`; what each breaks is in `reference/faults.go`.\n")
	return os.WriteFile(filepath.Join(root, "docs", "kill-matrix.md"), []byte(b.String()), 0o644)
}
