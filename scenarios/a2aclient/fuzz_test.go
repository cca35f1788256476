package a2aclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fuzz targets below play a hostile server: whatever it replies, the
// client must not panic, must keep its bounds, and must describe the reply
// consistently. Their seed corpora are in testdata/fuzz/<FuzzName>/;
// docs/reliability.md records the runs.

func bindingOf(b uint8) Binding {
	if b%2 == 0 {
		return JSONRPC
	}
	return HTTPJSON
}

// FuzzDecode decodes any reply body with any status for either binding, then
// reads it as a ListTasks page.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, binding uint8, status int, contentType string, body []byte) {
		b := bindingOf(binding)
		x := &Exchange{Op: "ListTasks", HTTPMethod: "POST", URL: "http://sut/", Status: status, ContentType: contentType}
		x.keepBody(body)
		if len(x.RespBody) > KeptResponseBytes {
			t.Fatalf("kept %d bytes, over %d", len(x.RespBody), KeptResponseBytes)
		}
		if len(body) <= KeptResponseBytes && (x.RespBody != string(body) || x.RespTotal != 0) {
			t.Fatalf("a short body was not kept whole")
		}
		if len(body) > KeptResponseBytes && (x.RespTotal != int64(len(body)) || !strings.HasPrefix(string(body), x.RespBody)) {
			t.Fatalf("a long body's start or size was lost")
		}
		r := DecodeBody(b, x, body)
		outcomes := 0
		for _, ok := range []bool{r.Err != nil, r.Malformed != "", r.Result != nil} {
			if ok {
				outcomes++
			}
		}
		if outcomes != 1 {
			t.Fatalf("reply is %d of error, malformed, result; want exactly one (%+v)", outcomes, r)
		}
		if r.Err != nil && r.Err.Error() == "" {
			t.Fatal("empty error text")
		}
		_ = r.Describe()
		_ = x.Transcript()
		if r.Result != nil {
			var items []json.RawMessage
			n, ok := countArray(r.Result["tasks"])
			if json.Unmarshal(r.Result["tasks"], &items) == nil && items != nil && (!ok || n != len(items)) {
				t.Fatalf("countArray says %d, %v for an array of %d", n, ok, len(items))
			}
		}
		p := ParsePage(r)
		if p.NextNull && !p.NextPresent || p.NextPageToken != "" && (!p.NextPresent || p.NextNull) {
			t.Fatalf("nextPageToken %q present %v null %v", p.NextPageToken, p.NextPresent, p.NextNull)
		}
		if got := p.NextState(); got != NextString && got != NextAbsent && got != NextNull {
			t.Fatalf("NextState %q", got)
		}
		if len(p.IDs()) != len(p.Tasks) {
			t.Fatal("IDs and Tasks differ in length")
		}
		if r.Result == nil && (len(p.Tasks) > 0 || p.NextPresent) {
			t.Fatal("a page without a result has tasks or a token")
		}
		for _, tk := range p.Tasks {
			tk.HasArtifacts()
			tk.ArtifactCount()
		}
	})
}

// FuzzParseTask parses any Task object.
func FuzzParseTask(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw []byte) {
		tk, problem := ParseTask(raw)
		if problem == "" && tk.ID == "" {
			t.Fatal("a task without problems has no id")
		}
		if problem == "" && !json.Valid(raw) {
			t.Fatal("invalid JSON parsed as a task")
		}
		if tk.History != nil && !tk.Raw.Has("history") {
			t.Fatal("history from nowhere")
		}
		tk.HasArtifacts()
		if n, ok := tk.ArtifactCount(); !ok && n != 0 {
			t.Fatal("artifact count without an array")
		}
	})
}

// FuzzErrorParsers parses any JSON-RPC error member and any HTTP+JSON error
// body.
func FuzzErrorParsers(f *testing.F) {
	f.Fuzz(func(t *testing.T, status int, raw []byte) {
		for _, e := range []*ProtoError{parseJSONRPCError(raw), parseStatusError(status, raw)} {
			if e == nil {
				t.Fatal("nil error")
			}
			_ = e.Error()
			e.NamesField("pageToken")
		}
		if e := parseStatusError(status, raw); e.Code != status {
			t.Fatalf("HTTP+JSON error code %d, want the status %d", e.Code, status)
		}
		if e := parseStatusError(status, raw); e.Envelope != "" && len(e.Message) > 200+len("... (0 more bytes)")+20 {
			t.Fatalf("a malformed error body is quoted at %d bytes", len(e.Message))
		}
	})
}

