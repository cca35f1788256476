package loadgen

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// runWith synthesises one generator's depth-1 and depth-100 attacks, with
// change applied to both names and url as the endpoint.
func runWith(gen, endpoint string, change func(*AttackName)) [][]*vegeta.Result {
	var out [][]*vegeta.Result
	for i, depth := range []int{1, 100} {
		s := newSynth(gen, depth, t0.Add(time.Duration(i)*2*time.Second))
		if change != nil {
			change(&s.name)
		}
		for seq := uint64(0); seq < 5; seq++ {
			s.add(seq, 0, time.Millisecond, 200, "")
		}
		if endpoint != "" {
			for _, r := range s.res {
				r.URL = TagURL(endpoint, depth)
			}
		}
		out = append(out, s.res)
	}
	return out
}

func TestMergeRefusesDifferentRunsUnlessForced(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.bin")
	writeResults(t, base, gobEnc, runWith("gen-a", "", func(n *AttackName) { n.Store = 1000 })...)
	cases := []struct {
		name, endpoint string
		change         func(*AttackName)
		want           string
	}{
		{"target", "http://other:9/jsonrpc", func(n *AttackName) { n.Store = 1000 }, "target: "},
		{"binding", "", func(n *AttackName) { n.Binding, n.Store = "http", 1000 }, "binding: "},
		{"page size", "", func(n *AttackName) { n.PageSize, n.Store = 50, 1000 }, "page size: "},
		{"filters", "", func(n *AttackName) { n.Filters, n.Store = "contextId=c1", 1000 }, "filters: "},
		{"store size", "", func(n *AttackName) { n.Store = 100000 }, "store size: "},
	}
	for _, c := range cases {
		other := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".bin")
		writeResults(t, other, gobEnc, runWith("gen-b", c.endpoint, c.change)...)
		_, err := MergeFiles([]string{base, other}, DefaultThresholds)
		if err == nil {
			t.Errorf("%s: merged runs that differ", c.name)
			continue
		}
		for _, want := range []string{c.want, base, other, "--force"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error lacks %q: %v", c.name, want, err)
			}
		}
		s, err := MergeFiles([]string{base, other}, DefaultThresholds, WithForce(true))
		if err != nil {
			t.Errorf("%s: --force: %v", c.name, err)
			continue
		}
		if s.Depths[0].Requests != 10 || !strings.Contains(strings.Join(s.Warnings, "\n"), c.want) {
			t.Errorf("%s: forced merge: requests %d, warnings %q", c.name, s.Depths[0].Requests, s.Warnings)
		}
	}
	// The same run from two generators merges without complaint.
	same := filepath.Join(dir, "same.bin")
	writeResults(t, same, gobEnc, runWith("gen-c", "", func(n *AttackName) { n.Store = 1000 })...)
	if _, err := MergeFiles([]string{base, same}, DefaultThresholds); err != nil {
		t.Errorf("same run, two generators: %v", err)
	}
	// One file holding several store sizes (a --sizes study) is refused
	// on its own.
	mixed := filepath.Join(dir, "mixed.bin")
	a := runWith("gen-d", "", func(n *AttackName) { n.Store = 1000 })
	b := runWith("gen-d", "", func(n *AttackName) { n.Store = 10000; n.Start = n.Start.Add(time.Minute) })
	writeResults(t, mixed, gobEnc, append(a, b...)...)
	if _, err := MergeFiles([]string{mixed}, DefaultThresholds); err == nil || !strings.Contains(err.Error(), "several store sizes") {
		t.Errorf("mixed store sizes in one file: %v", err)
	}
}

func TestAttackNameCarriesFiltersAndStore(t *testing.T) {
	n := AttackName{Generator: "g", Depth: 3, Rate: Rate{5, time.Second}, Duration: time.Second, Start: t0, Binding: "http", PageSize: 10,
		Filters: "contextId=a%3Bb%3Dc&status=TASK_STATE_WORKING", Store: 20000}
	back, err := ParseAttackName(n.String())
	if err != nil {
		t.Fatal(err)
	}
	if back.Filters != n.Filters || back.Store != 20000 {
		t.Errorf("round trip: %+v from %q", back, n.String())
	}
	if strings.Count(n.String(), ";") != 9 {
		t.Errorf("a filter value leaked a separator: %q", n.String())
	}
}
