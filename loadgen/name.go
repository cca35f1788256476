package loadgen

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AttackNamePrefix starts every attack name pagewalk writes; the digit is
// the name format's version.
const AttackNamePrefix = "pagewalk/1"

// AttackName is the metadata pagewalk puts in each vegeta attack's name, so
// that a result file alone is enough to recompute intended send times and
// expected counts on another machine. It renders as
//
//	pagewalk/1;gen=GEN;depth=N[;last=1];rate=FREQ/PER;dur=DURATION;start=UNIXNANOS;binding=B;pageSize=P[;filter=Q][;store=N]
//
// for one depth (the sequential schedule), for example
//
//	pagewalk/1;gen=lg-0;depth=10000;last=1;rate=50/3s;dur=10s;start=1767225600123456789;binding=jsonrpc;pageSize=100
//
// and, for an attack that interleaves several depths (the interleaved
// schedule), "depths=D1,D2,…;order=SEED" in place of "depth=N": the
// request sequence visits every depth once per round, each round in the
// order InterleavedOrder(SEED, round, len(depths)) gives, and last=1 marks
// the deepest as the list's last page. Its rate is the whole attack's.
//
// Request seq (from 0) of an attack was intended to be sent at
// start + (seq+1)·(PER/FREQ), which is vegeta's constant-pacer schedule.
// Names are distinct per generator, depth and start, as vegeta's plot and
// report tools need.
type AttackName struct {
	// Generator names the machine or process that ran the attack.
	Generator string
	// Depth is the page depth attacked (1 = the first page); 0 for an
	// interleaved attack.
	Depth int
	// Depths are the page depths an interleaved attack visits, shallowest
	// first; nil for a one-depth attack.
	Depths []int
	// Order seeds an interleaved attack's shuffled rounds.
	Order uint64
	// Last is true when Depth (or the deepest of Depths) was the last page
	// of the list.
	Last bool
	// Rate and Duration are the attack's open-loop schedule.
	Rate     Rate
	Duration time.Duration
	// Start is the wall-clock time taken just before the attack began.
	Start time.Time
	// Binding is "jsonrpc" or "http".
	Binding string
	// PageSize is the pageSize of every request of the attack.
	PageSize int
	// Filters is the list filters of every request, as a URL query
	// (contextId=c&status=s), "" for none. It renders as "filter=" with
	// the query escaped, and only when set.
	Filters string
	// Store is the number of tasks in the list the attack walked, when the
	// run knows it (pagewalk load --sizes); 0 when unknown. It renders as
	// "store=N", only when set.
	Store int
}

var generatorRE = regexp.MustCompile(`^[A-Za-z0-9._:@+-]{1,100}$`)

// ValidGenerator reports whether g can be used as a generator name: 1-100
// characters from letters, digits and . _ : @ + -.
func ValidGenerator(g string) bool { return generatorRE.MatchString(g) }

// DefaultGenerator returns HOSTNAME-PID with unusable characters replaced,
// which is distinct for concurrent generators on one machine and across
// Kubernetes pods.
func DefaultGenerator() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "gen"
	}
	h = strings.Map(func(r rune) rune {
		if generatorRE.MatchString(string(r)) {
			return r
		}
		return '-'
	}, h)
	if len(h) > 80 {
		h = h[:80]
	}
	return fmt.Sprintf("%s-%d", h, os.Getpid())
}

// String renders the name; ParseAttackName reads it back.
func (n AttackName) String() string {
	var b strings.Builder
	b.WriteString(AttackNamePrefix)
	fmt.Fprintf(&b, ";gen=%s", n.Generator)
	if n.Interleaved() {
		ds := make([]string, len(n.Depths))
		for i, d := range n.Depths {
			ds[i] = strconv.Itoa(d)
		}
		fmt.Fprintf(&b, ";depths=%s;order=%d", strings.Join(ds, ","), n.Order)
	} else {
		fmt.Fprintf(&b, ";depth=%d", n.Depth)
	}
	if n.Last {
		b.WriteString(";last=1")
	}
	fmt.Fprintf(&b, ";rate=%s;dur=%s;start=%d;binding=%s;pageSize=%d",
		n.Rate, n.Duration, n.Start.UnixNano(), n.Binding, n.PageSize)
	if n.Filters != "" {
		fmt.Fprintf(&b, ";filter=%s", url.QueryEscape(n.Filters))
	}
	if n.Store > 0 {
		fmt.Fprintf(&b, ";store=%d", n.Store)
	}
	return b.String()
}

