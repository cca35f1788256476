package loadgen

import (
	"encoding/json"
	"time"
)

// SummaryKind and SummarySchemaVersion identify the JSON summary. The
// version changes only when a field is removed or changes meaning; new
// fields may be added within a version.
const (
	// SummaryKind is the summary's "kind" member.
	SummaryKind = "pagewalk-load-summary"
	// SummarySchemaVersion is the summary's "schemaVersion" member.
	SummarySchemaVersion = 1
)

// Summary is the stable JSON summary of a load run or a merge
// (docs/load.md documents every field). Latencies are in milliseconds,
// rates per second, slopes in microseconds per 1,000 pages.
type Summary struct {
	Kind          string `json:"kind"`
	SchemaVersion int    `json:"schemaVersion"`
	// Source is "load" for one generator's run, "merge" for a merge.
	Source string `json:"source"`
	// Tool is the pagewalk version that wrote the summary.
	Tool string `json:"tool,omitempty"`
	// Target is what was attacked: the --target of a load run, or the
	// endpoints found in the merged results.
	Target    string   `json:"target"`
	Endpoints []string `json:"endpoints"`
	Binding   string   `json:"binding"`
	Principal string   `json:"principal,omitempty"`
	PageSize  int      `json:"pageSize"`
	// Filters holds the list filters used (contextId, status).
	Filters map[string]string `json:"filters,omitempty"`
	// Rate is the intended open-loop rate per depth: one generator's for a
	// load run, the sum over generators for a merge.
	Rate RateInfo `json:"rate"`
	// DurationSeconds is the attack duration per depth.
	DurationSeconds float64  `json:"durationSeconds"`
	Generators      []string `json:"generators"`
	// Files lists the merged result files (merge only).
	Files []string `json:"files,omitempty"`
	// Seeded is the number of tasks seeded before the run (load only).
	Seeded int `json:"seeded,omitempty"`
	// Harvest describes the token walks (load only).
	Harvest *HarvestInfo `json:"harvest,omitempty"`
	// Depths holds the per-depth figures, shallowest first.
	Depths []DepthStats `json:"depths"`
	// SkippedDepths lists requested depths the list does not reach.
	SkippedDepths []int `json:"skippedDepths,omitempty"`
	// Slope is the least-squares depth cost; nil with fewer than two depths
	// with samples.
	Slope *Slope `json:"slope"`
	// DepthRatio is p99(deepest)/p99(first), corrected; nil when either
	// depth has no samples. Reported only: it decides nothing.
	DepthRatio *DepthRatio `json:"depthRatio"`
	// Sizes is the store-size study (pagewalk load --sizes), if asked for.
	Sizes *SizesResult `json:"sizes,omitempty"`
	// DepthShift is the depth cost the max-depth-ratio threshold judges:
	// median(deepest)/median(first) with its confidence interval (and the
	// p90 ratio beside it); nil when either depth has no samples.
	DepthShift *DepthShift `json:"depthShift"`
	// Schedule is how the depths were attacked: "interleaved" or
	// "sequential" (load only).
	Schedule string `json:"schedule,omitempty"`
	// Thresholds holds every threshold evaluated, in a fixed order.
	Thresholds []ThresholdResult `json:"thresholds"`
	// Verdict is "pass", "fail" or "inconclusive".
	Verdict string `json:"verdict"`
	// Inconclusive says, for each reason the data could not show a pass,
	// why and what would settle it.
	Inconclusive []string  `json:"inconclusive,omitempty"`
	Warnings     []string  `json:"warnings,omitempty"`
	Started      time.Time `json:"started"`
	Finished     time.Time `json:"finished"`
}

// RateInfo is an open-loop rate.
type RateInfo struct {
	// Spec is the rate as given (FREQ/PER), empty for a merge.
	Spec      string  `json:"spec,omitempty"`
	PerSecond float64 `json:"perSecond"`
}

