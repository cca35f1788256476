package loadgen

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// fakeA2A is a minimal A2A ListTasks server for tests: pages pages of
// tasks; the token after page d of walk w is "w<w>-d<d+1>"; a request
// without a token starts a new walk. It answers JSON-RPC at /jsonrpc and
// HTTP+JSON at GET /tasks, and tells the depth it served in the
// X-Served-Depth response header.
type fakeA2A struct {
	t     *testing.T
	pages int
	// short lists depths that return fewer tasks than pageSize (but still
	// a token), to prove the walk does not stop on a short page.
	short map[int]bool
	// errorAt makes every request for that depth fail with JSON-RPC
	// -32602 (or HTTP 400 on HTTP+JSON).
	errorAt map[int]bool
	// repeatAt makes page d return the token it was given.
	repeatAt int
	// cycleAt and cyclePeriod make page cycleAt hand back the token that
	// page cycleAt-cyclePeriod issued: a token cycle of that period.
	cycleAt, cyclePeriod int
	// onRequest runs for every request (e.g. to advance a fake clock).
	onRequest func()

	mu       sync.Mutex
	walks    int
	requests int
	byDepth  map[int]int
	fragment bool // a request URI carried a '#'
	srv      *httptest.Server
}

func newFake(t *testing.T, pages int) *fakeA2A {
	f := &fakeA2A{t: t, pages: pages, short: map[int]bool{}, errorAt: map[int]bool{}, byDepth: map[int]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jsonrpc", f.jsonrpc)
	mux.HandleFunc("GET /tasks", f.rest)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeA2A) client(b a2aclient.Binding) *a2aclient.Client {
	u := f.srv.URL + "/jsonrpc"
	if b == a2aclient.HTTPJSON {
		u = f.srv.URL
	}
	return &a2aclient.Client{HTTP: f.srv.Client(), Iface: a2aclient.Interface{Binding: b, URL: u}, Principal: "alice", Token: "alice-token"}
}

func (f *fakeA2A) stats() (walks, requests int, byDepth map[int]int, fragment bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[int]int{}
	for k, v := range f.byDepth {
		m[k] = v
	}
	return f.walks, f.requests, m, f.fragment
}

// page computes one reply: depth served, tasks, next token, or an error.
func (f *fakeA2A) page(r *http.Request, token string, pageSize int) (depth int, tasks []map[string]any, next string, fail bool) {
	if f.onRequest != nil {
		f.onRequest()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	if strings.Contains(r.RequestURI, "#") {
		f.fragment = true
	}
	if r.Header.Get("A2A-Version") != "1.0" || r.Header.Get("Authorization") != "Bearer alice-token" {
		f.t.Errorf("request without A2A-Version 1.0 or bearer token: %v", r.Header)
	}
	walk := f.walks
	depth = 1
	if token == "" {
		f.walks++
		walk = f.walks
	} else if _, err := fmt.Sscanf(token, "w%d-d%d", &walk, &depth); err != nil {
		f.t.Errorf("bad token %q", token)
	}
	f.byDepth[depth]++
	if f.errorAt[depth] {
		return depth, nil, "", true
	}
	n := pageSize
	if f.short[depth] {
		n = 1
	}
	for i := 0; i < n; i++ {
		tasks = append(tasks, map[string]any{"id": fmt.Sprintf("t-%d-%d", depth, i), "contextId": "c",
			"status": map[string]any{"state": "TASK_STATE_COMPLETED", "timestamp": time.Unix(1e9, 0).UTC().Format(time.RFC3339Nano)}})
	}
	switch {
	case depth == f.repeatAt:
		next = token
	case f.cyclePeriod > 0 && depth == f.cycleAt:
		next = fmt.Sprintf("w%d-d%d", walk, depth-f.cyclePeriod+1)
	case depth < f.pages:
		next = fmt.Sprintf("w%d-d%d", walk, depth+1)
	}
	return depth, tasks, next, false
}

func (f *fakeA2A) jsonrpc(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     any `json:"id"`
		Method string
		Params struct {
			PageToken string `json:"pageToken"`
			PageSize  int    `json:"pageSize"`
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "ListTasks" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	depth, tasks, next, fail := f.page(r, req.Params.PageToken, req.Params.PageSize)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Served-Depth", strconv.Itoa(depth))
	if fail {
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32602, "message": "pageToken expired"}})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
		"tasks": tasks, "nextPageToken": next, "pageSize": req.Params.PageSize, "totalSize": f.pages * req.Params.PageSize}})
}

func (f *fakeA2A) rest(w http.ResponseWriter, r *http.Request) {
	ps, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
	depth, tasks, next, fail := f.page(r, r.URL.Query().Get("pageToken"), ps)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Served-Depth", strconv.Itoa(depth))
	if fail {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 400, "status": "INVALID_ARGUMENT", "message": "pageToken expired"}})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"tasks": tasks, "nextPageToken": next, "pageSize": ps})
}

// fakeClock is a Clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
