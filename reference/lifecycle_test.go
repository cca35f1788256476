package reference

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloseDrainsInFlightRequests holds a seed request open across Close:
// Close must wait for it, the request must succeed, and only then may the
// store close. The request is held open by sending its body in two parts;
// "Expect: 100-continue" tells the test when the handler has started to
// read it, and RegisterOnShutdown when Close has begun, so nothing here
// waits on the clock.
func TestCloseDrainsInFlightRequests(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "drain.db")
	opts := []Option{WithDB(db), WithPrincipal("alice", "alice-token"), WithControlToken("ctl")}
	s, err := New(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	shuttingDown := make(chan struct{})
	s.http.RegisterOnShutdown(func() { close(shuttingDown) })

	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"tasks":[{"id":"slow-1","owner":"alice","state":"TASK_STATE_COMPLETED","historyMessages":2}]}`
	fmt.Fprintf(conn, "POST /control/seed HTTP/1.1\r\nHost: ref\r\nAuthorization: Bearer ctl\r\n"+
		"Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(body))
	br := bufio.NewReader(conn)
	interim, err := http.ReadResponse(br, nil)
	if err != nil || interim.StatusCode != http.StatusContinue {
		t.Fatalf("want 100 Continue once the handler reads the body, got %v %v", interim, err)
	}
	if _, err := conn.Write([]byte(body[:20])); err != nil {
		t.Fatal(err)
	}

	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	<-shuttingDown
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a request was in flight", err)
	default:
	}
	if _, err := conn.Write([]byte(body[20:])); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	var reply struct{ Inserted int }
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || resp.StatusCode != 200 || reply.Inserted != 1 {
		t.Fatalf("the in-flight seed got %d %+v %v; want 200 with 1 task inserted", resp.StatusCode, reply, err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}

	// The seeded task, with its history, is in the store after a restart.
	s2, err := New(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ts := &testServer{t, s2}
	g := ts.rpc("alice-token", "GetTask", map[string]any{"id": "slow-1"}).result(t)
	if h, _ := g["history"].([]any); len(h) != 2 {
		t.Errorf("after restart: %v", g)
	}
}

// TestLibraryErrorsNameParameters: the library names its parameters, never
// the command line's flags.
func TestLibraryErrorsNameParameters(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		opts  []Option
		param string
	}{
		{nil, "principal"},
		{[]Option{WithPrincipal("a", "")}, "principal"},
		{[]Option{WithPrincipal("a", "t"), WithPrincipal("b", "t")}, "principal"},
		{[]Option{WithPrincipal("a", "t"), WithDB("")}, "db"},
		{[]Option{WithPrincipal("a", "t"), WithTokenTTL(0)}, "token-ttl"},
		{[]Option{WithPrincipal("a", "t"), WithRateLimit(-1, 0)}, "rate-limit"},
		{[]Option{WithPrincipal("a", "t"), WithDefaultHistoryLength(-2)}, "default-history-length"},
		{[]Option{WithPrincipal("a", "t"), WithDB(filepath.Join(t.TempDir(), "no", "such", "dir", "x.db"))}, "db"},
	} {
		_, err := New(ctx, c.opts...)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != c.param || strings.Contains(err.Error(), "--") {
			t.Errorf("want a ParamError naming %s (no flag), got %v", c.param, err)
		}
	}
	s := mustNew(t, WithPrincipal("a", "t"))
	_, err := s.Listen("256.0.0.1:99999")
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Param != "addr" {
		t.Errorf("Listen on a bad address: %v, want a ParamError naming addr", err)
	}
}
