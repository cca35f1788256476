package reports

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios"
)

// HTML writes the bundle as one self-contained HTML page: inline CSS and an
// inline SVG chart, no scripts, fonts or images from elsewhere, so it can
// be attached to a CI run and opened offline.
func (b Bundle) HTML(w io.Writer) error {
	return pageTmpl.Execute(w, b)
}

// bar is one bar of the load chart.
type bar struct {
	X, Y, W, H float64
	Label      string
	Value      string
	Class      string
}

type chart struct {
	Width, Height float64
	Bars          []bar
	Ticks         []bar
}

// loadChart draws corrected p50 and p99 per depth as grouped bars.
func loadChart(l *loadgen.Summary) chart {
	c := chart{Width: 640, Height: 220}
	if l == nil || len(l.Depths) == 0 {
		return c
	}
	top := 0.0
	for _, d := range l.Depths {
		top = math.Max(top, d.Corrected.P99Ms)
	}
	if top <= 0 {
		top = 1
	}
	plotH, left, group := 160.0, 40.0, (c.Width-50)/float64(len(l.Depths))
	for i, d := range l.Depths {
		x := left + float64(i)*group
		for j, v := range []struct {
			ms    float64
			class string
		}{{d.Corrected.P50Ms, "p50"}, {d.Corrected.P99Ms, "p99"}} {
			h := plotH * v.ms / top
			c.Bars = append(c.Bars, bar{X: x + 6 + float64(j)*(group/2-6), Y: 20 + plotH - h, W: group/2 - 10, H: h,
				Value: fmt.Sprintf("%.2f ms", v.ms), Class: v.class})
		}
		c.Ticks = append(c.Ticks, bar{X: x + group/2, Y: plotH + 36, Label: "depth " + d.Label})
	}
	return c
}

func verdictClass(v any) string {
	switch fmt.Sprint(v) {
	case string(scenarios.Pass), "PASS", "pass":
		return "pass"
	case string(scenarios.VFail), string(scenarios.Errored), "FAIL", "fail", "no-samples":
		return "fail"
	case string(scenarios.VNonStict):
		return "nonstrict"
	case string(scenarios.VHardened):
		return "hardened"
	}
	return "skip"
}

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"join":  strings.Join,
	"class": verdictClass,
	"chart": loadChart,
	"ms":    func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"judged": func(r *scenarios.Result) bool {
		return r.Verdict != scenarios.Pass && r.Verdict != scenarios.Skipped
	},
	"upper": strings.ToUpper,
	"dur":   func(d time.Duration) string { return d.Round(time.Millisecond).String() },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pagewalk report</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d2430}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #dde;padding-bottom:.3rem}
