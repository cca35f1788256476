package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// BenchmarkGenerator measures the generator's headroom: the full pipeline
// (vegeta open-loop attack, JSON-RPC classification, HDR and vegeta
// metrics, gob encoding) against a trivial ListTasks handler on loopback.
// It asks for 5,000, 7,500 and 10,000 requests/s for 2 s per iteration (the
// handler shares the machine's cores) and reports what was achieved
// (ok-req/s), the share of intended sends made, dropped and late sends, the
// generator's send lag p99 and the corrected p99; it asserts no timing.
//
//	go test -run '^$' -bench Generator -benchtime 3x ./loadgen
func BenchmarkGenerator(b *testing.B) {
	for _, rps := range []int{5000, 7500, 10000} {
		b.Run(strconv.Itoa(rps)+"/s", func(b *testing.B) { benchGenerator(b, rps) })
	}
}

func benchGenerator(b *testing.B, rps int) {
	reply := []byte(`{"jsonrpc":"2.0","id":"pw-1","result":{"tasks":[],"nextPageToken":"","pageSize":100}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
	}))
	defer srv.Close()
	client := &a2aclient.Client{HTTP: srv.Client(), Iface: a2aclient.Interface{Binding: a2aclient.JSONRPC, URL: srv.URL + "/jsonrpc"}, Token: "t"}
	h := NewHarvester(client, WithDepths(DepthSpec{Depths: []int{1}}))
	hv, err := h.Walk(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	tgt, _ := hv.Target(1)
	enc := vegeta.NewEncoder(io.Discard)
	const dur = 2 * time.Second
	var sent, ok, expected, dropped, late int64
	var span time.Duration
	var p99, lag99 float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		agg := NewAggregator(0)
		r := NewRunner(h, WithRate(Rate{rps, time.Second}), WithDuration(dur), WithResultSink(enc.Encode))
		start := time.Now()
		if err := r.Attack(context.Background(), Bucket{Depth: 1}, tgt, agg); err != nil {
			b.Fatal(err)
		}
		span += time.Since(start)
		d := agg.Depths()[0]
		sent += d.Requests
		ok += d.Successes
		expected += d.Expected
		dropped += d.Dropped
		late += d.Late
		p99 = max(p99, d.Corrected.P99Ms)
		lag99 = max(lag99, d.SendLag.P99Ms)
	}
	b.StopTimer()
	b.ReportMetric(float64(ok)/span.Seconds(), "ok-req/s")
	b.ReportMetric(float64(sent)/float64(expected)*100, "%sent")
	b.ReportMetric(float64(dropped), "dropped")
	b.ReportMetric(float64(late)/float64(max(sent, 1))*100, "%late")
	b.ReportMetric(float64(late), "late")
	b.ReportMetric(lag99, "lag-p99-ms")
	b.ReportMetric(p99, "p99-ms")
}
