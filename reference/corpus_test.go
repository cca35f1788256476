package reference

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// corpusEntry is one line of testdata/malformed.jsonl (its header says
// how to read it).
type corpusEntry struct {
	Name    string                     `json:"name"`
	Op      string                     `json:"op"`
	Params  map[string]json.RawMessage `json:"params"`
	Binding string                     `json:"binding"`
	Method  string                     `json:"method"`
	Path    string                     `json:"path"`
	Headers map[string]any             `json:"headers"`
	Body    *string                    `json:"body"`
	Expect  struct {
		Names  string `json:"names"`
		Code   int    `json:"code"`
		Status int    `json:"status"`
	} `json:"expect"`
}

// corpusRequest is one request to send, with what its reply must show.
type corpusRequest struct {
	name, binding, method, path string
	headers                     http.Header
	body                        []byte
	names                       string
	code, status                int
}

var corpusTemplate = regexp.MustCompile(`\{\{(?:byte ([0-9a-f]{2})|repeat (\d+) (.*?))\}\}`)

// expand replaces {{byte XX}} by that byte and {{repeat N s}} by s N
// times.
func expand(s string) []byte {
	return corpusTemplate.ReplaceAllFunc([]byte(s), func(m []byte) []byte {
		g := corpusTemplate.FindSubmatch(m)
		if len(g[1]) > 0 {
			b, _ := hex.DecodeString(string(g[1]))
			return b
		}
		n, _ := strconv.Atoi(string(g[2]))
		return bytes.Repeat(g[3], n)
	})
}

// requests turns a corpus entry into the requests to send: an op goes over
// both bindings, a raw line as written.
func (e corpusEntry) requests(t *testing.T) []corpusRequest {
	if e.Op == "" {
		r := corpusRequest{name: e.Name, binding: e.Binding, method: e.Method, path: e.Path, names: e.Expect.Names,
			code: e.Expect.Code, status: e.Expect.Status, headers: corpusHeaders(e.Binding, e.Headers)}
		if e.Body != nil {
			r.body = expand(*e.Body)
		}
		return []corpusRequest{r}
	}
	// JSON-RPC: the params as written.
	var params bytes.Buffer
	params.WriteString("{")
	keys := make([]string, 0, len(e.Params))
	for k := range e.Params {
		keys = append(keys, k)
	}
	for i, k := range keys {
		if i > 0 {
			params.WriteString(",")
		}
		fmt.Fprintf(&params, "%q:%s", k, expand(string(e.Params[k])))
	}
	params.WriteString("}")
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, e.Op, params.Bytes())
	rpc := corpusRequest{name: e.Name + " (JSON-RPC)", binding: "jsonrpc", method: "POST", path: "/jsonrpc", body: body,
		names: e.Expect.Names, code: e.Expect.Code, headers: corpusHeaders("jsonrpc", nil)}
	// HTTP+JSON: strings as themselves, other values as their JSON text.
	q := url.Values{}
	id := ""
	for k, raw := range e.Params {
		v := string(expand(string(raw)))
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			v = s
		}
		if k == "id" {
			id = v
			continue
		}
		q.Set(k, v)
	}
	rest := corpusRequest{name: e.Name + " (HTTP+JSON)", binding: "http", method: "GET", names: e.Expect.Names,
		status: e.Expect.Status, headers: corpusHeaders("http", nil)}
	switch e.Op {
	case "ListTasks":
		rest.path = "/tasks"
	case "GetTask":
		rest.path = "/tasks/" + url.PathEscape(id)
	case "CancelTask":
		rest.method, rest.path, rest.body = "POST", "/tasks/"+url.PathEscape(id)+":cancel", []byte("{}")
	default:
		t.Fatalf("%s: unknown op %q", e.Name, e.Op)
	}
	if len(q) > 0 {
		rest.path += "?" + q.Encode()
	}
	return []corpusRequest{rpc, rest}
}