table{border-collapse:collapse;width:100%;margin:.8rem 0}th,td{border:1px solid #dde;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f5f9}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.badge{display:inline-block;padding:.1rem .5rem;border-radius:.6rem;font-weight:600;font-size:12px}
.pass{background:#dcf5e3;color:#0f5c2c}.fail{background:#fde0e0;color:#8a1212}.nonstrict{background:#fff2cc;color:#7a5600}
.hardened{background:#e6e3fb;color:#3d2c8d}.skip{background:#eceff3;color:#505a69}
.banner{font-size:1.3rem;padding:.6rem 1rem;border-radius:.4rem;margin:.8rem 0}
blockquote{margin:.4rem 0;padding:.2rem .8rem;border-left:3px solid #c5cbd6;color:#4a5568}
details{margin:.3rem 0}summary{cursor:pointer}
svg .p50{fill:#7aa7e0}svg .p99{fill:#2d5fa8}svg text{font-size:11px;fill:#333}
</style></head><body>
<h1>pagewalk report</h1>
{{with .Conformance}}
<h2>Conformance</h2>
<div class="banner {{class .Verdict}}">{{.Verdict}}: {{.Line}}</div>
<p>Target <b>{{.Target}}</b> ({{.CardURL}}), bindings {{join .Bindings ", "}}, profile <b>{{.Profile}}</b>{{if .Strict}}, strict{{end}}. pagewalk {{.Version}}, {{.Started.UTC.Format "2006-01-02 15:04:05Z"}}, took {{dur .Duration}}.</p>
<table><tr><th>Pass</th><th>Fail</th><th>Non-strict</th><th>Hardened</th><th>Error</th><th>Skipped</th></tr>
<tr><td>{{.Summary.Passed}}</td><td>{{.Summary.Failed}}</td><td>{{.Summary.NonStrict}}</td><td>{{.Summary.Hardened}}</td><td>{{.Summary.Errored}}</td><td>{{.Summary.Skipped}}</td></tr></table>
{{range .Cases}}{{if judged .}}
<h3><span class="badge {{class .Verdict}}">{{.Verdict}}</span> {{.ID}} [{{.Binding}}]</h3>
<p>{{.Title}}</p><blockquote>{{.Quote}}</blockquote>
{{if .Error}}<p><b>Error:</b> {{.Error}}</p>{{end}}
<ul>{{range .Findings}}<li><span class="badge {{class .Class}}">{{.Class}}</span> <code>{{join .Reqs ", "}}</code> {{.Message}}
{{if .Witness}}<details><summary>witness</summary><pre>{{.Witness}}</pre></details>{{end}}</li>{{end}}</ul>
{{end}}{{end}}
{{if .Skipped}}<h3>Requirements not checked</h3>
<table><tr><th>requirement</th><th>why</th><th>cases</th></tr>
{{range .Skipped}}<tr><td>{{.Requirement}}</td><td>{{join .Reasons "; "}}</td><td>{{join .Cases ", "}}</td></tr>{{end}}</table>{{end}}
<h3>All cases</h3>
<table><tr><th>case</th><th>binding</th><th>level</th><th>verdict</th><th>requirements</th><th>notes</th></tr>
{{range .Cases}}<tr><td><b>{{.ID}}</b><br>{{.Title}}</td><td>{{.Binding}}</td><td>{{.Level}}</td><td><span class="badge {{class .Verdict}}">{{.Verdict}}</span></td>
<td>{{join .Reqs ", "}}</td><td>{{.Skip}}{{range .Findings}}{{if eq (print .Class) "Info"}}<div>{{.Message}}</div>{{end}}{{end}}</td></tr>{{end}}
</table>
{{end}}
{{with .Load}}
<h2>Load</h2>
<div class="banner {{class .Verdict}}">{{upper .Verdict}}</div>
<p>Target <b>{{.Target}}</b>, binding {{.Binding}}, pageSize {{.PageSize}}; open-loop {{printf "%.0f" .Rate.PerSecond}}/s per depth for {{printf "%.0f" .DurationSeconds}}s; generators {{join .Generators ", "}}{{if .Seeded}}; seeded {{.Seeded}} tasks{{end}}.
Latency is timed from the intended send time (coordinated omission corrected); vegeta's uncorrected p99 stands beside it.</p>
{{$c := chart .}}
<svg width="{{$c.Width}}" height="{{$c.Height}}" role="img" aria-label="p50 and p99 latency by depth">
{{range $c.Bars}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Class}} {{.Value}}</title></rect>
<text x="{{.X}}" y="{{.Y}}" dy="-3">{{.Value}}</text>{{end}}
{{range $c.Ticks}}<text x="{{.X}}" y="{{.Y}}" text-anchor="middle">{{.Label}}</text>{{end}}
<rect class="p50" x="40" y="205" width="10" height="10"/><text x="54" y="214">p50</text><rect class="p99" x="90" y="205" width="10" height="10"/><text x="104" y="214">p99</text>
</svg>
<table><tr><th>depth</th><th>requests</th><th>errors</th><th>dropped</th><th>late</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th><th>vegeta p99 ms</th><th>throughput/s</th></tr>
{{range .Depths}}<tr><td>{{.Label}}</td><td>{{.Requests}}</td><td>{{.Errors}}</td><td>{{.Dropped}}</td><td>{{.Late}}</td><td>{{ms .Corrected.P50Ms}}</td><td>{{ms .Corrected.P90Ms}}</td><td>{{ms .Corrected.P99Ms}}</td><td>{{ms .Corrected.P999Ms}}</td><td>{{ms .Corrected.MaxMs}}</td><td>{{ms .Vegeta.P99Ms}}</td><td>{{printf "%.1f" .ThroughputPerSecond}}</td></tr>{{end}}
</table>
{{with .DepthRatio}}<p>Depth cost: p99(depth {{.DeepDepth}}) / p99(depth {{.FirstDepth}}) = <b>{{printf "%.2f" .Value}}</b> ({{ms .DeepP99Ms}} ms / {{ms .FirstP99Ms}} ms){{end}}{{with .Slope}}; slope {{printf "%.1f" .P50UsPer1000Pages}} µs (p50), {{printf "%.1f" .P99UsPer1000Pages}} µs (p99) per 1,000 pages{{end}}.</p>
<table><tr><th>threshold</th><th>limit</th><th>observed</th><th>samples</th><th>status</th></tr>
{{range .Thresholds}}<tr><td>{{.Name}}</td><td>{{.Limit}} {{.Unit}}</td><td>{{printf "%.3g" .Observed}} {{.Unit}}</td><td>{{.Samples}}</td><td><span class="badge {{class .Status}}">{{.Status}}</span></td></tr>{{end}}
</table>
{{range .Warnings}}<p>warning: {{.}}</p>{{end}}
{{end}}
<p style="color:#888;margin-top:3rem">Generated by pagewalk. Requirement IDs refer to a2a-listtasks-requirements.md.</p>
</body></html>
`))
