package suites

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeA2A is a small A2A 1.0 server written for these tests, independently
// of the reference: an in-memory store, a page token that is the base64 of
// "timestamp|id", its own clock. Knobs make its data degenerate (so that
// cases have nothing to judge) or give it exactly one defect.
type fakeA2A struct {
	// data knobs
	fixedTS   bool   // every task gets the same status timestamp
	precision string // "s": whole seconds; "" microseconds
	state     string // state of created tasks (default COMPLETED)
	history   bool   // created tasks keep their messages
	artifacts bool   // created tasks get one artifact
	// defect knobs (one at a time)
	absentToken   bool // the last page omits nextPageToken
	idOrder       bool // sorted by task id, not by status timestamp
	timestampOnly bool // the cursor holds the timestamp only (ties at a boundary are skipped)

	mu    sync.Mutex
	tasks []*fakeTask
	clock time.Time
	seq   int
}

type fakeTask struct {
	ID, Owner, Context, State string
	TS                        time.Time
	Messages                  []map[string]any
	Artifacts                 int
}

var fakePrincipals = map[string]string{"Bearer alice-token": "alice", "Bearer bob-token": "bob"}

func startFake(t *testing.T, f *fakeA2A) string {
	t.Helper()
	f.clock = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if f.state == "" {
		f.state = "TASK_STATE_COMPLETED"
	}
	mux := http.NewServeMux()
	var base string
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"name": "fake", "version": "1", "supportedInterfaces": []map[string]any{
			{"url": base + "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
			{"url": base, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}}})
	})
	mux.HandleFunc("POST /rpc", f.rpc)
	mux.HandleFunc("GET /tasks", func(w http.ResponseWriter, r *http.Request) { f.rest(w, r, "ListTasks", "") })
	mux.HandleFunc("GET /tasks/{id}", func(w http.ResponseWriter, r *http.Request) { f.rest(w, r, "GetTask", r.PathValue("id")) })
	mux.HandleFunc("POST /message:send", func(w http.ResponseWriter, r *http.Request) { f.rest(w, r, "SendMessage", "") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base = srv.URL
	return base
}

// fakeErr is an A2A error: a JSON-RPC code, an HTTP status, a field.
type fakeErr struct {
	code, status int
	field, msg   string
	reason       string // google.rpc.ErrorInfo reason for A2A errors
}

func (f *fakeA2A) rpc(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     any             `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	params := map[string]any{}
	var res any
	var e *fakeErr
	switch err := json.NewDecoder(r.Body).Decode(&req); {
	case err != nil:
		e = &fakeErr{code: -32700, status: 400, msg: "parse error"}
	case req.Method == "":
		e = &fakeErr{code: -32600, status: 400, msg: "invalid request: no method"}
	default:
		json.Unmarshal(req.Params, &params)
		res, e = f.call(r, req.Method, params)
	}
	w.Header().Set("Content-Type", "application/json")
	if e != nil {
		errObj := map[string]any{"code": e.code, "message": e.msg}
		if e.field != "" {
			errObj["data"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": []any{map[string]any{"field": e.field, "description": e.msg}}}}
		}
		if e.reason != "" {
			errObj["data"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": e.reason, "domain": "a2a-protocol.org"}}
		}
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": errObj})
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": res})
}

func (f *fakeA2A) rest(w http.ResponseWriter, r *http.Request, op, id string) {
	params := map[string]any{}
	if op == "SendMessage" {
		json.NewDecoder(r.Body).Decode(&params)
	}
	for k, v := range r.URL.Query() {
		params[k] = v[0]
	}
	if id != "" {
		params["id"] = id
	}
	res, e := f.call(r, op, params)
	w.Header().Set("Content-Type", "application/a2a+json")
	if e != nil {
		w.WriteHeader(e.status)
		body := map[string]any{"code": e.status, "status": "INVALID_ARGUMENT", "message": e.msg}
		if e.field != "" {
			body["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": []any{map[string]any{"field": e.field, "description": e.msg}}}}
		}
		switch e.code {
		case -32001:
			body["status"] = "NOT_FOUND"
		case -32009:
			body["status"] = "FAILED_PRECONDITION"
		case -32000:
			body["status"] = "UNAUTHENTICATED"
		}
		if e.reason != "" {
			body["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": e.reason, "domain": "a2a-protocol.org"}}
		}
		json.NewEncoder(w).Encode(map[string]any{"error": body})
		return
	}
	json.NewEncoder(w).Encode(res)
}

func invalid(field, format string, args ...any) *fakeErr {
	return &fakeErr{code: -32602, status: 400, field: field, msg: field + ": " + fmt.Sprintf(format, args...)}
}

func num(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		if x != float64(int(x)) {
			return 0, false
		}
		return int(x), true
	case string:
		n, err := strconv.Atoi(x)
		return n, err == nil
	}
	return 0, false
}

func (f *fakeA2A) call(r *http.Request, op string, p map[string]any) (any, *fakeErr) {
	owner, ok := fakePrincipals[r.Header.Get("Authorization")]
	if !ok {
		return nil, &fakeErr{code: -32000, status: 401, msg: "unauthenticated"}
	}
	if v := r.Header.Get("A2A-Version"); v != "1.0" && !strings.HasPrefix(v, "1.0.") {
		return nil, &fakeErr{code: -32009, status: 400, reason: "VERSION_NOT_SUPPORTED", msg: "A2A-Version: this server speaks 1.0 only, got " + strconv.Quote(v)}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch op {
	case "ListTasks":
		return f.list(owner, p)
	case "GetTask":
		for _, t := range f.tasks {
			if t.ID == p["id"] && t.Owner == owner {
				hl := -1
				if v, ok := p["historyLength"]; ok {
					n, ok := num(v)
					if !ok || n < 0 {
						return nil, invalid("historyLength", "must be a non-negative integer, got %v", v)
					}
					hl = n
				}
				return f.render(t, hl, true), nil
			}
		}
		return nil, &fakeErr{code: -32001, status: 404, reason: "TASK_NOT_FOUND", msg: "task not found"}
	case "SendMessage":
		msg, _ := p["message"].(map[string]any)
		if msg == nil {
			return nil, invalid("message", "is required")
		}
		ctx, _ := msg["contextId"].(string)
		f.seq++
		f.clock = f.clock.Add(1500 * time.Microsecond)
		ts := f.clock
		if f.fixedTS {
			ts = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		}
		if f.precision == "s" {
			ts = ts.Truncate(time.Second)
		}
		// Ids in no relation to time: a multiplicative hash of the sequence.
		t := &fakeTask{ID: fmt.Sprintf("f%08x", uint32(f.seq)*2654435761), Owner: owner, Context: ctx, State: f.state, TS: ts}
		if f.history {
			t.Messages = []map[string]any{msg, {"messageId": t.ID + "-reply", "role": "ROLE_AGENT", "parts": []any{map[string]any{"text": "ok"}}}}
		}
		if f.artifacts {
			t.Artifacts = 1
		}
		f.tasks = append(f.tasks, t)
		return map[string]any{"task": f.render(t, 0, true)}, nil
	}
	return nil, &fakeErr{code: -32601, status: 404, msg: "no such method"}
}

func (f *fakeA2A) render(t *fakeTask, historyLength int, artifacts bool) map[string]any {
	layout := "2006-01-02T15:04:05.000000Z"
	if f.precision == "s" {
		layout = "2006-01-02T15:04:05Z"
	}
	m := map[string]any{"id": t.ID, "contextId": t.Context, "status": map[string]any{"state": t.State, "timestamp": t.TS.UTC().Format(layout)}}
	if n := len(t.Messages); n > 0 && historyLength != 0 {
		if historyLength > 0 && historyLength < n {
			m["history"] = t.Messages[n-historyLength:]
		} else {
			m["history"] = t.Messages
		}
	}
	if artifacts && t.Artifacts > 0 {
		m["artifacts"] = []any{map[string]any{"artifactId": t.ID + "-a1", "parts": []any{map[string]any{"text": "out"}}}}
	}
	return m
}

func (f *fakeA2A) list(owner string, p map[string]any) (any, *fakeErr) {
	size := 50
	if v, ok := p["pageSize"]; ok {
		n, ok := num(v)
		if !ok || n < 1 || n > 100 {
			return nil, invalid("pageSize", "must be between 1 and 100, got %v", v)
		}
		size = n
	}
	hl := -1
	if v, ok := p["historyLength"]; ok {
		n, ok := num(v)
		if !ok || n < 0 {
			return nil, invalid("historyLength", "must be a non-negative integer, got %v", v)
		}
		hl = n
	}
	ctx, _ := p["contextId"].(string)
	if v, ok := p["contextId"]; ok {
		if _, isStr := v.(string); !isStr {
			return nil, invalid("contextId", "must be a string")
		}
	}
	names := []string{"TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
		"TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"}
	status := ""
	if v, ok := p["status"]; ok {
		// ProtoJSON: an enum is its name or its number.
		if n, isNum := v.(float64); isNum && n >= 0 && int(n) < len(names) && n == float64(int(n)) {
			v = names[int(n)]
		}
		st, _ := v.(string)
		if !slices.Contains(names, st) {
			return nil, invalid("status", "unknown state %v", v)
		}
		if st != "TASK_STATE_UNSPECIFIED" {
			status = st
		}
	}
	var after time.Time
	if v, ok := p["statusTimestampAfter"].(string); ok {
		a, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, invalid("statusTimestampAfter", "not a timestamp")
		}
		after = a
	}
	arts := p["includeArtifacts"] == true || p["includeArtifacts"] == "true"
	var sel []*fakeTask
	for _, t := range f.tasks {
		if t.Owner == owner && (ctx == "" || t.Context == ctx) && (status == "" || t.State == status) && !t.TS.Before(after) {
			sel = append(sel, t)
		}
	}
	less := func(a, b *fakeTask) bool {
		if f.idOrder {
			return a.ID > b.ID
		}
		if !a.TS.Equal(b.TS) {
			return a.TS.After(b.TS)
		}
		return a.ID > b.ID
	}
	sort.Slice(sel, func(i, j int) bool { return less(sel[i], sel[j]) })
	start := 0
	binding := fmt.Sprintf("%s|%s|%s|%v|%v|%v", owner, ctx, status, p["statusTimestampAfter"], p["historyLength"], arts)
	if tok, _ := p["pageToken"].(string); tok != "" {
		cur, ok := f.openToken(tok, binding)
		if !ok {
			return nil, invalid("pageToken", "not a page token of this server, or issued for another caller or filter set")
		}
		for start < len(sel) && !less(cur, sel[start]) {
			start++
		}
		for f.timestampOnly && start < len(sel) && !sel[start].TS.Before(cur.TS) {
			start++ // the defect: the cursor holds only the timestamp
		}
	}
	end := min(start+size, len(sel))
	var out []any
	for _, t := range sel[start:end] {
		out = append(out, f.render(t, hl, arts))
	}
	if out == nil {
		out = []any{}
	}
	res := map[string]any{"tasks": out, "pageSize": size, "totalSize": len(sel)}
	if end < len(sel) {
		last := sel[end-1]
		res["nextPageToken"] = f.sealToken(last, binding)
	} else if !f.absentToken {
		res["nextPageToken"] = ""
	}
	return res, nil
}

var fakeKey = []byte("fake-a2a-signing-key")

// sealToken signs the cursor (timestamp, id) bound to the caller and the
// filters: a page token as the seed article advises.
func (f *fakeA2A) sealToken(last *fakeTask, binding string) string {
	body := fmt.Sprintf("%d|%s|%s", last.TS.UnixNano(), last.ID, binding)
	m := hmac.New(sha256.New, fakeKey)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString([]byte(body)) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (f *fakeA2A) openToken(tok, binding string) (*fakeTask, bool) {
	b, s, ok := strings.Cut(tok, ".")
	if !ok {
		return nil, false
	}
	body, err1 := base64.RawURLEncoding.DecodeString(b)
	sum, err2 := base64.RawURLEncoding.DecodeString(s)
	m := hmac.New(sha256.New, fakeKey)
	m.Write(body)
	if err1 != nil || err2 != nil || !hmac.Equal(sum, m.Sum(nil)) {
		return nil, false
	}
	parts := strings.SplitN(string(body), "|", 3)
	if len(parts) != 3 || parts[2] != binding {
		return nil, false
	}
	ns, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil {
		return nil, false
	}
	return &fakeTask{TS: time.Unix(0, ns).UTC(), ID: parts[1]}, true
}
