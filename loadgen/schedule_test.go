package loadgen

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestInterleavedOrder(t *testing.T) {
	orders := map[string]bool{}
	for round := uint64(0); round < 50; round++ {
		p := InterleavedOrder(7, round, 5)
		if q := InterleavedOrder(7, round, 5); !slices.Equal(p, q) {
			t.Fatalf("round %d: %v then %v from the same seed", round, p, q)
		}
		s := slices.Clone(p)
		slices.Sort(s)
		if !slices.Equal(s, []int{0, 1, 2, 3, 4}) {
			t.Fatalf("round %d: %v is not a permutation of 0..4", round, p)
		}
		orders[fmt.Sprint(p)] = true
	}
	if len(orders) < 20 {
		t.Errorf("50 rounds gave only %d distinct orders: not shuffled", len(orders))
	}
	if slices.Equal(InterleavedOrder(7, 3, 8), InterleavedOrder(8, 3, 8)) && slices.Equal(InterleavedOrder(7, 4, 8), InterleavedOrder(8, 4, 8)) {
		t.Error("the seed does not change the order")
	}
}

// TestInterleavedTargeterVisitsEveryDepthEachRound: every round of k
// consecutive targets holds each depth once.
func TestInterleavedTargeterVisitsEveryDepthEachRound(t *testing.T) {
	depths := []int{1, 10, 100, 300}
	var tgts []vegeta.Target
	for _, d := range depths {
		tgts = append(tgts, vegeta.Target{Method: "POST", URL: TagURL("http://127.0.0.1:9/jsonrpc", d)})
	}
	next := interleavedTargeter(tgts, 3)
	for round := 0; round < 25; round++ {
		seen := map[int]bool{}
		for range depths {
			var got vegeta.Target
			if err := next(&got); err != nil {
				t.Fatal(err)
			}
			d, _ := DepthOf(got.URL)
			seen[d] = true
		}
		if len(seen) != len(depths) {
			t.Fatalf("round %d visited %v", round, seen)
		}
	}
}

func TestInterleavedAttackName(t *testing.T) {
	n := AttackName{Generator: "g", Depths: []int{1, 10, 300}, Order: 42, Last: true, Rate: Rate{150, time.Second}, Duration: 3 * time.Second,
		Start: time.Unix(0, 1767225600123456789), Binding: "http", PageSize: 100}
	s := n.String()
	if s != "pagewalk/1;gen=g;depths=1,10,300;order=42;last=1;rate=150/1s;dur=3s;start=1767225600123456789;binding=http;pageSize=100" {
		t.Fatalf("name %s", s)
	}
	back, err := ParseAttackName(s)
	if err != nil || !reflect.DeepEqual(back, n) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	if !n.Covers(10) || n.Covers(2) || !n.LastAt(300) || n.LastAt(10) || n.RateAt(10) != 50 || n.RateAt(2) != 0 {
		t.Errorf("covers/last/rate wrong for %s", s)
	}
	// Expected counts per depth add up to the attack's, whatever the
	// partial last round holds.
	for _, dur := range []time.Duration{3 * time.Second, 3*time.Second + 10*time.Millisecond, 3*time.Second + 20*time.Millisecond} {
		n.Duration = dur
		sum := 0
		for _, d := range n.Depths {
			e := n.ExpectedAt(d)
			if e < n.Expected()/3 || e > n.Expected()/3+1 {
				t.Errorf("duration %s: depth %d expected %d of %d", dur, d, e, n.Expected())
			}
			sum += e
		}
		if sum != n.Expected() {
			t.Errorf("duration %s: per-depth expected add up to %d, want %d", dur, sum, n.Expected())
		}
	}
	for _, bad := range []string{
		"pagewalk/1;gen=a;depths=1,10;rate=1;dur=1s;start=1",                 // no order
		"pagewalk/1;gen=a;depths=10,1;order=1;rate=1;dur=1s;start=1",         // not increasing
		"pagewalk/1;gen=a;depth=1;depths=1,10;order=1;rate=1;dur=1s;start=1", // both
		"pagewalk/1;gen=a;rate=1;dur=1s;start=1",                             // neither
	} {
		if _, err := ParseAttackName(bad); err == nil {
			t.Errorf("ParseAttackName(%q) accepted", bad)
		}
	}
}

func TestParseSchedule(t *testing.T) {
	for in, want := range map[string]string{"interleaved": ScheduleInterleaved, "Sequential": ScheduleSequential} {
		if s, err := ParseSchedule(in); err != nil || s.Name() != want {
			t.Errorf("ParseSchedule(%q) = %v, %v", in, s, err)
		}
	}
	if _, err := ParseSchedule("random"); err == nil {
		t.Error("ParseSchedule(random) accepted")
	}
}
