package loadgen

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MergeOption configures MergeFiles.
type MergeOption func(*mergeConfig)

type mergeConfig struct{ force bool }

// WithForce merges files even when they measured different things
// (targets, bindings, page sizes, filters or store sizes); the summary
// then carries a warning naming each difference.
func WithForce(force bool) MergeOption { return func(c *mergeConfig) { c.force = force } }

// runProfile is what one result file measured: the properties whose
// figures only add up when every merged file shares them.
type runProfile struct {
	file      string
	endpoints map[string]bool
	bindings  map[string]bool
	pageSizes map[string]bool
	filters   map[string]bool
	stores    map[string]bool
}

func newRunProfile(file string) *runProfile {
	return &runProfile{file: file, endpoints: map[string]bool{}, bindings: map[string]bool{}, pageSizes: map[string]bool{},
		filters: map[string]bool{}, stores: map[string]bool{}}
}

// add records one result's attack (already parsed) and URL.
func (p *runProfile) add(n AttackName, rawURL string) {
	p.endpoints[Endpoint(rawURL)] = true
	p.bindings[orUnknown(n.Binding)] = true
	p.pageSizes[orUnknown(itoaOrEmpty(n.PageSize))] = true
	p.filters[filtersLabel(n.Filters)] = true
	p.stores[orUnknown(itoaOrEmpty(n.Store))] = true
}

func itoaOrEmpty(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// filtersLabel renders a filter query for messages: "contextId=c,
// status=s", or "none".
func filtersLabel(q string) string {
	if q == "" {
		return "none"
	}
	v, err := url.ParseQuery(q)
	if err != nil {
		return q
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, k+"="+strings.Join(v[k], "|"))
	}
	return strings.Join(parts, ", ")
}

// dimensions lists the profile's properties with their names.
func (p *runProfile) dimensions() []struct {
	name string
	set  map[string]bool
} {
	return []struct {
		name string
		set  map[string]bool
	}{
		{"target", p.endpoints}, {"binding", p.bindings}, {"page size", p.pageSizes}, {"filters", p.filters}, {"store size", p.stores},
	}
}

func setString(m map[string]bool) string { return strings.Join(slices.Sorted(maps.Keys(m)), " + ") }

// differences compares every profile with the first, and each profile
// with itself for store sizes (a file that mixes store sizes is a --sizes
// study or a store that changed under the run). It returns one line per
// difference, naming the files and the values.
func differences(ps []*runProfile) []string {
	var out []string
	for _, p := range ps {
		if known := len(p.stores) - boolInt(p.stores["unknown"]); known > 1 {
			out = append(out, fmt.Sprintf("%s holds results at several store sizes (%s tasks): the list changed under the run, or it is a --sizes study",
				p.file, setString(p.stores)))
		}
	}
	if len(ps) < 2 {
		return out
	}
	first := ps[0].dimensions()
	for _, p := range ps[1:] {
		for i, d := range p.dimensions() {
			a, b := setString(first[i].set), setString(d.set)
			if a != b {
				out = append(out, fmt.Sprintf("%s: %s has %s, %s has %s", d.name, ps[0].file, a, p.file, b))
			}
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
