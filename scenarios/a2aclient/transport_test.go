package a2aclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// page is a well-formed empty ListTasks result in JSON-RPC.
const rpcEmptyPage = `{"jsonrpc":"2.0","id":"pw-1","result":{"tasks":[],"nextPageToken":"","pageSize":0,"totalSize":0}}`

func rpcClient(url string, hc *http.Client) *Client {
	return &Client{HTTP: hc, Iface: Interface{Binding: JSONRPC, URL: url}, Principal: "alice", Token: "t"}
}

func TestReplyOverTheCapIsTooLarge(t *testing.T) {
	for _, declared := range []bool{false, true} {
		t.Run(fmt.Sprintf("declared=%v", declared), func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":"pw-1","result":{"tasks":[` + strings.Repeat(`{"id":"x"},`, 20_000) + `{"id":"y"}]}}`
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if declared {
					w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, body)
			}))
			defer srv.Close()
			var got *Exchange
			c := rpcClient(srv.URL, NewHTTPClient(HTTPOptions{MaxResponseBytes: 100 << 10}))
			c.Record = func(x *Exchange) { got = x }
			_, err := c.ListTasks(context.Background(), ListRequest{})
			var tl *TooLargeError
			if !errors.As(err, &tl) {
				t.Fatalf("err = %v, want *TooLargeError", err)
			}
			if tl.Limit != 100<<10 || tl.Declared != declared {
				t.Errorf("TooLargeError %+v, want Limit 102400, Declared %v", tl, declared)
			}
			if declared && tl.Seen != int64(len(body)) || !declared && tl.Seen != 100<<10+1 {
				t.Errorf("Seen = %d", tl.Seen)
			}
			msg := err.Error()
			for _, want := range []string{"100 KiB cap", "max-response-bytes"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if got == nil || got.Err == "" || len(got.RespBody) > KeptResponseBytes {
				t.Fatalf("exchange %+v: want a transport error and at most %d bytes kept", got, KeptResponseBytes)
			}
		})
	}
}

func TestExchangeKeepsTheStartOfALongReply(t *testing.T) {
	tasks := strings.Repeat(`{"id":"t","status":{"state":"TASK_STATE_COMPLETED"}},`, 3000)
	body := `{"jsonrpc":"2.0","id":"pw-1","result":{"tasks":[` + tasks + `{"id":"last","status":{"state":"TASK_STATE_COMPLETED"}}],"nextPageToken":""}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	defer srv.Close()
	p, err := rpcClient(srv.URL, nil).ListTasks(context.Background(), ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != 3001 || p.Tasks[3000].ID != "last" {
		t.Fatalf("decoded %d tasks; the reply must be decoded whole", len(p.Tasks))
	}
	if len(p.X.RespBody) != KeptResponseBytes || p.X.RespTotal != int64(len(body)) {
		t.Errorf("kept %d bytes, total %d; want %d and %d", len(p.X.RespBody), p.X.RespTotal, KeptResponseBytes, len(body))
	}
	if !strings.Contains(p.X.Transcript(), fmt.Sprintf("the reply was %d bytes", len(body))) {
		t.Errorf("transcript does not note the full size:\n%s", p.X.Transcript())
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	var reached atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		fmt.Fprint(w, rpcEmptyPage)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	// A caller's own client that would follow redirects is bounded too.
	for name, hc := range map[string]*http.Client{"NewHTTPClient": NewHTTPClient(HTTPOptions{}), "plain": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			_, err := rpcClient(srv.URL+"/rpc", hc).ListTasks(context.Background(), ListRequest{})
			var re *RedirectError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *RedirectError", err)
			}
			if re.Location != other.URL+"/rpc" || !strings.HasPrefix(re.Status, "307") {
				t.Errorf("RedirectError %+v", re)
			}
			if !strings.Contains(err.Error(), "307 Temporary Redirect: the redirect to "+other.URL+"/rpc was not followed") {
				t.Errorf("error %q does not name the redirect and its Location", err)
			}
			if _, err := Discover(context.Background(), hc, srv.URL); !errors.As(err, &re) {
				t.Errorf("Discover: err = %v, want *RedirectError", err)
			}
			ctl := &Control{HTTP: hc, URL: srv.URL + "/control", Token: "ctl"}
			if _, err := ctl.Info(context.Background()); !errors.As(err, &re) {
				t.Errorf("Control: err = %v, want *RedirectError", err)
			}
		})
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the other server got %d requests; redirects must not be followed", n)
	}
}

func TestRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Length", "1000")
			w.Write([]byte(`{"jsonrpc":`))
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	hc := NewHTTPClient(HTTPOptions{Timeout: 50 * time.Millisecond})
	for path, reading := range map[string]bool{"/headers": false, "/body": true} {
		_, err := rpcClient(srv.URL+path, hc).ListTasks(context.Background(), ListRequest{})
		var te *TimeoutError
		if !errors.As(err, &te) || te.Limit != 50*time.Millisecond || te.Reading != reading {
			t.Errorf("%s: err = %v, want *TimeoutError{50ms, Reading %v}", path, err, reading)
		} else if !strings.Contains(err.Error(), "50ms per-request timeout") {
			t.Errorf("%s: error %q does not name the timeout", path, err)
		}
		// Callers that look for a net.Error timeout still find one.
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("%s: err = %v is not a net.Error timeout", path, err)
		}
	}
	// The caller's context ending is not a request timeout.
	ctx, cancel := context.WithTimeoutCause(context.Background(), 20*time.Millisecond, errors.New("the total budget ran out"))
	defer cancel()
	_, err := rpcClient(srv.URL+"/headers", NewHTTPClient(HTTPOptions{Timeout: time.Hour})).ListTasks(ctx, ListRequest{})
	var te *TimeoutError
	if errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "the total budget ran out") {
		t.Errorf("err = %v, want the context's deadline and its cause", err)
	}
}

func TestConnectionClosedMidBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",\"result\":{\"tasks\":[")
		buf.Flush()
		conn.Close()
	}))
	defer srv.Close()
	_, err := rpcClient(srv.URL, nil).ListTasks(context.Background(), ListRequest{})
	var te *TruncatedError
	if !errors.As(err, &te) || te.Declared != 500 || te.Read != int64(len(`{"jsonrpc":"2.0","result":{"tasks":[`)) {
		t.Fatalf("err = %v, want *TruncatedError after 36 of 500 bytes", err)
	}
}

func TestWalkStopsOnATransportBound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":"pw-1","result":{"tasks":[`+strings.Repeat(" ", 5000)+`]}}`)
	}))
	defer srv.Close()
	c := rpcClient(srv.URL, NewHTTPClient(HTTPOptions{MaxResponseBytes: 1000}))
	n := 0
	for st, err := range Walk(context.Background(), c, ListRequest{}) {
		n++
		var stop *StopError
		var tl *TooLargeError
		if !errors.As(err, &stop) || stop.Kind != StopTransport || !errors.As(err, &tl) {
			t.Fatalf("page %d: err = %v, want a StopTransport with *TooLargeError", st.N, err)
		}
	}
	if n != 1 {
		t.Fatalf("walk yielded %d steps, want 1", n)
	}
}

func TestMalformedErrorPageNamesStatusAndType(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, "<html><body>502 Bad Gateway</body></html>")
	}))
	defer srv.Close()
	p, err := rpcClient(srv.URL, nil).ListTasks(context.Background(), ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Malformed, "HTTP 502 Bad Gateway reply (text/html) is not a JSON-RPC object") {
		t.Errorf("Malformed = %q", p.Malformed)
	}
}
