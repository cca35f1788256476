package reports

import (
	"fmt"
	"math"
	"slices"

	"github.com/pagewalk/pagewalk/loadgen"
)

// chartSpec is what the load chart draws: latency by page depth on a log
// scale. It has the shape of the load summary's own chart description, so
// that drawing does not depend on how the summary computes it; only
// chartOf reads summary fields.
type chartSpec struct {
	Depths []string
	Series []chartSeries
	Lines  []chartLine
	// LogMin and LogMax bound the y axis (powers of ten, LogMin < LogMax).
	LogMin, LogMax float64
}

type chartSeries struct {
	// Name is "p50", "p90" or "p99"; Values has one value per depth, 0 for
	// a depth without samples (a gap).
	Name   string
	Values []float64
}

type chartLine struct {
	Label string
	Value float64
}

// chartOf describes the corrected p50, p90 and p99 of every depth, and the
// thresholds that are latencies: --max-p99, and the depth-ratio limit as
// the latency it allows (the first depth's median times the ratio, which
// the deepest depth's median must stay under; summaries from before the
// median gate: the first depth's p99 times the ratio).
func chartOf(l *loadgen.Summary) chartSpec {
	var c chartSpec
	var all []float64
	for _, d := range l.Depths {
		c.Depths = append(c.Depths, d.Label)
	}
	for _, name := range []string{"p50", "p90", "p99"} {
		s := chartSeries{Name: name}
		for _, d := range l.Depths {
			v := map[string]float64{"p50": d.Corrected.P50Ms, "p90": d.Corrected.P90Ms, "p99": d.Corrected.P99Ms}[name]
			if d.Corrected.Samples == 0 || v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
			} else {
				all = append(all, v)
			}
			s.Values = append(s.Values, v)
		}
		c.Series = append(c.Series, s)
	}
	for _, t := range l.Thresholds {
		switch {
		case t.Name == "max-p99" && t.Limit > 0:
			c.Lines = append(c.Lines, chartLine{Label: fmt.Sprintf("max-p99 %s ms", fmtMs(t.Limit)), Value: t.Limit})
		case t.Name == "max-depth-ratio" && t.Limit > 0 && l.DepthShift != nil && l.DepthShift.BaseMedianMs > 0:
			// The gate is on the median ratio: the line is for the p50 series.
			v := l.DepthShift.BaseMedianMs * t.Limit
			c.Lines = append(c.Lines, chartLine{Label: fmt.Sprintf("depth limit: p50 of depth %d × %s = %s ms", l.DepthShift.BaseDepth, loadgen.FormatRatio(t.Limit), fmtMs(v)), Value: v})
		case t.Name == "max-depth-ratio" && t.Limit > 0 && l.DepthShift == nil && l.DepthRatio != nil && l.DepthRatio.FirstP99Ms > 0:
			// A summary from before the median gate judged p99s.
			v := l.DepthRatio.FirstP99Ms * t.Limit
			c.Lines = append(c.Lines, chartLine{Label: fmt.Sprintf("depth limit: p99 of depth %d × %s = %s ms", l.DepthRatio.FirstDepth, loadgen.FormatRatio(t.Limit), fmtMs(v)), Value: v})
		}
	}
	for _, ln := range c.Lines {
		all = append(all, ln.Value)
	}
	c.LogMin, c.LogMax = 0.1, 10
	if len(all) > 0 {
		c.LogMin = math.Pow(10, math.Floor(math.Log10(slices.Min(all))))
		c.LogMax = math.Pow(10, math.Ceil(math.Log10(slices.Max(all))))
		if c.LogMax <= c.LogMin {
			c.LogMax = c.LogMin * 10
		}
	}
	return c
}

func fmtMs(v float64) string { return loadgen.FormatMsValue(v) }

// svgChart is a chartSpec laid out in SVG coordinates.
type svgChart struct {
	Width, Height float64
	Left, Right   float64
	Top, Bottom   float64
	Grid          []svgTick
	XTicks        []svgTick
	Series        []svgSeries
	Lines         []svgTick
	Legend        []svgTick
}

type svgTick struct {
	X, Y  float64
	Label string
	Class string
}

type svgSeries struct {
	Class  string
	Points string
	Dots   []svgTick
}

// layout places the spec in a width×height SVG with a log-scale y axis.
func layout(c chartSpec) svgChart {
	g := svgChart{Width: 760, Height: 320, Left: 64, Right: 560, Top: 16, Bottom: 268}
	lo, hi := math.Log10(c.LogMin), math.Log10(c.LogMax)
	y := func(v float64) float64 { return g.Bottom - (math.Log10(v)-lo)/(hi-lo)*(g.Bottom-g.Top) }
	n := len(c.Depths)
	x := func(i int) float64 {
		if n <= 1 {
			return (g.Left + g.Right) / 2
		}
		return g.Left + 24 + float64(i)*(g.Right-g.Left-48)/float64(n-1)
	}
	for e := math.Floor(lo); e <= hi+1e-9; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v < c.LogMin*0.999 || v > c.LogMax*1.001 || (m != 1 && hi-lo > 3) {
				continue
			}
			g.Grid = append(g.Grid, svgTick{X: g.Left, Y: y(v), Label: fmtMs(v), Class: map[bool]string{true: "major", false: "minor"}[m == 1]})
		}
	}
	for i, d := range c.Depths {
		g.XTicks = append(g.XTicks, svgTick{X: x(i), Y: g.Bottom + 18, Label: "depth " + d})
	}
	for _, s := range c.Series {
		sv := svgSeries{Class: s.Name}
		for i, v := range s.Values {
			if v <= 0 {
				continue
			}
			sv.Points += fmt.Sprintf("%.1f,%.1f ", x(i), y(v))
			sv.Dots = append(sv.Dots, svgTick{X: x(i), Y: y(v), Label: fmt.Sprintf("%s at depth %s: %s ms", s.Name, c.Depths[i], fmtMs(v))})
		}
		g.Series = append(g.Series, sv)
	}
	for _, l := range c.Lines {
		g.Lines = append(g.Lines, svgTick{X: g.Right, Y: y(l.Value), Label: l.Label})
	}
	for i, s := range c.Series {
		g.Legend = append(g.Legend, svgTick{X: g.Right + 16, Y: g.Top + 14 + float64(i)*18, Label: s.Name + " (corrected)", Class: s.Name})
	}
	return g
}
