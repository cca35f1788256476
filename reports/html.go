package reports

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/loadgen"
	"github.com/pagewalk/pagewalk/scenarios"
)

// HTML writes the bundle as one self-contained HTML page: inline CSS and an
// inline SVG chart, no scripts, fonts or images from elsewhere, so it can
// be attached to a CI run and opened offline. Witnesses and messages are
// capped as in the other human-facing formats; the JSON report has them
// whole.
func (b Bundle) HTML(w io.Writer) error {
	v := htmlView{Bundle: b, RequirementsDoc: RequirementsDoc}
	if c := b.Conformance; c != nil {
		for _, r := range c.Cases {
			if judged(r) {
				v.Failing = append(v.Failing, caseViewOf(r))
			}
		}
	}
	if b.Load != nil && len(b.Load.Depths) > 0 {
		ch := layout(chartOf(b.Load))
		v.Chart = &ch
	}
	return pageTmpl.Execute(w, v)
}

// htmlView is what the page template renders.
type htmlView struct {
	Bundle
	Failing         []caseView
	Chart           *svgChart
	RequirementsDoc string
}

// maxHTMLFindings is how many findings of one case the page lists.
const maxHTMLFindings = 50

type caseView struct {
	R        *scenarios.Result
	Headline string
	Error    string
	Findings []findingView
	More     int
}

type findingView struct {
	Class, Reqs, Message, Witness string
	// Open shows the witness unfolded (the case's worst finding).
	Open bool
}

func caseViewOf(r *scenarios.Result) caseView {
	cv := caseView{R: r, Headline: Headline(r), Error: Cap(r.Error, WitnessCap)}
	worst, _, ok := scenarios.Worst(r.Findings)
	opened := false
	for i, f := range r.Findings {
		if i == maxHTMLFindings {
			cv.More = len(r.Findings) - i
			break
		}
		fv := findingView{Class: string(f.Class), Reqs: strings.Join(f.Reqs, ", "), Message: Cap(f.Message, MessageCap) + f.More(), Witness: Cap(f.Witness, WitnessCap)}
		if ok && !opened && f.Message == worst.Message && f.Class == worst.Class {
			fv.Open, opened = true, true
		}
		cv.Findings = append(cv.Findings, fv)
	}
	return cv
}

