package reference

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Fault names a known-broken (or known-legal) variant of the reference
// server. Each illegal fault breaks exactly one rule; the legal variants
// change behaviour the spec leaves open and must pass every check.
//
// A fault is one entry of a fault table in faultmodes*.go: it installs its
// own implementations of the server's seams (seams.go, seams_edge.go),
// which live beside the entry. Adding a fault touches that file and its row
// in the kill matrix (suites/killrows*_test.go), nothing else.
type Fault string

// FaultInfo describes one fault mode.
type FaultInfo struct {
	Name    Fault
	Summary string
	// Legal is true for variants the spec allows; they must not Fail.
	Legal bool
	// PerfOnly is true for faults that break no rule of the spec, only the
	// cost of a page: their answers are exactly right, so no conformance
	// case can see them, and only a load measurement kills them.
	PerfOnly bool
	// install swaps the fault's seams into the configuration. It runs after
	// every option, so it sees the whole configuration (for example the
	// fault seed) and may wrap the seams installed before it.
	install func(*config)
}

// Faults lists every fault mode, illegal first, in a stable order.
func Faults() []FaultInfo {
	out := slices.Clone(faultTable)
	slices.SortStableFunc(out, func(a, b FaultInfo) int {
		switch {
		case !a.Legal && b.Legal:
			return -1
		case a.Legal && !b.Legal:
			return 1
		}
		return 0
	})
	return out
}

// LookupFault returns the fault named name.
func LookupFault(name string) (FaultInfo, bool) {
	for _, f := range faultTable {
		if string(f.Name) == name {
			return f, true
		}
	}
	return FaultInfo{}, false
}

// FaultNames returns the names of all faults, comma-separated, for help text
// and error messages.
func FaultNames() string {
	var names []string
	for _, f := range faultTable {
		names = append(names, string(f.Name))
	}
	return strings.Join(names, ", ")
}

// installFaults installs the configured faults' seams over the clean ones,
// after picking the fault seed if none was given.
func installFaults(c *config) error {
	if !c.faultSeedSet {
		c.faultSeed = rand.Uint64()
	}
	for _, name := range c.faults {
		f, ok := LookupFault(string(name))
		if !ok {
			return paramErr("fault", "unknown fault %q; known faults: %s", name, FaultNames())
		}
		f.install(c)
	}
	return nil
}
