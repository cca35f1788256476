package hostile_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// behaviour is one way a target misbehaves on ListTasks.
type behaviour string

// The hostile behaviours of issue 12, and the benign one.
const (
	benign        behaviour = "benign"
	hugeBody      behaviour = "50 MB body"
	endlessChain  behaviour = "endless chain of tokens"
	cycle3        behaviour = "cycle of period 3"
	slowReply     behaviour = "reply after 60 s"
	html502       behaviour = "HTML 502 page"
	truncatedJSON behaviour = "truncated JSON"
	closedMidBody behaviour = "connection closed mid-body"
	redirect      behaviour = "307 to another host"
	noContentType behaviour = "reply without Content-Type"
	densePages    behaviour = "endless 8 MB pages of tiny tasks"
	fatPages      behaviour = "endless 7 MB pages of 10,000 tasks"
)

// hugeBodyBytes is the size of the hugeBody reply.
const hugeBodyBytes = 50 << 20

// hostileTarget is an in-process A2A target (JSON-RPC and HTTP+JSON) that
// answers SendMessage and GetTask correctly from a small in-memory store and
// answers ListTasks with its behaviour. As benign it is a small correct
// ListTasks server: it stands as the other host a redirect points to, and
// it serves the no-Content-Type replies.
type hostileTarget struct {
	t    *testing.T
	how  behaviour
	srv  *httptest.Server
	to   string        // where redirect points (another server's base URL)
	hold chan struct{} // slowReply holds every ListTasks until this closes

	a2aRequests atomic.Int64

	mu    sync.Mutex
	tasks []fakeTask
	next  int
}

type fakeTask struct {
	ID, Context string
	TS          time.Time
}

// startTarget starts a target with behaviour how; to is the base URL a
// redirect points to. Cleanup releases held replies before closing.
func startTarget(t *testing.T, how behaviour, to string) *hostileTarget {
	h := &hostileTarget{t: t, how: how, to: to, hold: make(chan struct{})}
	base := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for i := range 30 {
		h.tasks = append(h.tasks, fakeTask{ID: fmt.Sprintf("seed-%02d", i), Context: "hostile-ctx", TS: base.Add(time.Duration(i) * time.Second)})
	}
	h.srv = httptest.NewServer(h)
	t.Cleanup(func() {
		close(h.hold)
		h.srv.Close()
	})
	return h
}

func (h *hostileTarget) URL() string { return h.srv.URL }

// ServeHTTP routes the Agent Card, the JSON-RPC endpoint (/jsonrpc) and the
// HTTP+JSON endpoints (/rest/...).
func (h *hostileTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/.well-known/agent-card.json":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"name": "hostile target (" + string(h.how) + ")",
			"supportedInterfaces": []any{
				map[string]any{"url": h.srv.URL + "/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
				map[string]any{"url": h.srv.URL + "/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
			},
		})
	case r.URL.Path == "/jsonrpc" && r.Method == http.MethodPost:
		h.a2aRequests.Add(1)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			rpcError(w, nil, -32700, "parse error")
			return
		}
		h.serveOp(w, r, req.Method, req.Params, func(result any) []byte {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
			return b
		}, func(code int, msg string) { rpcError(w, req.ID, code, msg) })
	case strings.HasPrefix(r.URL.Path, "/rest/"):
		h.a2aRequests.Add(1)
		op, params := restOp(r)
		h.serveOp(w, r, op, params, func(result any) []byte {
			b, _ := json.Marshal(result)
			return b
		}, func(code int, msg string) {
			status := map[int]int{-32602: 400, -32001: 404, -32601: 404}[code]
			w.Header().Set("Content-Type", "application/a2a+json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": msg}})
		})
	default:
		http.NotFound(w, r)
	}
}

func rpcError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

// restOp maps an HTTP+JSON request to its operation and JSON params.
func restOp(r *http.Request) (string, json.RawMessage) {
	path := strings.TrimPrefix(r.URL.Path, "/rest")
	switch {
	case path == "/tasks" && r.Method == http.MethodGet:
		p := map[string]any{}
		for k, v := range r.URL.Query() {
			if n, err := strconv.Atoi(v[0]); err == nil && k == "pageSize" {
				p[k] = n
			} else {
				p[k] = v[0]
			}
		}
		b, _ := json.Marshal(p)
		return "ListTasks", b
	case path == "/message:send" && r.Method == http.MethodPost:
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		return "SendMessage", b
	case strings.HasPrefix(path, "/tasks/") && r.Method == http.MethodGet:
		b, _ := json.Marshal(map[string]any{"id": strings.TrimPrefix(path, "/tasks/")})
		return "GetTask", b
	}
	return "unknown", nil
}

