package loadgen

import (
	"math"
	"strconv"
	"strings"
)

// Human number formats for everything pagewalk load prints, so that no
// figure ever reads 4.94e+03: counts get thousands separators, latencies a
// unit picked for their size, and slopes a unit picked for theirs.

// FormatCount renders n with thousands separators: 1234567 → "1,234,567".
func FormatCount(n int64) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// FormatNumber renders v with at most decimals digits after the point (fewer
// when they would be zeros of an integer) and thousands separators:
// 4940.2 with 1 → "4,940.2", 12 with 2 → "12", 0.5 with 2 → "0.5".
// NaN and infinities render as "n/a".
func FormatNumber(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil { // beyond int64: leave the digits as they are
		return sign + s
	}
	out := sign + FormatCount(n)
	if hasFrac {
		out += "." + frac
	}
	if out == "-0" {
		return "0"
	}
	return out
}

// FormatMsValue renders a latency in milliseconds as a plain number of
// milliseconds for tables with an "ms" column: three significant digits
// below 100 ms, whole milliseconds with separators above (4,940).
func FormatMsValue(ms float64) string {
	a := math.Abs(ms)
	switch {
	case a >= 100:
		return FormatNumber(ms, 0)
	case a >= 10:
		return FormatNumber(ms, 1)
	case a >= 1:
		return FormatNumber(ms, 2)
	}
	return FormatNumber(ms, 3)
}

// FormatLatency renders a latency given in milliseconds with a unit picked
// for its size: "0.789 ms", "7.22 ms", "130 ms", "4.94 s", "1,234 s".
func FormatLatency(ms float64) string {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return "n/a"
	}
	if math.Abs(ms) >= 1000 {
		s := ms / 1000
		if math.Abs(s) >= 100 {
			return FormatNumber(s, 0) + " s"
		}
		return FormatNumber(s, 2) + " s"
	}
	return FormatMsValue(ms) + " ms"
}

// FormatRate renders a rate per second: "5,000/s", "33.3/s", "0.333/s".
func FormatRate(perSecond float64) string {
	a := math.Abs(perSecond)
	switch {
	case a >= 100:
		return FormatNumber(perSecond, 0) + "/s"
	case a >= 10:
		return FormatNumber(perSecond, 1) + "/s"
	}
	return FormatNumber(perSecond, 3) + "/s"
}

// FormatSeconds renders a duration given in seconds: "10s", "2.5s",
// "1,800s".
func FormatSeconds(s float64) string { return FormatNumber(s, 3) + "s" }

// FormatSlope renders a depth-cost slope given in µs per 1,000 pages with
// a unit picked for its size and an explicit sign: "+7.08 s per 1,000
// pages", "+56.6 ms per 1,000 pages", "-10.0 µs per 1,000 pages".
func FormatSlope(usPer1000 float64) string {
	if math.IsNaN(usPer1000) || math.IsInf(usPer1000, 0) {
		return "n/a"
	}
	sign := "+"
	if usPer1000 < 0 {
		sign = "-"
	}
	a := math.Abs(usPer1000)
	var v string
	switch {
	case a >= 1e6:
		v = fmtSig(a/1e6) + " s"
	case a >= 1e3:
		v = fmtSig(a/1e3) + " ms"
	default:
		v = fmtSig(a) + " µs"
	}
	return sign + v + " per 1,000 pages"
}

// fmtSig renders a non-negative v with three significant digits (whole
// numbers from 100 up, with separators).
func fmtSig(v float64) string {
	switch {
	case v >= 100:
		return FormatNumber(v, 0)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// FormatThreshold renders a threshold's limit or observed value in its
// unit: a latency, a percentage or a ratio.
func FormatThreshold(unit string, v float64) string {
	switch unit {
	case "ms":
		return FormatLatency(v)
	case "fraction":
		return FormatNumber(100*v, 2) + "%"
	}
	return FormatRatio(v)
}

// FormatRatio renders a ratio with two decimals and separators: "1.00",
// "4,165.98".
func FormatRatio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return s
	}
	if n == 0 && strings.HasPrefix(intPart, "-") {
		return "-0." + frac
	}
	return FormatCount(n) + "." + frac
}
