package reference

import (
	"strings"
	"testing"
)

// edgeCode is the JSON-RPC error code of a reply (0 for a result).
func (r resp) edgeCode() int {
	e, ok := r.JSON["error"].(map[string]any)
	if !ok {
		return 0
	}
	if n, ok := e["code"].(interface{ Int64() (int64, error) }); ok {
		c, _ := n.Int64()
		return int(c)
	}
	return 0
}

// edgeServed reports whether a JSON-RPC reply carries a result.
func (r resp) edgeServed() bool { _, ok := r.JSON["result"]; return ok && r.Code == 200 }

// edgeCardInterfaces returns the card's supportedInterfaces.
func (ts *testServer) edgeCardInterfaces() []map[string]any {
	ts.t.Helper()
	r := ts.do("GET", "/.well-known/agent-card.json", "", nil)
	var out []map[string]any
	for _, i := range r.JSON["supportedInterfaces"].([]any) {
		out = append(out, i.(map[string]any))
	}
	return out
}

// TestProtocolFaults shows, for each protocol-edge fault mode, the one
// request whose answer it changes: the probe must see the defect on the
// faulty server and not on the clean one.
func TestProtocolFaults(t *testing.T) {
	list := map[string]any{"pageSize": 2}
	probes := map[Fault]func(ts *testServer) bool{
		"card-interface-missing-version": func(ts *testServer) bool {
			for _, i := range ts.edgeCardInterfaces() {
				if _, ok := i["protocolVersion"]; !ok {
					return i["protocolBinding"] == "HTTP+JSON"
				}
			}
			return false
		},
		"card-dead-interface": func(ts *testServer) bool {
			for _, i := range ts.edgeCardInterfaces() {
				path := strings.TrimPrefix(i["url"].(string), "http://example.com")
				if i["protocolBinding"] == "JSONRPC" && !ts.do("POST", path, "alice-token",
					map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": list}).edgeServed() {
					return true
				}
			}
			return false
		},
		"version-absent-as-1.0": func(ts *testServer) bool {
			return ts.do("POST", "/jsonrpc", "alice-token", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ListTasks"}, "A2A-Version", "").edgeServed()
		},
		"version-unchecked": func(ts *testServer) bool {
			if ts.do("POST", "/jsonrpc", "alice-token", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ListTasks"}, "A2A-Version", "").edgeServed() {
				t.Error("version-unchecked served a request without A2A-Version: that is version-absent-as-1.0's defect")
			}
			return ts.do("POST", "/jsonrpc", "alice-token", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ListTasks"}, "A2A-Version", "99.0").edgeServed()
		},
		"version-exact-match": func(ts *testServer) bool {
			return ts.do("GET", "/tasks", "alice-token", nil, "A2A-Version", "1.0.1").Code != 200
		},
		"legacy-method-alias": func(ts *testServer) bool {
			return ts.rpc("alice-token", "tasks/list", list).edgeServed()
		},
		"rpc-params-required": func(ts *testServer) bool {
			return ts.do("POST", "/jsonrpc", "alice-token", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ListTasks"}).edgeCode() == -32602
		},
		"rpc-unknown-method-invalid-request": func(ts *testServer) bool {
			if c := ts.do("GET", "/nothing/here/at/all", "alice-token", nil).Code; c != 404 {
				t.Errorf("an unknown HTTP+JSON path got %d, want 404 still", c)
			}
			return ts.rpc("alice-token", "PagewalkNoSuchMethod", list).edgeCode() == -32600
		},
		"tenant-route-missing": func(ts *testServer) bool {
			if ts.do("POST", "/acme/message:send", "alice-token", map[string]any{"message": map[string]any{
				"messageId": "m1", "role": "ROLE_USER", "parts": []map[string]any{{"text": "hi"}}}}).Code != 200 {
				t.Error("POST /{tenant}/message:send failed: only GET /{tenant}/tasks may be missing")
			}
			return ts.do("GET", "/acme/tasks", "alice-token", nil).Code == 404
		},
		"wrong-content-type": func(ts *testServer) bool {
			return ts.do("GET", "/tasks", "alice-token", nil).Header.Get("Content-Type") != "application/a2a+json"
		},
		"sendmessage-message-optional": func(ts *testServer) bool {
			return ts.rpc("alice-token", "SendMessage", map[string]any{"configuration": map[string]any{"historyLength": 0}}).edgeServed()
		},
		"unknown-fields-rejected": func(ts *testServer) bool {
			rpc := !ts.rpc("alice-token", "ListTasks", map[string]any{"pagewalkUnknownField": "x"}).edgeServed()
			rest := ts.do("GET", "/tasks?pagewalkUnknownField=x", "alice-token", nil).Code != 200
			if rpc != rest {
				t.Errorf("an unknown field refused on JSON-RPC %v, on HTTP+JSON %v: want the same on both", rpc, rest)
			}
			return rpc
		},
		"numeric-string-refused": func(ts *testServer) bool {
			return !ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": "2"}).edgeServed()
		},
		"rest-query-double-decode": func(ts *testServer) bool {
			ts.seed(task("pct", "alice", 1, "contextId", "100%41 x+y"))
			r := ts.do("GET", "/tasks?contextId=100%2541%20x%2By", "alice-token", nil)
			return r.Code != 200 || len(r.JSON["tasks"].([]any)) != 1
		},
		"anonymous-allowed": func(ts *testServer) bool {
			return ts.rpc("", "ListTasks", list).edgeServed()
		},
	}
	for _, f := range protocolFaults {
		probe, ok := probes[f.Name]
		if !ok {
			t.Errorf("fault %s has no probe", f.Name)
			continue
		}
		t.Run(string(f.Name), func(t *testing.T) {
			if probe(newTestServer(t)) {
				t.Errorf("the clean server shows %s's defect", f.Name)
			}
			if !probe(newTestServer(t, WithFaults(f.Name))) {
				t.Errorf("fault %s does not show its defect", f.Name)
			}
		})
	}
}