// ParseAttackName parses a name written by AttackName.String.
func ParseAttackName(s string) (AttackName, error) {
	parts := strings.Split(s, ";")
	if len(parts) == 0 || parts[0] != AttackNamePrefix {
		return AttackName{}, fmt.Errorf("attack name %q is not a pagewalk load attack (want prefix %q)", s, AttackNamePrefix)
	}
	var n AttackName
	seen := map[string]bool{}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok || seen[k] {
			return AttackName{}, fmt.Errorf("attack name %q: bad field %q", s, p)
		}
		seen[k] = true
		var err error
		switch k {
		case "gen":
			n.Generator = v
		case "depth":
			n.Depth, err = strconv.Atoi(v)
			if err == nil && n.Depth < 1 {
				err = fmt.Errorf("must be at least 1")
			}
		case "depths":
			for _, f := range strings.Split(v, ",") {
				d, perr := strconv.Atoi(f)
				if perr != nil || d < 1 || (len(n.Depths) > 0 && d <= n.Depths[len(n.Depths)-1]) {
					err = fmt.Errorf("want increasing depths from 1, comma-separated, got %q", v)
					break
				}
				n.Depths = append(n.Depths, d)
			}
		case "order":
			n.Order, err = strconv.ParseUint(v, 10, 64)
		case "last":
			n.Last = v == "1"
		case "rate":
			n.Rate, err = ParseRate(v)
		case "dur":
			n.Duration, err = time.ParseDuration(v)
		case "start":
			var ns int64
			ns, err = strconv.ParseInt(v, 10, 64)
			n.Start = time.Unix(0, ns)
		case "binding":
			n.Binding = v
		case "pageSize":
			n.PageSize, err = strconv.Atoi(v)
		case "filter":
			n.Filters, err = url.QueryUnescape(v)
		case "store":
			n.Store, err = strconv.Atoi(v)
		default:
			// Unknown fields are ignored so newer generators can add some.
		}
		if err != nil {
			return AttackName{}, fmt.Errorf("attack name %q: field %s: %v", s, k, err)
		}
	}
	for _, k := range []string{"gen", "rate", "dur", "start"} {
		if !seen[k] {
			return AttackName{}, fmt.Errorf("attack name %q: missing field %s", s, k)
		}
	}
	switch {
	case seen["depth"] == seen["depths"]:
		return AttackName{}, fmt.Errorf("attack name %q: want exactly one of the fields depth and depths", s)
	case seen["depths"] && !seen["order"]:
		return AttackName{}, fmt.Errorf("attack name %q: missing field order (an interleaved attack's round order)", s)
	}
	return n, nil
}

// Interleaved reports whether the attack visits several depths.
func (n AttackName) Interleaved() bool { return len(n.Depths) > 0 }

// Covers reports whether the attack sent requests for page depth d.
func (n AttackName) Covers(d int) bool {
	if n.Interleaved() {
		_, ok := slices.BinarySearch(n.Depths, d)
		return ok
	}
	return d == n.Depth
}

// LastAt reports whether depth d was the list's last page in this attack.
func (n AttackName) LastAt(d int) bool {
	if n.Interleaved() {
		return n.Last && d == n.Depths[len(n.Depths)-1]
	}
	return n.Last && d == n.Depth
}

// RateAt returns the intended rate per second at depth d: the attack's
// rate, shared evenly among an interleaved attack's depths.
func (n AttackName) RateAt(d int) float64 {
	if !n.Covers(d) {
		return 0
	}
	if n.Interleaved() {
		return n.Rate.PerSecond() / float64(len(n.Depths))
	}
	return n.Rate.PerSecond()
}

// ExpectedAt returns how many requests the attack meant to send at depth d.
// For an interleaved attack that is one per full round, plus one if d comes
// early enough in the last, partial round.
func (n AttackName) ExpectedAt(d int) int {
	if !n.Covers(d) {
		return 0
	}
	if !n.Interleaved() {
		return n.Expected()
	}
	k := len(n.Depths)
	total := n.Expected()
	full, rem := total/k, total%k
	for _, i := range InterleavedOrder(n.Order, uint64(full), k)[:rem] {
		if n.Depths[i] == d {
			return full + 1
		}
	}
	return full
}

// Intended returns when request seq of the attack was meant to be sent.
func (n AttackName) Intended(seq uint64) time.Time {
	return n.Start.Add(time.Duration(seq+1) * n.Rate.Interval())
}

// Expected returns how many requests the attack meant to send.
func (n AttackName) Expected() int { return n.Rate.Expected(n.Duration) }
