package loadgen

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Rate is an open-loop request rate: Freq requests every Per. It is
// vegeta's ConstantPacer, so rates such as 50/3s (a third of 50/s, for one
// of three generators) are exact.
type Rate struct {
	Freq int
	Per  time.Duration
}

// ParseRate parses "50", "50/s", "50/1s", "50/3s" or "100/500ms".
func ParseRate(s string) (Rate, error) {
	f, per, hasPer := strings.Cut(strings.TrimSpace(s), "/")
	n, err := strconv.Atoi(f)
	if err != nil || n < 1 {
		return Rate{}, fmt.Errorf("want a positive whole number of requests, optionally per a duration (50, 50/1s, 50/3s), got %q", s)
	}
	r := Rate{Freq: n, Per: time.Second}
	if hasPer {
		if per != "" && (per[0] < '0' || per[0] > '9') {
			per = "1" + per
		}
		d, err := time.ParseDuration(per)
		if err != nil || d <= 0 {
			return Rate{}, fmt.Errorf("want a positive duration after the slash (50/1s, 50/3s), got %q", s)
		}
		r.Per = d
	}
	if r.Interval() <= 0 {
		return Rate{}, fmt.Errorf("rate %q is faster than one request per nanosecond", s)
	}
	return r, nil
}

// String renders the rate as FREQ/PER, the form ParseRate reads.
func (r Rate) String() string { return fmt.Sprintf("%d/%s", r.Freq, r.Per) }

// PerSecond returns the rate in requests per second.
func (r Rate) PerSecond() float64 {
	if r.Per <= 0 {
		return 0
	}
	return float64(r.Freq) / r.Per.Seconds()
}

// Interval returns the time between two intended sends, truncated to the
// nanosecond exactly as vegeta's pacer does.
func (r Rate) Interval() time.Duration {
	if r.Freq <= 0 {
		return 0
	}
	return r.Per / time.Duration(r.Freq)
}

// Expected returns how many requests an attack of duration d sends when it
// keeps the schedule: vegeta's pacer schedules request k (from 0) at
// (k+1)·Interval and stops once that passes d.
func (r Rate) Expected(d time.Duration) int {
	iv := r.Interval()
	if iv <= 0 || d <= 0 {
		return 0
	}
	return int(d / iv)
}

func (r Rate) pacer() vegeta.Rate { return vegeta.Rate{Freq: r.Freq, Per: r.Per} }