// HarvestInfo describes the token walks of a load run.
type HarvestInfo struct {
	// Pages is the deepest page of the last walk.
	Pages int `json:"pages"`
	// LastPageReached is true when the walk ended on nextPageToken "".
	LastPageReached bool `json:"lastPageReached"`
	// Walks counts walks (more than one when tokens were re-harvested).
	Walks      int     `json:"walks"`
	TokenTTL   float64 `json:"tokenTtlSeconds"`
	TotalSize  *int    `json:"totalSize,omitempty"`
	WalkMillis float64 `json:"walkMillis"`
	// FirstPageMillis and DeepestPageMillis are the walk's own latency for
	// page 1 and for its deepest page (one request each: a hint only).
	FirstPageMillis   float64 `json:"firstPageMillis"`
	DeepestPageMillis float64 `json:"deepestPageMillis"`
	// StoppedBy says why the walk ended: "last-page", "max-pages",
	// "max-walk", "loop" (a nextPageToken came back that an earlier page
	// had issued) or "deepest-wanted" (no "last" in --depths).
	StoppedBy string `json:"stoppedBy"`
}

// DepthStats are the figures for one page depth.
type DepthStats struct {
	Depth int  `json:"depth"`
	Last  bool `json:"last"`
	// Label is "1000" or "10000 (last)".
	Label      string   `json:"label"`
	Attacks    []string `json:"attacks"`
	Generators []string `json:"generators"`
	// RatePerSecond is the intended rate: the sum of the attacks' rates.
	RatePerSecond   float64 `json:"ratePerSecond"`
	DurationSeconds float64 `json:"durationSeconds"`
	// Requests counts results received; Expected is rate × duration
	// summed over attacks; Dropped = max(Expected - Requests, 0): sends the
	// generator never made.
	Requests int64 `json:"requests"`
	Expected int64 `json:"expected"`
	Dropped  int64 `json:"dropped"`
	// Late counts requests sent more than LateAfter(interval) after their
	// intended time.
	Late      int64 `json:"late"`
	Successes int64 `json:"successes"`
	Errors    int64 `json:"errors"`
	// ErrorKinds counts errors by kind (see ErrorKind).
	ErrorKinds map[string]int64 `json:"errorKinds"`
	// ThroughputPerSecond is successes over the span from the first
	// attack's start to the last response.
	ThroughputPerSecond float64 `json:"throughputPerSecond"`
	// Corrected is the HDR histogram of successful requests, timed from
	// the intended send time (coordinated omission corrected).
	Corrected Latency `json:"corrected"`
	// Uncorrected is the same successful requests timed from their actual
	// send, in a second HDR histogram (same estimator as Corrected, so no
	// uncorrected percentile exceeds the corrected one).
	Uncorrected Latency `json:"uncorrected"`
	// Drift compares the corrected p50 of the first and the last third of
	// the schedule (nil without successes in both): a server that cannot
	// keep up with the rate queues requests, and its latency climbs as the
	// attack goes on.
	Drift *Drift `json:"drift,omitempty"`
	// SendLag is how far behind its intended time each request was sent
	// (all requests): the generator's own timer slack and backlog, which
	// Corrected includes and Vegeta does not.
	SendLag Latency `json:"sendLag"`
	// Vegeta is vegeta's own uncorrected Metrics over all results (errors
	// included, t-digest percentiles), kept for its status codes and byte
	// counts; the table shows Uncorrected instead.
	Vegeta VegetaStats `json:"vegeta"`
}

// Drift is a depth's corrected p50 early and late in its attack.
type Drift struct {
	// EarlyP50Ms is the p50 of requests intended in the first third of
	// their attack's schedule, LateP50Ms of those in the last third.
	EarlyP50Ms float64 `json:"earlyP50Ms"`
	LateP50Ms  float64 `json:"lateP50Ms"`
	// Early and Late count those requests.
	Early int64 `json:"early"`
	Late  int64 `json:"late"`
}

