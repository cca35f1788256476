package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestAgentCard(t *testing.T) {
	ts := newTestServer(t)
	r := ts.do("GET", "/.well-known/agent-card.json", "", nil)
	if r.Code != 200 {
		t.Fatal(r)
	}
	var card struct {
		Name                string `json:"name"`
		SupportedInterfaces []struct {
			URL, ProtocolBinding, ProtocolVersion string
		} `json:"supportedInterfaces"`
		Capabilities struct {
			Extensions []struct {
				URI    string            `json:"uri"`
				Params map[string]string `json:"params"`
			} `json:"extensions"`
		} `json:"capabilities"`
		Skills []any `json:"skills"`
	}
	if err := json.Unmarshal(r.Body, &card); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, i := range card.SupportedInterfaces {
		if i.ProtocolVersion != "1.0" {
			t.Errorf("interface %v: protocolVersion %q", i, i.ProtocolVersion)
		}
		got[i.ProtocolBinding] = i.URL
	}
	if got["JSONRPC"] != "http://example.com/jsonrpc" || got["HTTP+JSON"] != "http://example.com" {
		t.Errorf("interfaces = %v", got)
	}
	if len(card.Capabilities.Extensions) != 1 || card.Capabilities.Extensions[0].URI != ControlExtensionURI ||
		card.Capabilities.Extensions[0].Params["url"] != "http://example.com/control" {
		t.Errorf("control extension = %+v", card.Capabilities.Extensions)
	}
	// Without a control token there is no extension and no control API.
	plain := &testServer{t, mustNew(t, WithPrincipal("a", "b"))}
	if strings.Contains(string(plain.do("GET", "/.well-known/agent-card.json", "", nil).Body), "control") {
		t.Error("control extension advertised while the control API is off")
	}
	if r := plain.do("POST", "/control/reset", "", nil); r.Code == 200 {
		t.Error("control API reachable while off")
	}
}

