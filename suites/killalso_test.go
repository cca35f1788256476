package suites

import (
	"slices"
	"testing"

	"github.com/pagewalk/pagewalk/scenarios"
)

// TestAlsoCases: the also-cases of a row are the other cases with a
// finding above Info; the row's own cases, Info notes (what a case could
// not judge) and skips are not among them.
func TestAlsoCases(t *testing.T) {
	row := killRow{Fault: "f", Kills: []kill{k("LT-OWN", "LT-X")}}
	res := func(id string, fs ...scenarios.Finding) *scenarios.Result {
		return &scenarios.Result{ID: id, Findings: fs}
	}
	breach := scenarios.Finding{Class: scenarios.ClassFail, Reqs: []string{"LT-OP-4"}}
	note := scenarios.Finding{Class: scenarios.ClassInfo, Reqs: []string{"LT-OP-4"}, Kind: "unfinished"}
	got := alsoCases(row, colHardened, []*scenarios.Result{
		res("LT-OWN", breach),
		res("LT-DUP", breach), res("LT-DUP", breach),
		res("LT-NOTED", note),
		res("LT-CLEAN"),
	})
	if !slices.Equal(got, []string{"LT-DUP"}) {
		t.Errorf("alsoCases = %v, want [LT-DUP]", got)
	}
	// In the default column a hardened-only row expects nothing, yet its
	// own cases are still not "also".
	row.HardenedOnly = "why"
	if got := alsoCases(row, colDefault, []*scenarios.Result{res("LT-OWN", breach)}); len(got) != 0 {
		t.Errorf("alsoCases of a hardened-only row's own case in the default column = %v, want none", got)
	}
}