type listParams struct {
	ContextID string `json:"contextId"`
	PageSize  int    `json:"pageSize"`
	PageToken string `json:"pageToken"`
}

// serveOp answers one operation; wrap puts a result in the binding's
// envelope, fail sends an error.
func (h *hostileTarget) serveOp(w http.ResponseWriter, r *http.Request, op string, params json.RawMessage, wrap func(any) []byte, fail func(int, string)) {
	switch op {
	case "SendMessage":
		var p struct {
			Message struct {
				ContextID string `json:"contextId"`
			} `json:"message"`
		}
		json.Unmarshal(params, &p)
		h.mu.Lock()
		h.next++
		t := fakeTask{ID: fmt.Sprintf("sent-%04d", h.next), Context: p.Message.ContextID,
			TS: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h.next) * time.Millisecond)}
		if t.Context == "" {
			t.Context = "ctx-" + t.ID
		}
		h.tasks = append(h.tasks, t)
		h.mu.Unlock()
		writeJSON(w, wrap(map[string]any{"task": taskJSON(t)}))
	case "GetTask":
		var p struct {
			ID string `json:"id"`
		}
		json.Unmarshal(params, &p)
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, t := range h.tasks {
			if t.ID == p.ID {
				writeJSON(w, wrap(taskJSON(t)))
				return
			}
		}
		fail(-32001, "task not found")
	case "ListTasks":
		var p listParams
		if err := json.Unmarshal(params, &p); err != nil {
			fail(-32602, "params: "+err.Error())
			return
		}
		h.list(w, r, p, wrap)
	default:
		fail(-32601, "method not found: "+op)
	}
}

func writeJSON(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func taskJSON(t fakeTask) map[string]any {
	return map[string]any{"id": t.ID, "contextId": t.Context,
		"status": map[string]any{"state": "TASK_STATE_COMPLETED", "timestamp": t.TS.Format("2006-01-02T15:04:05.000000Z")}}
}

// page is the benign answer: the tasks of the context asked for (all when
// none), newest first, pageSize at a time, with an offset as the token.
func (h *hostileTarget) page(p listParams) (map[string]any, error) {
	h.mu.Lock()
	var ts []fakeTask
	for _, t := range h.tasks {
		if p.ContextID == "" || t.Context == p.ContextID {
			ts = append(ts, t)
		}
	}
	h.mu.Unlock()
	sort.Slice(ts, func(i, j int) bool {
		if !ts[i].TS.Equal(ts[j].TS) {
			return ts[i].TS.After(ts[j].TS)
		}
		return ts[i].ID > ts[j].ID
	})
	size := p.PageSize
	if size <= 0 {
		size = 50
	}
	off := 0
	if p.PageToken != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(p.PageToken, "o"))
		if err != nil || !strings.HasPrefix(p.PageToken, "o") || n < 0 || n > len(ts) {
			return nil, fmt.Errorf("invalid pageToken")
		}
		off = n
	}
	end := min(off+size, len(ts))
	out := []any{}
	for _, t := range ts[off:end] {
		out = append(out, taskJSON(t))
	}
	next := ""
	if end < len(ts) {
		next = fmt.Sprintf("o%d", end)
	}
	return map[string]any{"tasks": out, "nextPageToken": next, "pageSize": len(out), "totalSize": len(ts)}, nil
}

