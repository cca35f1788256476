package reference

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzHandlers sends arbitrary JSON-RPC bodies and HTTP+JSON query strings:
// the server must never panic, never answer 5xx, and every JSON-RPC reply
// must be a result or an error.
func FuzzHandlers(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":3}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageToken":"AQ","status":"TASK_STATE_WORKING"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"GetTask","params":{"id":"a","historyLength":-1}}`,
		`{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"work"}]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"CancelTask","params":{"id":"a"}}`,
		`[]`, `{`, `null`, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"statusTimestampAfter":"2026-01-01T00:00:00Z","pageSize":"1e3"}}`,
	} {
		f.Add(s, "pageSize=2&historyLength=1&status=TASK_STATE_COMPLETED")
	}
	f.Add("", "pageToken=%ZZ&includeArtifacts=maybe")
	s, err := New(context.Background(), WithPrincipal("alice", "alice-token"), WithControlToken("ctl"))
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	seed := httptest.NewRequest("POST", "/control/seed", strings.NewReader(`{"generate":{"count":5,"owner":"alice","historyMessages":2,"artifacts":1}}`))
	seed.Header.Set("Authorization", "Bearer ctl")
	s.Handler().ServeHTTP(httptest.NewRecorder(), seed)
	f.Fuzz(func(t *testing.T, body, query string) {
		req := httptest.NewRequest("POST", "/jsonrpc", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer alice-token")
		req.Header.Set("A2A-Version", "1.0")
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("JSON-RPC %q: HTTP %d %s", body, rec.Code, rec.Body)
		}
		if rec.Code != 204 && !strings.Contains(rec.Body.String(), `"result"`) && !strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("JSON-RPC %q: neither result nor error: %s", body, rec.Body)
		}
		if _, err := url.ParseRequestURI("/tasks?" + query); err != nil || strings.ContainsAny(query, " #") {
			return // not a request line a client could send
		}
		for _, path := range []string{"/tasks?", "/tasks/g-00000001?", "/t/tasks?"} {
			req = httptest.NewRequest("GET", path+query, nil)
			req.Header.Set("Authorization", "Bearer alice-token")
			req.Header.Set("A2A-Version", "1.0")
			rec = httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("GET %s%s: HTTP %d %s", path, query, rec.Code, rec.Body)
			}
		}
	})
}
