package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// ts is a fixed base instant for seeded timestamps (2027-01-15T08:00:00Z).
const ts0 int64 = 1_800_000_000_000_000

// TestMain runs the tests, then removes the shared benchmark store.
func TestMain(m *testing.M) {
	code := m.Run()
	cleanupBench()
	os.Exit(code)
}

type testServer struct {
	t *testing.T
	s *Server
}

func newTestServer(t *testing.T, opts ...Option) *testServer {
	t.Helper()
	base := []Option{WithPrincipal("alice", "alice-token"), WithPrincipal("bob", "bob-token"), WithControlToken("ctl")}
	s, err := New(context.Background(), append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &testServer{t, s}
}

type resp struct {
	Code   int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

func (r resp) String() string { return fmt.Sprintf("%d %s", r.Code, r.Body) }

func (ts *testServer) do(method, path, token string, body any, hdr ...string) resp {
	ts.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req := httptest.NewRequest(method, path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("A2A-Version", "1.0")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	rec := httptest.NewRecorder()
	ts.s.Handler().ServeHTTP(rec, req)
	r := resp{Code: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	_ = dec.Decode(&r.JSON)
	return r
}

// rpc calls a JSON-RPC method as the principal whose token is given.
func (ts *testServer) rpc(token, method string, params any) resp {
	ts.t.Helper()
	return ts.do("POST", "/jsonrpc", token, map[string]any{"jsonrpc": "2.0", "id": "1", "method": method, "params": params})
}

func (ts *testServer) control(method, path string, body any) resp {
	ts.t.Helper()
	r := ts.do(method, "/control"+path, "ctl", body)
	if r.Code != 200 {
		ts.t.Fatalf("control %s %s: %s", method, path, r)
	}
	return r
}

// seed inserts tasks described compactly as id -> timestamp offset (µs from
// ts0) for the given owner, all in context ctx-1 and state COMPLETED.
func (ts *testServer) seed(tasks ...map[string]any) {
	ts.t.Helper()
	ts.control("POST", "/seed", map[string]any{"tasks": tasks})
}

func task(id, owner string, tsOff int64, extra ...any) map[string]any {
	m := map[string]any{"id": id, "owner": owner, "contextId": "ctx-1", "state": "TASK_STATE_COMPLETED", "timestampMicros": ts0 + tsOff}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

// result returns the JSON-RPC result object, failing on an error reply.
func (r resp) result(t *testing.T) map[string]any {
	t.Helper()
	res, ok := r.JSON["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %s", r)
	}
	return res
}

// rpcError returns the JSON-RPC error code and message.
func (r resp) rpcError(t *testing.T) (int, string) {
	t.Helper()
	e, ok := r.JSON["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error, got %s", r)
	}
	code, _ := e["code"].(json.Number).Int64()
	return int(code), e["message"].(string)
}

// fieldViolation returns the field named by a google.rpc.BadRequest detail
// of a JSON-RPC error (data) or an HTTP error (details).
func (r resp) fieldViolation() string {
	var details []any
	if e, ok := r.JSON["error"].(map[string]any); ok {
		if d, ok := e["data"].([]any); ok {
			details = d
		} else if d, ok := e["details"].([]any); ok {
			details = d
		}
	}
	for _, d := range details {
		m := d.(map[string]any)
		if m["@type"] == "type.googleapis.com/google.rpc.BadRequest" {
			return m["fieldViolations"].([]any)[0].(map[string]any)["field"].(string)
		}
	}
	return ""
}

func ids(res map[string]any) []string {
	var out []string
	for _, t := range res["tasks"].([]any) {
		out = append(out, t.(map[string]any)["id"].(string))
	}
	return out
}

// walk lists every page for token with params, returning all ids in order.
func (ts *testServer) walk(token string, params map[string]any) (all []string, pages int) {
	ts.t.Helper()
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	for {
		res := ts.rpc(token, "ListTasks", p).result(ts.t)
		all = append(all, ids(res)...)
		pages++
		next := res["nextPageToken"].(string)
		if next == "" {
			return all, pages
		}
		if pages > 10000 {
			ts.t.Fatal("runaway walk")
		}
		p["pageToken"] = next
	}
}