func mustNew(t *testing.T, opts ...Option) *Server {
	s, err := New(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestVersionHeader(t *testing.T) {
	ts := newTestServer(t)
	for _, c := range []struct {
		version string
		ok      bool
	}{{"1.0", true}, {"1.0.3", true}, {" 1.0 ", true}, {"", false}, {"0.3", false}, {"2.0", false}, {"1", false}} {
		r := ts.do("POST", "/jsonrpc", "alice-token", `{"jsonrpc":"2.0","id":1,"method":"ListTasks"}`, "A2A-Version", c.version)
		if _, isErr := r.JSON["error"]; isErr == c.ok {
			t.Errorf("A2A-Version %q: %s", c.version, r)
		}
		if !c.ok {
			if code, _ := r.rpcError(t); code != -32009 {
				t.Errorf("A2A-Version %q: code %d, want -32009 VersionNotSupported", c.version, code)
			}
		}
		h := ts.do("GET", "/tasks", "alice-token", nil, "A2A-Version", c.version)
		if (h.Code == 200) != c.ok || (!c.ok && !strings.Contains(string(h.Body), "VERSION_NOT_SUPPORTED")) {
			t.Errorf("HTTP A2A-Version %q: %s", c.version, h)
		}
	}
	// The version may come as a request parameter instead (LT-VER-2).
	if r := ts.do("GET", "/tasks?A2A-Version=1.0", "alice-token", nil, "A2A-Version", ""); r.Code != 200 {
		t.Errorf("A2A-Version query parameter: %s", r)
	}
}

func TestAuthentication(t *testing.T) {
	ts := newTestServer(t)
	for _, token := range []string{"", "nobody"} {
		r := ts.rpc(token, "ListTasks", nil)
		if r.Code != 401 || r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("JSON-RPC token %q: %s", token, r)
		}
		if code, msg := r.rpcError(t); code != -32000 || !strings.Contains(msg, "Authorization") {
			t.Errorf("JSON-RPC token %q: %d %s", token, code, msg)
		}
		h := ts.do("GET", "/tasks", token, nil)
		if h.Code != 401 || !strings.Contains(string(h.Body), "UNAUTHENTICATED") {
			t.Errorf("HTTP token %q: %s", token, h)
		}
	}
	// The control token is not a principal token, and vice versa.
	if r := ts.rpc("ctl", "ListTasks", nil); r.Code != 401 {
		t.Errorf("control token as principal: %s", r)
	}
	if r := ts.do("POST", "/control/reset", "alice-token", nil); r.Code != 401 {
		t.Errorf("principal token on control API: %s", r)
	}
}

func TestJSONRPCEnvelope(t *testing.T) {
	ts := newTestServer(t)
	for _, c := range []struct {
		body string
		code int
	}{
		{`{`, -32700},
		{`[{"jsonrpc":"2.0","id":1,"method":"ListTasks"}]`, -32600},
		{`{"jsonrpc":"1.0","id":1,"method":"ListTasks"}`, -32600},
		{`{"jsonrpc":"2.0","id":1}`, -32600},
		{`{"jsonrpc":"2.0","id":{},"method":"ListTasks"}`, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/list"}`, -32601},
		{`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":[1]}`, -32602},
		{`{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}`, -32004},
	} {
		r := ts.do("POST", "/jsonrpc", "alice-token", c.body)
		if code, _ := r.rpcError(t); code != c.code {
			t.Errorf("%s: code %d, want %d", c.body, code, c.code)
		}
	}
	// Unknown fields are ignored (LT-JSON-4).
	ts.rpc("alice-token", "ListTasks", map[string]any{"somethingNew": 1}).result(t)
	// A notification gets no reply.
	if r := ts.do("POST", "/jsonrpc", "alice-token", `{"jsonrpc":"2.0","method":"ListTasks"}`); r.Code != 204 {
		t.Errorf("notification: %s", r)
	}
	if r := ts.do("GET", "/jsonrpc", "alice-token", nil); r.Code != 405 {
		t.Errorf("GET /jsonrpc: %s", r)
	}
}

func TestRESTRoutes(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("a", "alice", 1, "state", "TASK_STATE_WORKING"), task("t", "alice", 1, "tenant", "acme", "state", "TASK_STATE_WORKING"))
	for _, c := range []struct {
		method, path string
		body         any
		code         int
	}{
		{"GET", "/tasks", nil, 200},
		{"GET", "/tasks/a", nil, 200},
		{"GET", "/acme/tasks", nil, 200},
		{"GET", "/acme/tasks/t", nil, 200},
		{"GET", "/acme/tasks/a", nil, 404},
		{"POST", "/tasks", nil, 405},
		{"GET", "/nowhere/else/at/all", nil, 404},
		{"POST", "/acme/tasks/t:cancel", "{}", 200},
		{"POST", "/acme/tasks/t:cancel", "{}", 400}, // already canceled
		{"POST", "/tasks/a:cancel", nil, 200},
		{"POST", "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`, 200},
		{"POST", "/acme/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`, 200},
		{"POST", "/message:send", `{"message":{"role":"ROLE_USER","parts":[{"text":"hi"}]}}`, 400},
		{"POST", "/message:send", `not json`, 400},
	} {
		r := ts.do(c.method, c.path, "alice-token", c.body)
		if r.Code != c.code {
			t.Errorf("%s %s: %s, want %d", c.method, c.path, r, c.code)
		}
		if r.Code >= 400 {
			e, ok := r.JSON["error"].(map[string]any)
			if !ok || e["status"] == nil || e["message"] == nil {
				t.Errorf("%s %s: error body is not google.rpc.Status: %s", c.method, c.path, r)
			}
		}
	}
	if r := ts.do("POST", "/tasks/a:cancel", "alice-token", nil); !strings.Contains(string(r.Body), "TASK_NOT_CANCELABLE") {
		t.Errorf("cancel twice: %s", r)
	}
}

func TestAgentOutcomes(t *testing.T) {
	ts := newTestServer(t)
	send := func(text string, extra map[string]any) map[string]any {
		msg := map[string]any{"messageId": "m-" + text, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
		for k, v := range extra {
			msg[k] = v
		}
		return ts.rpc("alice-token", "SendMessage", map[string]any{"message": msg}).result(t)["task"].(map[string]any)
	}
	for text, want := range map[string]string{
		"hello": "TASK_STATE_COMPLETED", "please fail": "TASK_STATE_FAILED",
		"need input": "TASK_STATE_INPUT_REQUIRED", "keep working": "TASK_STATE_WORKING",
	} {
		tk := send(text, nil)
		if st := tk["status"].(map[string]any)["state"]; st != want {
			t.Errorf("%q: state %v, want %s", text, st, want)
		}
		if h := tk["history"].([]any); len(h) != 2 {
			t.Errorf("%q: history %v", text, h)
		}
	}
	// A follow-up message moves a task: new state, new timestamp, longer
	// history, same context.
	ts.control("POST", "/clock", map[string]any{"now": FormatTimestamp(ts0)})
	w := send("work", map[string]any{"contextId": "ctx-9"})
	ts.control("POST", "/clock", map[string]any{"advance": "1s"})
	done := send("finish", map[string]any{"taskId": w["id"]})
	if done["id"] != w["id"] || done["contextId"] != "ctx-9" || len(done["history"].([]any)) != 4 ||
		done["status"].(map[string]any)["timestamp"] != FormatTimestamp(ts0+1e6) {
		t.Errorf("follow-up: %v", done)
	}
	r := ts.rpc("alice-token", "SendMessage", map[string]any{"message": map[string]any{"messageId": "x", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "more"}}, "taskId": w["id"]}})
	if code, _ := r.rpcError(t); code != -32004 {
		t.Errorf("message to terminal task: %s", r)
	}
	// configuration.historyLength trims the returned task.
	r = ts.rpc("alice-token", "SendMessage", map[string]any{"message": map[string]any{"messageId": "y", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "hi"}}}, "configuration": map[string]any{"historyLength": 0}})
	if _, ok := r.result(t)["task"].(map[string]any)["history"]; ok {
		t.Error("configuration.historyLength 0: history present")
	}
	r = ts.rpc("alice-token", "SendMessage", map[string]any{"message": map[string]any{"messageId": "y", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "hi"}}}, "configuration": map[string]any{"historyLength": -2}})
	if r.fieldViolation() != "configuration.historyLength" {
		t.Errorf("negative configuration.historyLength: %s", r)
	}
}

