package reference

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// guard bounds how long a test waits for the server to close a
// connection. It is not a measurement: a correct server closes the
// connection after its (short) timeout, long before the guard; the guard
// only stops a broken server from hanging the test.
const guard = 20 * time.Second

// closedByServer reads conn until the server closes it, and says whether
// it did before the guard ran out, with what it sent.
func closedByServer(t *testing.T, conn net.Conn) (string, bool) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(guard))
	data, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return string(data), false
	}
	return string(data), true // EOF or a reset: closed
}

func listen(t *testing.T, s *Server) string {
	t.Helper()
	base, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(base, "http://")
}

// TestStalledConnectionsAreClosed: a body declared but never sent, a body
// dripped byte by byte, headers that never end and an idle keep-alive
// connection are all closed by the server after its timeouts (short ones
// here), and none of them gets a 5xx.
func TestStalledConnectionsAreClosed(t *testing.T) {
	short := 300 * time.Millisecond
	s := mustNew(t, WithPrincipal("alice", "alice-token"), WithControlToken("ctl"),
		WithReadHeaderTimeout(short), WithReadTimeout(short), WithIdleTimeout(short), WithWriteTimeout(10*time.Second))
	addr := listen(t, s)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	post := "POST /jsonrpc HTTP/1.1\r\nHost: ref\r\nAuthorization: Bearer alice-token\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"

	t.Run("body declared but never sent", func(t *testing.T) {
		c := dial()
		io.WriteString(c, post+`{"jsonrpc":`)
		reply, closed := closedByServer(t, c)
		if !closed {
			t.Fatal("the connection is still open after the read timeout")
		}
		if strings.HasPrefix(reply, "HTTP/1.1 5") {
			t.Errorf("a stalled body got a server error: %q", reply)
		}
	})

	t.Run("body dripped", func(t *testing.T) {
		c := dial()
		io.WriteString(c, post)
		sent := make(chan int, 1)
		go func() {
			n := 0
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for range tick.C {
				if n == 1000 {
					break
				}
				if _, err := c.Write([]byte{' '}); err != nil {
					break
				}
				n++
			}
			sent <- n
		}()
		_, closed := closedByServer(t, c)
		c.Close()
		if !closed {
			t.Fatal("the connection is still open after the read timeout")
		}
		if n := <-sent; n == 1000 {
			t.Error("the whole dripped body was accepted")
		}
	})

	t.Run("headers never end", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "GET /tasks HTTP/1.1\r\nHost: ref\r\nX-Slow: ")
		if _, closed := closedByServer(t, c); !closed {
			t.Fatal("the connection is still open after the header timeout")
		}
	})

	t.Run("idle keep-alive", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: ref\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz: %v %v", resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.Close {
			t.Fatal("the server did not keep the connection alive")
		}
		c.SetReadDeadline(time.Now().Add(guard))
		if _, err := br.ReadByte(); err == nil {
			t.Fatal("the server sent data on an idle connection")
		} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("the idle connection is still open after the idle timeout")
		}
	})
}