// FuzzParseCard parses any Agent Card document.
func FuzzParseCard(f *testing.F) {
	const cardURL = "http://127.0.0.1:8080/.well-known/agent-card.json"
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := ParseCard(cardURL, body)
		if err != nil {
			if c != nil {
				t.Fatal("a card and an error")
			}
			if !strings.Contains(err.Error(), cardURL) {
				t.Fatalf("error %q does not name the card", err)
			}
			return
		}
		if len(c.Interfaces) == 0 {
			t.Fatal("a card with no usable interface parsed")
		}
		for _, i := range c.Interfaces {
			if i.Binding != JSONRPC && i.Binding != HTTPJSON {
				t.Fatalf("binding %q", i.Binding)
			}
			if _, ok := c.Interface(i.Binding); !ok {
				t.Fatal("Interface misses a declared binding")
			}
		}
		if _, err := SelectBindings(c, BindingAll); err != nil {
			t.Fatalf("SelectBindings all: %v", err)
		}
	})
}

// replayTransport answers every request with one fixed raw HTTP response,
// parsed by net/http itself, so the fuzzer controls the status line, the
// headers (Content-Length, Transfer-Encoding, Location, Content-Type) and
// the body framing.
type replayTransport struct{ raw []byte }

func (t replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(t.raw)), req)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// FuzzReply sends a ListTasks call to a server whose whole HTTP reply is
// fuzzed, through the bounded client with a small cap.
func FuzzReply(f *testing.F) {
	const limit = 4 << 10
	f.Fuzz(func(t *testing.T, binding uint8, raw []byte) {
		hc := NewHTTPClient(HTTPOptions{MaxResponseBytes: limit, Transport: replayTransport{raw}})
		var rec *Exchange
		c := &Client{HTTP: hc, Iface: Interface{Binding: bindingOf(binding), URL: "http://sut/a2a"}, Principal: "p", Token: "t",
			Record: func(x *Exchange) { rec = x }}
		p, err := c.ListTasks(context.Background(), ListRequest{PageSize: Ptr(2)})
		if p == nil || p.Response == nil {
			t.Fatal("no page")
		}
		if len(p.Tasks) > 0 && err != nil {
			t.Fatal("tasks with a transport error")
		}
		if err != nil {
			var tl *TooLargeError
			var re *RedirectError
			switch {
			case errors.As(err, &tl):
				if tl.Seen <= tl.Limit || tl.Limit != limit {
					t.Fatalf("TooLargeError %+v", tl)
				}
			case errors.As(err, &re):
				if !isRedirect(p.X.Status) && p.X.Status != 0 || re.Status == "" {
					t.Fatalf("RedirectError %+v", re)
				}
			}
			if p.X != nil && p.X.Err == "" {
				t.Fatal("a transport error not recorded in the exchange")
			}
			return
		}
		if rec == nil || rec != p.X {
			t.Fatal("the exchange was not recorded")
		}
		if int64(len(p.X.RespBody)) > limit || p.X.RespTotal > limit {
			t.Fatalf("a reply of %d (%d kept) bytes got past the %d cap", p.X.RespTotal, len(p.X.RespBody), limit)
		}
		if isRedirect(p.X.Status) {
			t.Fatalf("a %d reply was decoded instead of refused", p.X.Status)
		}
	})
}

// walkScript plays a server whose pages follow a script, one byte a page,
// and then serve fresh tokens forever (an endless chain).
type walkScript struct {
	t      *testing.T
	script []byte
	calls  int
	issued []string // issued[n-1] is the token page n returned
	want   string   // the token the next call must carry
}