func TestRateLimit(t *testing.T) {
	ts := newTestServer(t, WithRateLimit(0.001, 2))
	for i := 0; i < 2; i++ {
		ts.rpc("alice-token", "ListTasks", nil).result(t)
	}
	r := ts.rpc("alice-token", "ListTasks", nil)
	if r.Code != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("third call: %s %v", r, r.Header)
	}
	if code, msg := r.rpcError(t); code != -32000 || !strings.Contains(msg, "rate limit") {
		t.Errorf("JSON-RPC rate limit error: %d %q", code, msg)
	}
	if h := ts.do("GET", "/tasks", "alice-token", nil); h.Code != 429 || !strings.Contains(string(h.Body), "RESOURCE_EXHAUSTED") {
		t.Errorf("HTTP rate limit: %s", h)
	}
	// Limits are per principal.
	ts.rpc("bob-token", "ListTasks", nil).result(t)
	// Off by default.
	free := newTestServer(t)
	for i := 0; i < 50; i++ {
		free.rpc("alice-token", "ListTasks", nil).result(t)
	}
}

func TestRequestLog(t *testing.T) {
	var buf bytes.Buffer
	ts := newTestServer(t, WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	ts.seed(task("a", "alice", 2), task("b", "alice", 1))
	ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1}).result(t)
	ts.rpc("alice-token", "ListTasks", map[string]any{"pageToken": "garbage"})
	var lines []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("want one line per request (3), got %d", len(lines))
	}
	ok, bad := lines[1], lines[2]
	if ok["principal"] != "alice" || ok["method"] != "ListTasks" || ok["rows"] != 1.0 {
		t.Errorf("log line: %v", ok)
	}
	if bad["token_error"] != "malformed" || bad["error_code"] != -32602.0 {
		t.Errorf("token error log line: %v", bad)
	}
}
