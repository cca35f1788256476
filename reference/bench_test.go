package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// seedGenerate seeds n tasks for alice through the control API handler.
func seedGenerate(tb testing.TB, s *Server, n int, prefix string) {
	tb.Helper()
	for done := 0; done < n; {
		batch := min(100_000, n-done)
		body := fmt.Sprintf(`{"generate":{"count":%d,"owner":"alice","idPrefix":"%s%d-","startMicros":%d,"stepMicros":-1000}}`,
			batch, prefix, done, 1_800_000_000_000_000-int64(done)*1000)
		req := httptest.NewRequest("POST", "/control/seed", bytes.NewBufferString(body))
		req.Header.Set("Authorization", "Bearer ctl")
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != 200 {
			tb.Fatalf("seed: %d %s", rec.Code, rec.Body)
		}
		done += batch
	}
}

func benchServer(tb testing.TB, db string) *Server {
	s, err := New(context.Background(), WithDB(db), WithPrincipal("alice", "alice-token"), WithPrincipal("bob", "bob-token"), WithControlToken("ctl"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkSeed measures bulk seeding through the control API, in batches
// of 100,000 tasks per request (one transaction each), into a file database.
func BenchmarkSeed(b *testing.B) {
	s := benchServer(b, filepath.Join(b.TempDir(), "seed.db"))
	b.ResetTimer()
	seedGenerate(b, s, b.N*100_000, "b")
	b.StopTimer()
	b.ReportMetric(float64(b.N*100_000)/b.Elapsed().Seconds(), "tasks/s")
}

// depthStore is a 1M-task file store shared by the ListTasks benchmarks.
var depthStore struct {
	s   *Server
	dir string
}

const depthStoreTasks = 1_000_000

func depthServer(b *testing.B) *Server {
	if depthStore.s == nil {
		dir, err := os.MkdirTemp("", "pagewalk-bench-")
		if err != nil {
			b.Fatal(err)
		}
		s, err := New(context.Background(), WithDB(filepath.Join(dir, "depth.db")), WithPrincipal("alice", "alice-token"), WithControlToken("ctl"))
		if err != nil {
			b.Fatal(err)
		}
		seedGenerate(b, s, depthStoreTasks, "d")
		depthStore.s, depthStore.dir = s, dir
	}
	return depthStore.s
}

// cleanupBench removes the shared benchmark store (TestMain calls it).
func cleanupBench() {
	if depthStore.s != nil {
		depthStore.s.Close()
		os.RemoveAll(depthStore.dir)
	}
}

// pageRequest builds the JSON-RPC ListTasks request for page depth (1 is
// the first page) of 100 tasks, with a token minted for the row that ends
// page depth-1, exactly as the server would have issued it.
func pageRequest(b *testing.B, s *Server, depth int) []byte {
	p := ListParams{PageSize: 100, PageSizeSet: true, HistorySet: true}
	params := map[string]any{"pageSize": 100, "historyLength": 0}
	if depth > 1 {
		var ts int64
		var id string
		err := s.store.r.QueryRow(`SELECT ts_us, id FROM tasks WHERE owner = 'alice' AND tenant = '' ORDER BY ts_us DESC, id DESC LIMIT 1 OFFSET ?`, (depth-1)*100-1).Scan(&ts, &id)
		if err != nil {
			b.Fatal(err)
		}
		params["pageToken"] = s.seams.codec.Encode(Claims{Cursor: keysetCursor(taskRow{TS: ts, ID: id}), Principal: "alice",
			FilterHash: p.filterHash(), Expires: s.now() + 3600e6, TotalSize: depthStoreTasks}, s.keys)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": params})
	return body
}

func servePage(b *testing.B, s *Server, body []byte) {
	req := httptest.NewRequest("POST", "/jsonrpc", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer alice-token")
	req.Header.Set("A2A-Version", "1.0")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 || bytes.Contains(rec.Body.Bytes(), []byte(`"error"`)) {
		b.Fatalf("ListTasks: %d %s", rec.Code, rec.Body)
	}
}

// BenchmarkListTasks serves one 100-task page at depth 1, 100 and 10,000
// pages of a 1M-task SQLite store, through the JSON-RPC handler.
func BenchmarkListTasks(b *testing.B) {
	s := depthServer(b)
	for _, depth := range []int{1, 100, 10_000} {
		body := pageRequest(b, s, depth)
		servePage(b, s, body) // warm the count cache and the page cache
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			for b.Loop() {
				servePage(b, s, body)
			}
		})
	}
}

// BenchmarkListTasksDepthRatio serves the depth-1 and depth-10,000 pages
// alternately, side by side in one loop, and reports their mean cost and the
// deep/shallow ratio.
func BenchmarkListTasksDepthRatio(b *testing.B) {
	s := depthServer(b)
	shallow, deep := pageRequest(b, s, 1), pageRequest(b, s, 10_000)
	servePage(b, s, shallow)
	servePage(b, s, deep)
	var ts, td time.Duration
	for b.Loop() {
		t0 := time.Now()
		servePage(b, s, shallow)
		t1 := time.Now()
		servePage(b, s, deep)
		ts += t1.Sub(t0)
		td += time.Since(t1)
	}
	b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "shallow-ns/page")
	b.ReportMetric(float64(td.Nanoseconds())/float64(b.N), "deep-ns/page")
	b.ReportMetric(float64(td)/float64(ts), "deep/shallow")
}