func verdictClass(v any) string {
	switch fmt.Sprint(v) {
	case string(scenarios.Pass), VerdictPass, "pass":
		return "pass"
	case string(scenarios.VFail), string(scenarios.Errored), VerdictFail, VerdictIncomplete, "fail", "no-samples":
		return "fail"
	case string(scenarios.VNonStict), "inconclusive":
		return "nonstrict"
	case string(scenarios.VHardened):
		return "hardened"
	}
	return "skip"
}

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"join":           strings.Join,
	"class":          verdictClass,
	"ms":             loadgen.FormatMsValue,
	"lat":            loadgen.FormatLatency,
	"count":          loadgen.FormatCount,
	"num":            loadgen.FormatNumber,
	"rate":           loadgen.FormatRate,
	"secs":           loadgen.FormatSeconds,
	"ratio":          loadgen.FormatRatio,
	"slope":          loadgen.FormatSlope,
	"limit":          func(t loadgen.ThresholdResult) string { return loadgen.FormatThreshold(t.Unit, t.Limit) },
	"observed":       observedOf,
	"uncorrectedP99": uncorrectedP99,
	"upper":          strings.ToUpper,
	"i64":            func(n int) int64 { return int64(n) },
	"pct":            func(f float64) float64 { return 100 * f },
	"dur":            func(d time.Duration) string { return d.Round(time.Millisecond).String() },
	"spec":           specOr,
	"info": func(r *scenarios.Result) []string {
		var out []string
		for _, f := range r.Findings {
			if f.Class == scenarios.ClassInfo {
				out = append(out, Cap(f.Message, MessageCap))
			}
		}
		return out
	},
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
.headline{font-weight:600}
blockquote{margin:.4rem 0;padding:.2rem .8rem;border-left:3px solid #c5cbd6;color:#4a5568}
details{margin:.3rem 0}summary{cursor:pointer}
svg text{font-size:11px;fill:#333}svg .axis{stroke:#888}svg .major{stroke:#ccd}svg .minor{stroke:#eef}
svg polyline{fill:none;stroke-width:2}svg polyline.p50{stroke:#7aa7e0}svg polyline.p90{stroke:#3f7fcf}svg polyline.p99{stroke:#173f7a}
svg circle.p50,svg rect.p50{fill:#7aa7e0}svg circle.p90,svg rect.p90{fill:#3f7fcf}svg circle.p99,svg rect.p99{fill:#173f7a}
svg .threshold{stroke:#c0392b;stroke-dasharray:6 4;stroke-width:1.5}svg text.threshold{fill:#c0392b;stroke:none}
</style></head><body>
<h1>pagewalk report</h1>
{{with .Conformance}}
<section id="conformance">
<h2>Conformance</h2>
<div id="verdict" class="banner {{class .Verdict}}">{{.Verdict}}: {{.Line}}</div>
{{with .Why}}<p class="headline">{{.}}</p>{{end}}
<p>Target <b>{{.Target}}</b> ({{.CardURL}}), bindings {{join .Bindings ", "}}, profile <b>{{.Profile}}</b>{{if .Strict}}, strict{{end}}{{if .FailOnSkip}}, fail on skip{{end}}. pagewalk {{.Version}}{{with .Commit}} (commit {{.}}){{end}}, checking {{spec .SpecVersion}}, {{.Started.UTC.Format "2006-01-02 15:04:05Z"}}, took {{dur .Duration}}.{{with .CardSHA256}} Agent Card sha256 <code>{{.}}</code>.{{end}}</p>
<table><tr><th>Pass</th><th>Fail</th><th>Non-strict</th><th>Hardened</th><th>Error</th><th>Skipped</th></tr>
<tr><td>{{.Summary.Passed}}</td><td>{{.Summary.Failed}}</td><td>{{.Summary.NonStrict}}</td><td>{{.Summary.Hardened}}</td><td>{{.Summary.Errored}}</td><td>{{.Summary.Skipped}}</td></tr></table>
{{end}}
{{range .Failing}}
<article class="failure" id="case-{{.R.ID}}-{{.R.Binding}}">
<h3><span class="badge {{class .R.Verdict}}">{{.R.Verdict}}</span> {{.R.ID}} [{{.R.Binding}}]</h3>
<p class="headline">{{.Headline}}</p>
<p>{{.R.Title}}</p><blockquote>{{.R.Quote}}</blockquote>
{{if .Error}}<p><b>Error:</b> {{.Error}}</p>{{end}}
<ul>{{range .Findings}}<li><span class="badge {{class .Class}}">{{.Class}}</span> <code>{{.Reqs}}</code> {{.Message}}
{{if .Witness}}<details class="witness"{{if .Open}} open{{end}}><summary>witness</summary><pre>{{.Witness}}</pre></details>{{end}}</li>{{end}}</ul>
{{if .More}}<p>{{.More}} more findings; the JSON report has them all.</p>{{end}}
</article>
{{end}}
{{with .Conformance}}
{{if .Skipped}}<h3>Requirements not checked</h3>
<table><tr><th>requirement</th><th>why</th><th>cases</th></tr>
{{range .Skipped}}<tr><td>{{.Requirement}}</td><td>{{join .Reasons "; "}}</td><td>{{join .Cases ", "}}</td></tr>{{end}}</table>{{end}}
<h3>All cases</h3>
<table><tr><th>case</th><th>binding</th><th>level</th><th>verdict</th><th>requirements</th><th>notes</th></tr>
{{range .Cases}}<tr><td><b>{{.ID}}</b><br>{{.Title}}</td><td>{{.Binding}}</td><td>{{.Level}}</td><td><span class="badge {{class .Verdict}}">{{.Verdict}}</span></td>
<td>{{join .Reqs ", "}}</td><td>{{.Skip}}{{range info .}}<div>{{.}}</div>{{end}}</td></tr>{{end}}
</table>
</section>
{{end}}
{{with .Load}}
<section id="load">
<h2>Load</h2>
<div id="load-verdict" class="banner {{class .Verdict}}">{{upper .Verdict}}</div>
<p>Target <b>{{.Target}}</b>, binding {{.Binding}}, pageSize {{.PageSize}}; open-loop {{rate .Rate.PerSecond}} per depth for {{secs .DurationSeconds}}; generators {{join .Generators ", "}}{{if .Seeded}}; seeded {{count (i64 .Seeded)}} tasks{{end}}.
Latency is timed from the intended send time (coordinated omission corrected); the uncorrected p99 (from the actual send) stands beside it in the table.</p>
{{end}}
{{with .Chart}}
<svg id="load-chart" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="corrected p50, p90 and p99 latency by page depth, log scale">
<title>corrected latency by page depth (log scale)</title>
{{range .Grid}}<line class="{{.Class}}" x1="{{$.Chart.Left}}" x2="{{$.Chart.Right}}" y1="{{.Y}}" y2="{{.Y}}"/><text x="{{.X}}" y="{{.Y}}" dx="-6" dy="4" text-anchor="end">{{.Label}}</text>{{end}}
<line class="axis" x1="{{.Left}}" x2="{{.Left}}" y1="{{.Top}}" y2="{{.Bottom}}"/><line class="axis" x1="{{.Left}}" x2="{{.Right}}" y1="{{.Bottom}}" y2="{{.Bottom}}"/>
<text x="14" y="{{.Top}}" dy="8" transform="rotate(-90 14 {{.Top}})" text-anchor="end">ms (log scale)</text>
{{range .XTicks}}<text x="{{.X}}" y="{{.Y}}" text-anchor="middle">{{.Label}}</text>{{end}}
{{range .Series}}<polyline class="{{.Class}}" points="{{.Points}}"/>{{$c := .Class}}{{range .Dots}}<circle class="{{$c}}" cx="{{.X}}" cy="{{.Y}}" r="3.5"><title>{{.Label}}</title></circle>{{end}}{{end}}
{{range .Lines}}<line class="threshold" x1="{{$.Chart.Left}}" x2="{{$.Chart.Right}}" y1="{{.Y}}" y2="{{.Y}}"/><text class="threshold" x="{{$.Chart.Right}}" y="{{.Y}}" dy="-4" text-anchor="end">{{.Label}}</text>{{end}}
{{range .Legend}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="12" height="4"/><text x="{{.X}}" y="{{.Y}}" dx="18" dy="5">{{.Label}}</text>{{end}}
</svg>
{{end}}
{{with .Load}}
<table><tr><th>depth</th><th>requests</th><th>errors</th><th>dropped</th><th>late</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th><th>uncorrected p99 ms</th><th>throughput/s</th></tr>
{{range .Depths}}<tr><td>{{.Label}}</td><td>{{count .Requests}}</td><td>{{count .Errors}}</td><td>{{count .Dropped}}</td><td>{{count .Late}}</td><td>{{ms .Corrected.P50Ms}}</td><td>{{ms .Corrected.P90Ms}}</td><td>{{ms .Corrected.P99Ms}}</td><td>{{ms .Corrected.P999Ms}}</td><td>{{ms .Corrected.MaxMs}}</td><td>{{ms (uncorrectedP99 .)}}</td><td>{{num .ThroughputPerSecond 1}}</td></tr>{{end}}
</table>
{{if .DepthShift}}{{with .DepthShift}}<p>Depth cost: median(depth {{.DeepDepth}}) / median(depth {{.BaseDepth}}) = <b>{{ratio .Ratio}}</b> ({{ms .DeepMedianMs}} ms / {{ms .BaseMedianMs}} ms), {{printf "%.0f" (pct .Confidence)}}% interval {{ratio .Lo}}–{{ratio .Hi}}, {{count (i64 .Base)}} and {{count (i64 .Deep)}} samples; p90 ratio {{ratio .P90Ratio}}{{end}}{{with .DepthRatio}}; p99 ratio {{ratio .Value}} (reported only){{end}}{{else}}{{with .DepthRatio}}<p>Depth cost: p99(depth {{.DeepDepth}}) / p99(depth {{.FirstDepth}}) = <b>{{ratio .Value}}</b> ({{ms .DeepP99Ms}} ms / {{ms .FirstP99Ms}} ms){{end}}{{end}}{{with .Slope}}; slope {{slope .P50UsPer1000Pages}} (p50), {{slope .P99UsPer1000Pages}} (p99){{end}}.</p>
{{range .Inconclusive}}<p>inconclusive: {{.}}</p>{{end}}
{{with .Sizes}}{{if .Skipped}}<p>Size study: skipped: {{.Skipped}}</p>{{else}}<p>Size study: page 1 and page {{.DeepDepth}} at each store size (tasks seeded by pagewalk in context {{.ContextID}}).</p>
<table><tr><th>tasks</th><th>depth</th><th>requests</th><th>errors</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th></tr>
{{range .Levels}}{{$n := .Tasks}}{{range .Depths}}<tr><td>{{count (i64 $n)}}</td><td>{{.Label}}</td><td>{{count .Requests}}</td><td>{{count .Errors}}</td><td>{{ms .Corrected.P50Ms}}</td><td>{{ms .Corrected.P90Ms}}</td><td>{{ms .Corrected.P99Ms}}</td></tr>{{end}}{{end}}
</table>
{{with .PageOne}}{{if and .Base .Deep}}<p>Page 1 at the largest size over the smallest: median ratio <b>{{ratio .Ratio}}</b> (interval {{ratio .Lo}}–{{ratio .Hi}}; {{lat .DeepMedianMs}} / {{lat .BaseMedianMs}}).</p>{{end}}{{end}}{{end}}{{end}}
<table><tr><th>threshold</th><th>limit</th><th>observed</th><th>samples</th><th>status</th></tr>
{{range .Thresholds}}<tr><td>{{.Name}}</td><td>{{limit .}}</td><td>{{observed .}}</td><td>{{count .Samples}}</td><td><span class="badge {{class .Status}}">{{.Status}}</span></td></tr>{{end}}
</table>
{{range .Warnings}}<p>warning: {{.}}</p>{{end}}
</section>
{{end}}
<p style="color:#888;margin-top:3rem">Generated by pagewalk. Requirement IDs are defined, with their level and the spec's words, in <a href="{{.RequirementsDoc}}">{{.RequirementsDoc}}</a> (in the pagewalk repository, and in a certification bundle).</p>
</body></html>
`))