// Queued reports whether the latency climbed so much during the attack
// that the server was falling behind the schedule: the last third's p50
// more than twice the first third's and over 100 ms above it. Latency
// measured then is mostly time spent queued, shared by every depth.
func (d *Drift) Queued() bool {
	return d != nil && d.LateP50Ms > 2*d.EarlyP50Ms && d.LateP50Ms-d.EarlyP50Ms > 100
}

// Latency is a latency distribution in milliseconds.
type Latency struct {
	Samples int64   `json:"samples"`
	MinMs   float64 `json:"minMs"`
	MeanMs  float64 `json:"meanMs"`
	P50Ms   float64 `json:"p50Ms"`
	P90Ms   float64 `json:"p90Ms"`
	P99Ms   float64 `json:"p99Ms"`
	P999Ms  float64 `json:"p999Ms"`
	MaxMs   float64 `json:"maxMs"`
}

// VegetaStats are vegeta's Metrics figures, uncorrected.
type VegetaStats struct {
	Note                string         `json:"note"`
	Requests            int64          `json:"requests"`
	RatePerSecond       float64        `json:"ratePerSecond"`
	ThroughputPerSecond float64        `json:"throughputPerSecond"`
	Success             float64        `json:"success"`
	MeanMs              float64        `json:"meanMs"`
	P50Ms               float64        `json:"p50Ms"`
	P90Ms               float64        `json:"p90Ms"`
	P95Ms               float64        `json:"p95Ms"`
	P99Ms               float64        `json:"p99Ms"`
	MaxMs               float64        `json:"maxMs"`
	BytesIn             int64          `json:"bytesIn"`
	BytesOut            int64          `json:"bytesOut"`
	StatusCodes         map[string]int `json:"statusCodes"`
}

// Slope is the least-squares fit of corrected latency against depth.
type Slope struct {
	// P50UsPer1000Pages and P99UsPer1000Pages are the slopes in
	// microseconds per 1,000 pages of depth.
	P50UsPer1000Pages float64 `json:"p50UsPer1000Pages"`
	P99UsPer1000Pages float64 `json:"p99UsPer1000Pages"`
	// Depths lists the depths fitted.
	Depths []int `json:"depths"`
}

// DepthRatio is the corrected p99 of the deepest depth over the first.
type DepthRatio struct {
	Value      float64 `json:"value"`
	FirstDepth int     `json:"firstDepth"`
	DeepDepth  int     `json:"deepDepth"`
	FirstP99Ms float64 `json:"firstP99Ms"`
	DeepP99Ms  float64 `json:"deepP99Ms"`
}

// DepthShift is CompareDepths' comparison of the shallowest depth (the
// base) with the deepest; its JSON members are the Shift's and these.
type DepthShift struct {
	BaseDepth int `json:"baseDepth"`
	DeepDepth int `json:"deepDepth"`
	// DeepIsLast is true when the deepest depth is the list's last page.
	DeepIsLast bool `json:"deepIsLast"`
	Shift
}

// ThresholdResult is one threshold's evaluation.
type ThresholdResult struct {
	// Name is "max-depth-ratio", "max-p99" or "max-error-rate".
	Name string `json:"name"`
	// Limit and Observed are in the threshold's Unit.
	Limit    float64 `json:"limit"`
	Observed float64 `json:"observed"`
	// Low and High bound Observed (max-depth-ratio: its confidence
	// interval); absent for the other thresholds.
	Low  float64 `json:"low,omitempty"`
	High float64 `json:"high,omitempty"`
	Unit string  `json:"unit"`
	// Samples is the number of samples the observation rests on.
	Samples int64 `json:"samples"`
	// Status is "pass", "fail" (breached), "no-samples" (which fails) or
	// "inconclusive" (max-depth-ratio only: the data could not decide).
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Advice says, for an inconclusive status, what would settle it.
	Advice string `json:"advice,omitempty"`
}

// Passed reports whether the verdict is pass.
func (s *Summary) Passed() bool { return s.Verdict == VerdictPass }

// JSON renders the summary as indented JSON with a trailing newline.
func (s *Summary) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
