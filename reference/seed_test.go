package reference

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// seedBody is a seed request body of n explicit tasks, produced as it is
// read, so the test itself never holds it. Every sampleEvery bytes it
// forces a collection and records the live heap: the peak is what the
// server kept while it read.
type seedBody struct {
	n, next  int
	pending  []byte
	produced int64
	lastMark int64
	peak     uint64
	done     bool
}

const sampleEvery = 1 << 20

func (b *seedBody) Read(p []byte) (int, error) {
	for len(b.pending) < len(p) && !b.done {
		switch {
		case b.next == b.n:
			b.pending = append(b.pending, `]}`...)
			b.done = true
			continue
		case b.next == 0:
			b.pending = append(b.pending, `{"tasks":[`...)
		default:
			b.pending = append(b.pending, ',')
		}
		b.pending = fmt.Appendf(b.pending, `{"id":"mem-%08d","owner":"alice","contextId":"ctx-%d","state":"TASK_STATE_COMPLETED","timestampMicros":%d}`,
			b.next, b.next%7, ts0-int64(b.next))
		b.next++
	}
	if len(b.pending) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.pending)
	b.pending = b.pending[:copy(b.pending, b.pending[n:])]
	b.produced += int64(n)
	if b.produced-b.lastMark >= sampleEvery {
		b.lastMark = b.produced
		b.peak = max(b.peak, liveHeap())
	}
	return n, nil
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSeedStreamsItsBody seeds 100,000 tasks (about 12 MB of JSON) in one
// request and checks that the live heap, sampled while the server reads
// the body, grows by well under the body's size: the body is decoded as a
// stream and inserted in batches, never held whole.
func TestSeedStreamsItsBody(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 100,000 tasks")
	}
	s := mustNew(t, WithDB(filepath.Join(t.TempDir(), "stream.db")), WithPrincipal("alice", "alice-token"), WithControlToken("ctl"))
	const n = 100_000
	body := &seedBody{n: n}
	req := httptest.NewRequest("POST", "/control/seed", body)
	req.Header.Set("Authorization", "Bearer ctl")
	rec := httptest.NewRecorder()
	base := liveHeap()
	s.Handler().ServeHTTP(rec, req)
	var reply struct{ Inserted int }
	if err := json.Unmarshal(rec.Body.Bytes(), &reply); err != nil || rec.Code != 200 || reply.Inserted != n {
		t.Fatalf("seed: %d %s", rec.Code, rec.Body)
	}
	growth := int64(body.peak) - int64(base)
	t.Logf("body %.1f MB; live heap %.1f MB before, peak %.1f MB while reading (growth %.2f MB)",
		float64(body.produced)/1e6, float64(base)/1e6, float64(body.peak)/1e6, float64(growth)/1e6)
	if growth > body.produced/8 {
		t.Errorf("the live heap grew by %d bytes while reading a %d-byte body: the seed is buffered, not streamed", growth, body.produced)
	}
	ts := &testServer{t, s}
	if got := ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1}).result(t)["totalSize"]; fmt.Sprint(got) != fmt.Sprint(n) {
		t.Errorf("totalSize after the seed: %v", got)
	}
	if !strings.HasPrefix(ts.rpc("alice-token", "GetTask", map[string]any{"id": "mem-00000000"}).result(t)["id"].(string), "mem-") {
		t.Error("first task missing")
	}
}
