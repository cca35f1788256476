package scenarios

import "testing"

// TestEveryRequirementCheckedOrExplained fails when a requirement of the
// catalogue is neither named by a case nor explained in unchecked, when it
// is both, and when unchecked explains an ID the catalogue does not have.
func TestEveryRequirementCheckedOrExplained(t *testing.T) {
	named := map[string][]string{}
	for _, s := range All() {
		for _, r := range s.Reqs {
			named[r] = append(named[r], s.ID)
		}
	}
	for _, r := range Requirements() {
		why, explained := unchecked[r.ID]
		switch {
		case len(named[r.ID]) == 0 && !explained:
			t.Errorf("%s (%s) is named by no case and unchecked does not say why", r.ID, r.Written)
		case len(named[r.ID]) > 0 && explained:
			t.Errorf("%s is named by %v and also explained as unchecked (%q): drop one", r.ID, named[r.ID], why)
		case explained && why == "":
			t.Errorf("%s is in unchecked with no reason", r.ID)
		}
	}
	for id := range unchecked {
		if _, ok := LookupRequirement(id); !ok {
			t.Errorf("unchecked explains %s, which is not in the catalogue", id)
		}
	}
}