// corpusHeaders applies a line's headers over the defaults.
func corpusHeaders(binding string, over map[string]any) http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer alice-token")
	h.Set("A2A-Version", "1.0")
	if binding == "control" {
		h.Set("Authorization", "Bearer ctl")
		h.Del("A2A-Version")
	}
	for k, v := range over {
		switch v := v.(type) {
		case nil:
			h.Del(k)
		case string:
			h.Set(k, v)
		case []any:
			h.Del(k)
			for _, x := range v {
				h.Add(k, x.(string))
			}
		}
	}
	return h
}

// send writes r on a fresh connection, exactly as given (duplicate
// headers, raw bytes and all), and reads the reply.
func (r corpusRequest) send(addr string) (*http.Response, []byte, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(guard))
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: ref\r\nConnection: close\r\n", r.method, r.path)
	for k, vs := range r.headers {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	if r.body != nil {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(r.body))
	}
	b.WriteString("\r\n")
	b.Write(r.body)
	go c.Write(b.Bytes()) // the server may answer (and close) before it reads a large body
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, nil, err
	}
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// check says what is wrong with a reply, or "".
func (r corpusRequest) check(resp *http.Response, body []byte) string {
	if resp.StatusCode >= 500 {
		return fmt.Sprintf("server error %d", resp.StatusCode)
	}
	if r.status != 0 && resp.StatusCode != r.status {
		return fmt.Sprintf("HTTP status %d, want %d", resp.StatusCode, r.status)
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &reply); err != nil || reply.Error == nil || reply.Result != nil {
		return "the reply is not an error object"
	}
	if r.binding == "jsonrpc" && r.code != 0 && reply.Error.Code != r.code {
		return fmt.Sprintf("JSON-RPC code %d, want %d", reply.Error.Code, r.code)
	}
	if r.binding != "jsonrpc" && resp.StatusCode < 400 {
		return fmt.Sprintf("HTTP status %d for an error", resp.StatusCode)
	}
	if !strings.Contains(reply.Error.Message, r.names) {
		return fmt.Sprintf("the message %q does not name %s", reply.Error.Message, r.names)
	}
	return ""
}

// TestMalformedCorpus replays testdata/malformed.jsonl against a running
// server: every reply is a clear error (below 500, naming the parameter or
// header at fault), nothing is written, nothing is logged as an error, and
// the server is healthy at the end.
func TestMalformedCorpus(t *testing.T) {
	f, err := os.Open("testdata/malformed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var reqs []corpusRequest
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var e corpusEntry
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil || e.Name == "" || e.Expect.Names == "" {
			t.Fatalf("malformed.jsonl:%d: %v (every line needs a name and expect.names)", line, err)
		}
		reqs = append(reqs, e.requests(t)...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(reqs) < 200 {
		t.Fatalf("the corpus holds %d requests; it must hold at least 200", len(reqs))
	}

	var logs logLines
	s := mustNew(t, WithPrincipal("alice", "alice-token"), WithPrincipal("bob", "bob-token"), WithControlToken("ctl"),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	ts := &testServer{t, s}
	ts.seed(task("seeded-1", "alice", 2, "state", "TASK_STATE_WORKING", "historyMessages", 2), task("seeded-done", "alice", 1),
		task("seeded-bob", "bob", 3))
	before, _ := ts.walk("alice-token", map[string]any{"includeArtifacts": true})
	addr := listen(t, s)

	bindings := map[string]int{}
	for _, r := range reqs {
		resp, body, err := r.send(addr)
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		if problem := r.check(resp, body); problem != "" {
			t.Errorf("%s: %s\n  %s %.60s -> %d %.300s", r.name, problem, r.method, r.path, resp.StatusCode, body)
		}
		bindings[r.binding]++
	}
	t.Logf("replayed %d malformed requests: %v", len(reqs), bindings)

	if r := ts.do("GET", "/healthz", "", nil); r.Code != 200 {
		t.Errorf("healthz after the corpus: %s", r)
	}
	after, _ := ts.walk("alice-token", map[string]any{"includeArtifacts": true})
	if !reflect.DeepEqual(before, after) {
		t.Errorf("the malformed requests changed the store: %v, then %v", before, after)
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("malformed input was logged as a server error:\n%s", logs.String())
	}
}