// logLines collects the server's log lines.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestClientThatGoesAwayIsNotAServerError: a complete GET /tasks followed
// by shutdown(SHUT_WR) still gets its page, and a request whose context is
// cancelled gets no 500; neither writes an ERROR log line.
func TestClientThatGoesAwayIsNotAServerError(t *testing.T) {
	var logs logLines
	s := mustNew(t, WithPrincipal("alice", "alice-token"), WithControlToken("ctl"),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	ts := &testServer{t, s}
	ts.control("POST", "/seed", map[string]any{"generate": map[string]any{"count": 300, "owner": "alice", "historyMessages": 3, "artifacts": 1}})
	addr := listen(t, s)
	for i := range 50 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET /tasks?pageSize=100&includeArtifacts=true HTTP/1.1\r\nHost: ref\r\nAuthorization: Bearer alice-token\r\nA2A-Version: 1.0\r\n\r\n")
		c.(*net.TCPConn).CloseWrite()
		c.SetReadDeadline(time.Now().Add(guard))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("half-closed request %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		c.Close()
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"totalSize":300`)) {
			t.Fatalf("half-closed request %d: %d %.200s", i, resp.StatusCode, body)
		}
	}
	for _, req := range []*http.Request{
		httptest.NewRequest("GET", "/tasks", nil),
		httptest.NewRequest("POST", "/jsonrpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":100}}`)),
		httptest.NewRequest("POST", "/message:send", strings.NewReader(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`)),
	} {
		ctx, cancel := context.WithCancel(req.Context())
		cancel()
		req = req.WithContext(ctx)
		req.Header.Set("Authorization", "Bearer alice-token")
		req.Header.Set("A2A-Version", "1.0")
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Errorf("%s %s with a cancelled context: %d %s", req.Method, req.URL, rec.Code, rec.Body)
		}
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("clients that went away were logged as errors:\n%s", logs.String())
	}
}

// TestDuplicateHeadersAreRefused: with two Authorization headers (or two
// A2A-Version values) the caller is ambiguous; the server refuses, naming
// the header, on both bindings and on the control API.
func TestDuplicateHeadersAreRefused(t *testing.T) {
	s := mustNew(t, WithPrincipal("alice", "alice-token"), WithPrincipal("bob", "bob-token"), WithControlToken("ctl"))
	addr := listen(t, s)
	send := func(raw string) (*http.Response, string) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, raw)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	rpc := `{"jsonrpc":"2.0","id":1,"method":"ListTasks"}`
	for _, c := range []struct {
		name, raw, header string
		rest              bool
	}{
		{"two Authorization, HTTP+JSON", "GET /tasks HTTP/1.1\r\nHost: r\r\nAuthorization: Bearer alice-token\r\nAuthorization: Bearer bob-token\r\nA2A-Version: 1.0\r\n\r\n", "Authorization", true},
		{"two A2A-Version, HTTP+JSON", "GET /tasks HTTP/1.1\r\nHost: r\r\nAuthorization: Bearer alice-token\r\nA2A-Version: 1.0\r\nA2A-Version: 0.3\r\n\r\n", "A2A-Version", true},
		{"two A2A-Version parameters, HTTP+JSON", "GET /tasks?A2A-Version=1.0&A2A-Version=1.0 HTTP/1.1\r\nHost: r\r\nAuthorization: Bearer alice-token\r\n\r\n", "A2A-Version", true},
		{"two Authorization, control", "GET /control/info HTTP/1.1\r\nHost: r\r\nAuthorization: Bearer ctl\r\nAuthorization: Bearer ctl\r\n\r\n", "Authorization", true},
		{"two Authorization, JSON-RPC", fmt.Sprintf("POST /jsonrpc HTTP/1.1\r\nHost: r\r\nAuthorization: Bearer alice-token\r\nAuthorization: Bearer bob-token\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s", len(rpc), rpc), "Authorization", false},
		{"two A2A-Version, JSON-RPC", fmt.Sprintf("POST /jsonrpc HTTP/1.1\r\nHost: r\r\nAuthorization: Bearer alice-token\r\nA2A-Version: 1.0\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s", len(rpc), rpc), "A2A-Version", false},
	} {
		resp, body := send(c.raw)
		switch {
		case c.rest && resp.StatusCode != 400:
			t.Errorf("%s: %d %s, want 400", c.name, resp.StatusCode, body)
		case !c.rest && !strings.Contains(body, `"code":-32600`):
			t.Errorf("%s: %d %s, want JSON-RPC -32600 invalid request", c.name, resp.StatusCode, body)
		case !strings.Contains(body, `"message":"`+c.header+": "):
			t.Errorf("%s: %s does not name %s", c.name, body, c.header)
		case strings.Contains(body, `"tasks"`):
			t.Errorf("%s: listed tasks: %s", c.name, body)
		}
	}
}

// TestInvalidUTF8IsInvalidParams: a string parameter that is not UTF-8
// text, in a query, a path or JSON (raw bytes or a lone surrogate escape),
// is refused naming the parameter; encoding/json would otherwise turn it
// into U+FFFD and serve a different request than the one sent.
func TestInvalidUTF8IsInvalidParams(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("a", "alice", 1))
	for _, c := range []struct{ path, field string }{
		{"/tasks?contextId=%ff", "contextId"},
		{"/tasks?pageToken=%c3%28", "pageToken"},
		{"/tasks?statusTimestampAfter=%ed%a0%80", "statusTimestampAfter"},
		{"/%ff/tasks", "tenant"},
		{"/tasks/%fe%ff", "id"},
		{"/tasks?status=%ff", "status"},
		{"/tasks?pageSize=%zz", "pageSize"},
	} {
		r := ts.do("GET", c.path, "alice-token", nil)
		if r.Code != 400 || r.fieldViolation() != c.field {
			t.Errorf("GET %s: %s, want 400 naming %s", c.path, r, c.field)
		}
	}
	for _, c := range []struct{ body, field string }{
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ListTasks\",\"params\":{\"contextId\":\"\xff\"}}", "contextId"},
		{`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"contextId":"\ud800"}}`, "contextId"},
		{`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"tenant":"a\udc00b"}}`, "tenant"},
		{`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageToken":"\ud83d"}}`, "pageToken"},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\",\"params\":{\"id\":\"\xc3\"}}", "id"},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{\"message\":{\"messageId\":\"m\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"\xff\"}]}}}", "message"},
	} {
		r := ts.do("POST", "/jsonrpc", "alice-token", c.body)
		if code, _ := r.rpcError(t); code != -32602 || r.fieldViolation() != c.field {
			t.Errorf("%q: %s, want -32602 naming %s", c.body, r, c.field)
		}
	}
	// A surrogate pair is one valid character.
	r := ts.do("POST", "/jsonrpc", "alice-token", `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"contextId":"\ud83d\ude00"}}`)
	r.result(t)
}