func (w *walkScript) ListTasks(_ context.Context, r ListRequest) (*Page, error) {
	w.calls++
	n := w.calls
	if r.PageToken != w.want {
		w.t.Fatalf("call %d carried token %q, want %q (the previous page's)", n, r.PageToken, w.want)
	}
	p := &Page{Response: &Response{X: &Exchange{Op: "ListTasks"}}, NextPresent: true}
	p.Result = Fields{}
	op, arg := byte(0), byte(0)
	if n <= len(w.script) {
		op, arg = w.script[n-1]%8, w.script[n-1]/8
	}
	tok := fmt.Sprintf("t%d", n)
	switch op {
	case 1:
		tok = ""
	case 2:
		p.NextPresent = false
		tok = ""
	case 3:
		p.NextNull = true
		tok = ""
	case 4:
		p.Result, p.Err = nil, &ProtoError{Code: -32602, Message: "bad"}
	case 5:
		p.Result = nil
		return p, errors.New("connection reset")
	case 6:
		p.Result, p.Malformed = nil, "not JSON"
	case 7:
		if len(w.issued) > 0 {
			tok = w.issued[int(arg)%len(w.issued)]
		}
	}
	p.NextPageToken = tok
	p.Tasks = []Task{{ID: fmt.Sprintf("task-%d", n)}}
	w.issued = append(w.issued, tok)
	w.want = tok
	return p, nil
}

// FuzzWalk walks a scripted server: the walk must end (at "", an early stop,
// the page cap or the first repeated token), never yield after an error,
// never call the server after the caller breaks, and send each page the
// previous page's token.
func FuzzWalk(f *testing.F) {
	f.Fuzz(func(t *testing.T, script []byte, maxPages uint8, breakAt uint8) {
		cap := int(maxPages%64) + 1
		srv := &walkScript{t: t, script: script}
		steps, ended := 0, false
		var last Step
		var lastErr error
		seen := map[string]int{}
		for st, err := range Walk(context.Background(), srv, ListRequest{}, MaxPages(cap)) {
			if ended {
				t.Fatalf("page %d yielded after an error", st.N)
			}
			steps++
			if st.N != steps {
				t.Fatalf("step %d numbered %d", steps, st.N)
			}
			if steps > cap {
				t.Fatalf("walk went past its cap of %d pages", cap)
			}
			last, lastErr = st, err
			if err != nil {
				ended = true
				var stop *StopError
				if !errors.As(err, &stop) {
					t.Fatalf("page %d: error %v is not a *StopError", st.N, err)
				}
				if stop.Page != st.N || stop.Error() == "" {
					t.Fatalf("stop %+v on page %d", stop, st.N)
				}
				switch stop.Kind {
				case StopLoop:
					if first, ok := seen[st.NextPageToken]; !ok || first != stop.FirstIssued {
						t.Fatalf("loop on page %d: token %q first issued on page %d, walk says %d", st.N, st.NextPageToken, first, stop.FirstIssued)
					}
				case StopPageCap:
					if steps != cap {
						t.Fatalf("page cap %d reported at page %d", cap, steps)
					}
				}
				continue
			}
			if tok := st.NextPageToken; tok != "" {
				if first, ok := seen[tok]; ok {
					t.Fatalf("page %d repeats the token of page %d and the walk went on", st.N, first)
				}
				seen[tok] = st.N
			}
			if breakAt > 0 && steps == int(breakAt) {
				break
			}
		}
		if srv.calls != steps {
			t.Fatalf("the server got %d calls for %d steps", srv.calls, steps)
		}
		if steps == 0 {
			t.Fatal("a walk with no step")
		}
		if lastErr == nil && last.NextPageToken != "" && !(breakAt > 0 && steps == int(breakAt)) {
			t.Fatalf("walk ended on page %d with token %q and no error", last.N, last.NextPageToken)
		}
		// Sync walks twice over the same kind of server and ends too.
		res, err := Sync(context.Background(), &walkScript{t: t, script: script}, ListRequest{}, WalkOptions(MaxPages(cap)))
		if res == nil || (err == nil && res.Pages == 0) {
			t.Fatalf("Sync: %v, %+v", err, res)
		}
	})
}

// TestFuzzSeedsAreValid keeps the committed corpora loadable: each file must
// be in the go test fuzz v1 format (the fuzz targets above run them as
// plain tests too).
func TestFuzzSeedsAreValid(t *testing.T) {
	for _, name := range []string{"FuzzDecode", "FuzzParseTask", "FuzzErrorParsers", "FuzzParseCard", "FuzzReply", "FuzzWalk"} {
		dir := filepath.Join("testdata", "fuzz", name)
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) == 0 {
			t.Errorf("%s: no committed seed corpus (%v)", name, err)
			continue
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil || !bytes.HasPrefix(b, []byte("go test fuzz v1\n")) {
				t.Errorf("%s/%s: not a go test fuzz v1 file", name, e.Name())
			}
		}
	}
}