// streamPage writes a page whose tasks task(0), task(1), ... gives until it
// returns "", a task at a time, so that this process (whose peak RSS the
// children's figures include, see runPagewalk) stays small.
func streamPage(w http.ResponseWriter, wrap func(any) []byte, next string, task func(int) string) {
	env := string(wrap(map[string]any{"tasks": []any{}, "nextPageToken": next}))
	head, tail, _ := strings.Cut(env, "[]")
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(head + "[")
	for i := 0; ; i++ {
		t := task(i)
		if t == "" {
			break
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		if _, err := bw.WriteString(t); err != nil {
			return
		}
	}
	bw.WriteString("]" + tail)
	bw.Flush()
}

// list answers ListTasks with the target's behaviour.
func (h *hostileTarget) list(w http.ResponseWriter, r *http.Request, p listParams, wrap func(any) []byte) {
	benignBody := func() []byte {
		pg, err := h.page(p)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return nil
		}
		return wrap(pg)
	}
	switch h.how {
	case benign:
		if b := benignBody(); b != nil {
			writeJSON(w, b)
		}
	case noContentType:
		if b := benignBody(); b != nil {
			w.Header()["Content-Type"] = nil // and no sniffing either
			w.Write(b)
		}
	case hugeBody:
		// The body goes out chunked (no Content-Length), 64 KiB at a time,
		// so only reading it reveals its size.
		w.Header().Set("Content-Type", "application/json")
		env := string(wrap(map[string]any{"tasks": []any{}, "nextPageToken": ""}))
		head, tail, _ := strings.Cut(env, "[]")
		task, _ := json.Marshal(taskJSON(fakeTask{ID: strings.Repeat("x", 200), Context: "hostile-ctx", TS: time.Now()}))
		chunk := []byte(strings.Repeat(string(task)+",", (64<<10)/(len(task)+1)))
		io.WriteString(w, head+"[")
		for sent := 0; sent < hugeBodyBytes; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		io.WriteString(w, string(task)+"]"+tail)
	case endlessChain:
		n := 0
		if p.PageToken != "" {
			n, _ = strconv.Atoi(strings.TrimPrefix(p.PageToken, "chain-"))
		}
		t := fakeTask{ID: fmt.Sprintf("chain-task-%07d", n), Context: p.ContextID, TS: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(n) * time.Second)}
		writeJSON(w, wrap(map[string]any{"tasks": []any{taskJSON(t)}, "nextPageToken": fmt.Sprintf("chain-%d", n+1), "pageSize": 1}))
	case densePages:
		n := 0
		if p.PageToken != "" {
			n, _ = strconv.Atoi(strings.TrimPrefix(p.PageToken, "dense-"))
		}
		size := 0 // just under the 8 MiB cap
		streamPage(w, wrap, fmt.Sprintf("dense-%d", n+1), func(i int) string {
			t := fmt.Sprintf(`{"id":"%d-%d","status":{}}`, n, i)
			if size += len(t) + 1; size >= 8<<20-4096 {
				return ""
			}
			return t
		})
	case fatPages:
		// Within both the reply cap and the task cap: only a budget on what a
		// walk keeps bounds this.
		n := 0
		if p.PageToken != "" {
			n, _ = strconv.Atoi(strings.TrimPrefix(p.PageToken, "fat-"))
		}
		pad := strings.Repeat("p", 700)
		streamPage(w, wrap, fmt.Sprintf("fat-%d", n+1), func(i int) string {
			if i == 10_000 {
				return ""
			}
			return fmt.Sprintf(`{"id":"%d-%d","status":{"state":"TASK_STATE_COMPLETED"},"metadata":{"pad":"%s"}}`, n, i, pad)
		})
	case cycle3:
		next := map[string]string{"": "a", "a": "b", "b": "c", "c": "a"}[p.PageToken]
		t := fakeTask{ID: "cycle-task-" + next, Context: p.ContextID, TS: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		writeJSON(w, wrap(map[string]any{"tasks": []any{taskJSON(t)}, "nextPageToken": next, "pageSize": 1}))
	case slowReply:
		// "A reply after 60 s": held until the client gives up or the test
		// ends; nothing here sleeps.
		select {
		case <-h.hold:
		case <-r.Context().Done():
			return
		}
		if b := benignBody(); b != nil {
			writeJSON(w, b)
		}
	case html502:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
	case truncatedJSON:
		if b := benignBody(); b != nil {
			writeJSON(w, b[:len(b)/2])
		}
	case closedMidBody:
		b := benignBody()
		if b == nil {
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			h.t.Errorf("hijack: %v", err)
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(b))
		buf.Write(b[:len(b)/2])
		buf.Flush()
		conn.Close()
	case redirect:
		http.Redirect(w, r, h.to+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}
}
