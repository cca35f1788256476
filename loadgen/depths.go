package loadgen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// DepthSpec says which page depths to attack: fixed depths, and whether to
// add the last page of the list.
type DepthSpec struct {
	Depths []int
	Last   bool
}

// DefaultDepths is depth 1, 10, 100, 1000 and the last page.
var DefaultDepths = DepthSpec{Depths: []int{1, 10, 100, 1000}, Last: true}

// ParseDepths parses a comma-separated list of page depths (whole numbers
// from 1) and the word "last", e.g. "1,500,last".
func ParseDepths(s string) (DepthSpec, error) {
	var d DepthSpec
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
			continue
		case strings.EqualFold(f, "last"):
			d.Last = true
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return DepthSpec{}, fmt.Errorf("want page depths from 1 and the word last, comma-separated (1,500,last), got %q", f)
		}
		d.Depths = append(d.Depths, n)
	}
	if len(d.Depths) == 0 && !d.Last {
		return DepthSpec{}, fmt.Errorf("no depths in %q", s)
	}
	slices.Sort(d.Depths)
	d.Depths = slices.Compact(d.Depths)
	return d, nil
}

// String renders the spec in the form ParseDepths reads.
func (d DepthSpec) String() string {
	var parts []string
	for _, n := range d.Depths {
		parts = append(parts, strconv.Itoa(n))
	}
	if d.Last {
		parts = append(parts, "last")
	}
	return strings.Join(parts, ",")
}

// Wants reports whether depth n is one of the fixed depths.
func (d DepthSpec) Wants(n int) bool {
	_, ok := slices.BinarySearch(d.Depths, n)
	return ok
}

// Deepest returns the deepest fixed depth (0 if none).
func (d DepthSpec) Deepest() int {
	if len(d.Depths) == 0 {
		return 0
	}
	return d.Depths[len(d.Depths)-1]
}

// Bucket is one depth to attack.
type Bucket struct {
	Depth int
	// Last is true when Depth is the last page of the list.
	Last bool
}

// Label renders the bucket for tables: "1000", or "10000 (last)".
func (b Bucket) Label() string {
	if b.Last {
		return fmt.Sprintf("%d (last)", b.Depth)
	}
	return strconv.Itoa(b.Depth)
}

// Buckets resolves the spec against a walk that reached page deepest
// (complete says whether that page was the list's last). It returns the
// buckets in depth order, one per distinct depth, and the fixed depths that
// do not exist in the list.
func (d DepthSpec) Buckets(deepest int, complete bool) (buckets []Bucket, skipped []int) {
	for _, n := range d.Depths {
		if n > deepest {
			skipped = append(skipped, n)
			continue
		}
		buckets = append(buckets, Bucket{Depth: n, Last: complete && n == deepest})
	}
	if d.Last && deepest >= 1 && !d.Wants(deepest) {
		buckets = append(buckets, Bucket{Depth: deepest, Last: complete})
	}
	return buckets, skipped
}
