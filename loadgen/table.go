package loadgen

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteText renders the summary as a plain-text table with the slope, the
// ratio, every threshold and the verdict line last.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	if s.Schedule == ScheduleInterleaved {
		fmt.Fprintf(&b, "pagewalk %s: %s over %s, pageSize %d, depths interleaved for %s at %s per depth",
			s.Source, s.Target, s.Binding, s.PageSize, fmtSeconds(s.DurationSeconds), fmtRate(s.Rate))
	} else {
		fmt.Fprintf(&b, "pagewalk %s: %s over %s, pageSize %d, %s per depth at %s",
			s.Source, s.Target, s.Binding, s.PageSize, fmtSeconds(s.DurationSeconds), fmtRate(s.Rate))
	}
	if len(s.Generators) > 0 {
		fmt.Fprintf(&b, ", %d generator(s)", len(s.Generators))
	}
	b.WriteString("\n")
	if h := s.Harvest; h != nil {
		last := "last page reached"
		if !h.LastPageReached {
			last = fmt.Sprintf("last page NOT reached: stopped at page %d (%s)", h.Pages, h.StoppedBy)
		}
		fmt.Fprintf(&b, "harvest: %s pages walked in %s (%s), %d walk(s), token TTL %s; walk latency page 1 %s, page %s %s\n",
			FormatCount(int64(h.Pages)), fmtMs(h.WalkMillis), last, h.Walks, fmtSeconds(h.TokenTTL), fmtMs(h.FirstPageMillis), FormatCount(int64(h.Pages)), fmtMs(h.DeepestPageMillis))
	}
	b.WriteString("latency from the intended send time (coordinated omission corrected, HDR); lag = send lag behind the schedule; uncorrected = the same requests timed from the actual send\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "depth\treqs\texpect\tdrop\tlate\terrs\tp50\tp90\tp99\tp99.9\tmax\tthru/s\tlag p99\t|\tuncorrected p50\tp99\tmax\t")
	for _, d := range s.Depths {
		c, v := d.Corrected, d.Uncorrected
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t|\t%s\t%s\t%s\t\n",
			d.Label, FormatCount(d.Requests), FormatCount(d.Expected), FormatCount(d.Dropped), FormatCount(d.Late), FormatCount(d.Errors),
			lat(c.Samples, c.P50Ms), lat(c.Samples, c.P90Ms), lat(c.Samples, c.P99Ms), lat(c.Samples, c.P999Ms), lat(c.Samples, c.MaxMs),
			FormatNumber(d.ThroughputPerSecond, 1), lat(d.SendLag.Samples, d.SendLag.P99Ms), lat(v.Samples, v.P50Ms), lat(v.Samples, v.P99Ms), lat(v.Samples, v.MaxMs))
	}
	tw.Flush()
	for _, d := range s.Depths {
		if len(d.ErrorKinds) == 0 {
			continue
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(d.ErrorKinds)) {
			parts = append(parts, fmt.Sprintf("%s ×%d", k, d.ErrorKinds[k]))
		}
		fmt.Fprintf(&b, "errors at depth %d: %s\n", d.Depth, strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	if s.Slope != nil {
		fmt.Fprintf(&b, "depth-cost slope (least squares over depths %v): p50 %s, p99 %s\n",
			s.Slope.Depths, FormatSlope(s.Slope.P50UsPer1000Pages), FormatSlope(s.Slope.P99UsPer1000Pages))
	} else {
		b.WriteString("depth-cost slope: n/a (needs successful samples at two depths or more)\n")
	}
	if d := s.DepthShift; d != nil {
		sh := d.Shift
		fmt.Fprintf(&b, "depth cost median(depth %d)/median(depth %d) = %s/%s = %s, %.0f%% interval %s–%s (%s and %s samples); p90 ratio %s (%s–%s); depth %d p50/p5 %s×\n",
			d.DeepDepth, d.BaseDepth, fmtMs(sh.DeepMedianMs), fmtMs(sh.BaseMedianMs), FormatRatio(sh.Ratio), 100*sh.Confidence, FormatRatio(sh.Lo), FormatRatio(sh.Hi),
			FormatCount(int64(sh.Base)), FormatCount(int64(sh.Deep)), FormatRatio(sh.P90Ratio), FormatRatio(sh.P90Lo), FormatRatio(sh.P90Hi), d.BaseDepth, FormatNumber(sh.Spread, 1))
	} else {
		b.WriteString("depth cost: n/a (needs successful samples at the first and the deepest depth)\n")
	}
	if r := s.DepthRatio; r != nil {
		fmt.Fprintf(&b, "tail ratio p99(depth %d)/p99(depth %d) = %s/%s = %s (reported only: a tail ratio decides nothing)\n", r.DeepDepth, r.FirstDepth, fmtMs(r.DeepP99Ms), fmtMs(r.FirstP99Ms), FormatRatio(r.Value))
	}
	if len(s.SkippedDepths) > 0 {
		fmt.Fprintf(&b, "skipped depths (beyond the list): %v\n", s.SkippedDepths)
	}
	for _, wn := range s.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	if s.Sizes != nil {
		s.Sizes.writeSizesText(&b)
	}
	for _, t := range s.Thresholds {
		fmt.Fprintf(&b, "threshold %-15s %-12s limit %s, observed %s (%s samples): %s\n", t.Name, strings.ToUpper(t.Status),
			fmtThreshold(t, t.Limit), fmtThreshold(t, t.Observed), FormatCount(t.Samples), t.Detail)
	}
	if s.Verdict == VerdictInconclusive {
		fmt.Fprintf(&b, "verdict: INCONCLUSIVE: %s\n", strings.Join(s.Inconclusive, "; "))
	} else {
		fmt.Fprintf(&b, "verdict: %s\n", strings.ToUpper(s.Verdict))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func lat(samples int64, v float64) string {
	if samples == 0 {
		return "-"
	}
	return fmtMs(v)
}

func fmtThreshold(t ThresholdResult, v float64) string {
	if t.Status == StatusNoSamples && v == t.Observed {
		return "-"
	}
	if t.Unit == "ms" {
		return fmtMs(v)
	}
	return FormatThreshold(t.Unit, v)
}

func fmtRate(r RateInfo) string {
	if r.Spec != "" {
		return fmt.Sprintf("%s (%s)", r.Spec, FormatRate(r.PerSecond))
	}
	return FormatRate(r.PerSecond)
}

func fmtSeconds(s float64) string { return FormatSeconds(s) }
