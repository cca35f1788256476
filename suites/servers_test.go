package suites_test

// Independent witnesses (issue 9, Build item 5): small A2A 1.0 servers under
// testdata/servers, each its own program written without the reference, each
// with exactly one realistic defect or one legal variation, described by its
// expect.yaml.
//
// TestIndependentServers builds them all once, then
//   - selfcheck/<name> (always): walks each server with plain net/http and
//     checks that the server's own defect is really there and that nothing
//     else is wrong. It is a second, small checker written for these servers,
//     so that the expectations pagewalk is held to do not rest on pagewalk.
//   - pagewalk/<name> (always; PAGEWALK_SERVERS_TEST=0 skips it): runs the whole
//     suite black-box against each server (two principals, no control API,
//     hardened profile, strict) and asserts that every caught_by entry of
//     expect.yaml is reported (a non-Info finding of that case naming that
//     requirement), that every non-Info finding names only requirements
//     listed in caught_by or also_allowed, that no case ends in Error, and
//     that legal servers get nothing above Info. It logs a table of what
//     was caught.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	"github.com/pagewalk/pagewalk/suites"
)

// ServersTestEnv set to 0 turns off the pagewalk-against-the-witnesses half
// of TestIndependentServers (about 4 minutes on 2 cores: three witnesses
// have whole-second clocks, so their probe tasks are spaced in real time).
// make test and CI run it.
const ServersTestEnv = "PAGEWALK_SERVERS_TEST"

const serversDir = "testdata/servers"

// caughtBy is one (case, requirement) pair a correct harness must report.
type caughtBy struct {
	Case        string `yaml:"case"`
	Requirement string `yaml:"requirement"`
}

// expectation is a server's expect.yaml.
type expectation struct {
	Defect      bool   `yaml:"defect"`
	Description string `yaml:"description"`
	// Precision is the server's status-timestamp precision: s, ms, us or ns.
	Precision string `yaml:"precision"`
	// Bindings are the protocolBinding values its card declares.
	Bindings []string `yaml:"bindings"`
	// CaughtBy: for a defect, the findings a correct harness must report.
	CaughtBy []caughtBy `yaml:"caught_by"`
	// AlsoAllowed: requirements through which the defect legitimately
	// shows in other findings, with the reason in Why.
	AlsoAllowed []string `yaml:"also_allowed"`
	Why         string   `yaml:"why"`
	// MaxClass: for a legal variation, the worst class allowed (Info).
	MaxClass string `yaml:"max_class"`
	// Detect says, for a defect, what black-box data or check reveals it.
	Detect string `yaml:"detect"`
}

var reqID = regexp.MustCompile(`^LT-[A-Z]+-\d+$`)

func loadExpectation(t *testing.T, name string) expectation {
	t.Helper()
	f, err := os.Open(filepath.Join(serversDir, name, "expect.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	var e expectation
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("%s/expect.yaml: %v", name, err)
	}
	bad := func(format string, args ...any) { t.Errorf("%s/expect.yaml: "+format, append([]any{name}, args...)...) }
	if e.Description == "" || strings.Contains(e.Description, "\n") {
		bad("description must be one line")
	}
	switch e.Precision {
	case "s", "ms", "us", "ns":
	default:
		bad("precision %q: want s, ms, us or ns", e.Precision)
	}
	if len(e.Bindings) == 0 {
		bad("bindings is empty")
	}
	if e.Defect {
		if len(e.CaughtBy) == 0 || e.MaxClass != "" || e.Detect == "" {
			bad("a defect needs caught_by and detect, and no max_class")
		}
		if len(e.AlsoAllowed) > 0 && e.Why == "" {
			bad("also_allowed needs why")
		}
	} else if e.MaxClass != "Info" || len(e.CaughtBy) > 0 || len(e.AlsoAllowed) > 0 {
		bad("a legal variation has max_class Info and no caught_by or also_allowed")
	}
	for _, c := range e.CaughtBy {
		s, ok := scenarios.Lookup(c.Case)
		if !ok {
			bad("caught_by case %s is not a pagewalk case", c.Case)
			continue
		}
		if !slices.Contains(s.Reqs, c.Requirement) {
			bad("caught_by requirement %s is not one of %s's requirements %v", c.Requirement, c.Case, s.Reqs)
		}
	}
	for _, r := range e.AlsoAllowed {
		if !reqID.MatchString(r) {
			bad("also_allowed %q is not a requirement ID", r)
		}
	}
	return e
}

// serverNames lists the witness servers.
func serverNames(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(serversDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) < 10 {
		t.Fatalf("%d witness servers under %s; want at least 10", len(out), serversDir)
	}
	return out
}

// buildServers vets every server and builds them all with one go build
// into dir. (go build ./... and go vet ./... skip testdata, so this is
// where the servers are held to both.)
func buildServers(t *testing.T, names []string, dir string) {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	var pkgs []string
	for _, n := range names {
		pkgs = append(pkgs, "./"+serversDir+"/"+n)
	}
	for _, args := range [][]string{append([]string{"vet"}, pkgs...), append([]string{"build", "-o", dir + string(os.PathSeparator)}, pkgs...)} {
		cmd := exec.Command(gobin, args...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Fatalf("go build wrote no binary for %s: %v", n, err)
		}
	}
	// The witnesses are independent of pagewalk: the standard library and
	// small well-known modules only, nothing of this module.
	out, err := exec.Command(gobin, append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if !strings.Contains(d, "/suites/testdata/servers/") && !slices.Contains(witnessModules, d) {
			t.Errorf("a witness server imports %s; they may use only the standard library and %v", d, witnessModules)
		}
	}
}

// witnessModules are the non-standard packages a witness server may use.
var witnessModules = []string{"github.com/google/uuid"}

// running is a started witness server.
type running struct {
	URL string
	cmd *exec.Cmd
	log *bytes.Buffer
}

// startServer starts bin on 127.0.0.1:0 with alice and bob and reads its
// URL from the first line of stdout. It is stopped when t ends.
func startServer(t *testing.T, bin string, args ...string) *running {
	t.Helper()
	all := append([]string{"-addr", "127.0.0.1:0", "-principal", "alice=alice-token", "-principal", "bob=bob-token"}, args...)
	cmd := exec.Command(bin, all...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &running{cmd: cmd, log: &bytes.Buffer{}}
	cmd.Stderr = r.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case l, ok := <-line:
		u, found := strings.CutPrefix(l, "listening on ")
		if !ok || !found {
			t.Fatalf("%s: first line %q, want \"listening on http://...\" (stderr: %s)", bin, l, r.log)
		}
		r.URL = u
	case <-time.After(60 * time.Second):
		t.Fatalf("%s printed no URL within 60s (stderr: %s)", bin, r.log)
	}
	return r
}

// TestIndependentServers builds the witness servers, self-checks each, and
// (unless PAGEWALK_SERVERS_TEST=0) runs pagewalk black-box against each.
func TestIndependentServers(t *testing.T) {
	names := serverNames(t)
	exp := map[string]expectation{}
	defects, legal := 0, 0
	for _, n := range names {
		exp[n] = loadExpectation(t, n)
		if exp[n].Defect {
			defects++
		} else {
			legal++
		}
	}
	if defects < 8 || legal < 3 {
		t.Errorf("%d defect servers and %d legal ones; want at least 8 and 3", defects, legal)
	}
	bin := t.TempDir()
	buildServers(t, names, bin)

	t.Run("selfcheck", func(t *testing.T) {
		for _, n := range names {
			t.Run(n, func(t *testing.T) {
				t.Parallel()
				srv := startServer(t, filepath.Join(bin, n), "-clock-step", "1s")
				sc := newSelfCheck(t, srv.URL, exp[n])
				sc.run()
				sc.judge(n, exp[n])
			})
		}
	})

	t.Run("pagewalk", func(t *testing.T) {
		if os.Getenv(ServersTestEnv) == "0" {
			t.Skipf("%s=0: pagewalk is not run black-box against the independent servers", ServersTestEnv)
		}
		var mu sync.Mutex
		var rows []harnessRow
		t.Cleanup(func() { printHarnessTable(t, rows) })
		for _, n := range names {
			t.Run(n, func(t *testing.T) {
				srv := startServer(t, filepath.Join(bin, n))
				row := runHarness(t, n, srv.URL, exp[n])
				mu.Lock()
				rows = append(rows, row)
				mu.Unlock()
			})
		}
	})
}

// ---------------------------------------------------------------------------
// pagewalk against the witnesses

// harnessRow is one server's outcome for the summary table.
type harnessRow struct {
	Name   string
	Exp    expectation
	Caught []bool
	// Stray lists non-Info findings naming requirements outside the allowed
	// set; Over lists, for a legal server, findings above Info and errors.
	Stray, Over []string
}

func runHarness(t *testing.T, name, url string, e expectation) harnessRow {
	ctx := context.Background()
	tg, err := suites.ExternalTarget(ctx, suites.TargetOptions{URL: url,
		Principals: []a2aclient.Principal{{Name: "alice", Token: "alice-token"}, {Name: "bob", Token: "bob-token"}},
		HTTP:       &http.Client{Timeout: 30 * time.Second}})
	if err != nil {
		t.Fatalf("target %s: %v", url, err)
	}
	results := suites.RunAll(ctx, tg, scenarios.Judgement{Profile: scenarios.ProfileHardened, Strict: true})
	row := harnessRow{Name: name, Exp: e, Caught: make([]bool, len(e.CaughtBy))}
	allowed := map[string]bool{}
	for _, c := range e.CaughtBy {
		allowed[c.Requirement] = true
	}
	for _, r := range e.AlsoAllowed {
		allowed[r] = true
	}
	for _, r := range results {
		if r.Verdict == scenarios.Errored {
			row.Over = append(row.Over, fmt.Sprintf("%s [%s] Error: %s", r.ID, r.Binding, r.Error))
		}
		for _, f := range r.Findings {
			if f.Class == scenarios.ClassInfo {
				continue
			}
			t.Logf("%s [%s] %s %v: %s", r.ID, r.Binding, f.Class, f.Reqs, firstLine(f.Message))
			for i, c := range e.CaughtBy {
				if c.Case == r.ID && slices.Contains(f.Reqs, c.Requirement) {
					row.Caught[i] = true
				}
			}
			if !e.Defect {
				row.Over = append(row.Over, fmt.Sprintf("%s [%s] %s %v: %s", r.ID, r.Binding, f.Class, f.Reqs, firstLine(f.Message)))
				continue
			}
			for _, req := range f.Reqs {
				if !allowed[req] {
					row.Stray = append(row.Stray, fmt.Sprintf("%s [%s] %s names %s: %s", r.ID, r.Binding, f.Class, req, firstLine(f.Message)))
					break
				}
			}
		}
	}
	for i, c := range e.CaughtBy {
		if !row.Caught[i] {
			t.Errorf("%s: %s did not report %s (%s)", name, c.Case, c.Requirement, e.Description)
		}
	}
	for _, s := range row.Stray {
		t.Errorf("%s: finding outside the defect's requirements: %s", name, s)
	}
	for _, s := range row.Over {
		if e.Defect {
			t.Errorf("%s: the harness could not finish a case: %s", name, s)
		} else {
			t.Errorf("%s: legal server got more than Info: %s", name, s)
		}
	}
	return row
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

func printHarnessTable(t *testing.T, rows []harnessRow) {
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-32s %-7s %-52s %s\n", "server", "defect", "expected (case, requirement)", "caught")
	for _, r := range rows {
		if !r.Exp.Defect {
			verdict := "clean"
			if len(r.Over) > 0 {
				verdict = fmt.Sprintf("%d findings above Info", len(r.Over))
			}
			fmt.Fprintf(&b, "%-32s %-7s %-52s %s\n", r.Name, "legal", "nothing above Info", verdict)
			continue
		}
		for i, c := range r.Exp.CaughtBy {
			yes := "no"
			if r.Caught[i] {
				yes = "yes"
			}
			name := r.Name
			if i > 0 {
				name = ""
			}
			fmt.Fprintf(&b, "%-32s %-7s %-52s %s\n", name, "yes", c.Case+", "+c.Requirement, yes)
		}
		if slices.Contains(r.Caught, false) {
			fmt.Fprintf(&b, "%-32s %-7s what would catch it: %s\n", "", "", r.Exp.Detect)
		}
		if len(r.Stray) > 0 {
			fmt.Fprintf(&b, "%-32s %-7s %-52s %d\n", "", "", "findings naming other requirements", len(r.Stray))
		}
		if len(r.Over) > 0 {
			fmt.Fprintf(&b, "%-32s %-7s %-52s %d\n", "", "", "cases the harness could not finish", len(r.Over))
		}
	}
	t.Log(b.String())
}

// ---------------------------------------------------------------------------
// The self-check: a small independent checker, plain net/http.

// The self-check keys. A defect server must trip exactly the key named
// like its directory; a legal server none.
var selfCheckKeys = []string{
	"card", "auth", "version", "errors", "send", "scope-get", "bindings", "data", "precision", "shape",
	"absent-next-token", "id-order", "second-ties-timestamp-cursor", "offset-token", "artifacts-empty-array",
	"ignores-context-filter", "status-filter", "leaks-across-principals", "history-ignored",
	"pagesize-unvalidated", "pagesize-default", "unbound-token", "token-principal-binding", "token-filter-binding",
	"token-tamper", "token-garbage", "invalid-filters", "tsa-exclusive", "total-size-page-count",
}

type selfCheck struct {
	t        *testing.T
	base     string
	hc       *http.Client
	exp      expectation
	rpc, rst string // interface URLs ("" when not declared)
	mu       sync.Mutex
	problems map[string][]string
	// seen records what the walks showed of a legal variation.
	seen map[string]bool
	seq  int
}

func newSelfCheck(t *testing.T, base string, e expectation) *selfCheck {
	return &selfCheck{t: t, base: base, exp: e, hc: &http.Client{Timeout: 30 * time.Second}, problems: map[string][]string{}, seen: map[string]bool{}}
}

// flag records a problem under key.
func (s *selfCheck) flag(key, format string, args ...any) {
	if !slices.Contains(selfCheckKeys, key) {
		s.t.Fatalf("unknown self-check key %q", key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.problems[key]) < 5 {
		s.problems[key] = append(s.problems[key], fmt.Sprintf(format, args...))
	}
}

// observe records that the walks showed what.
func (s *selfCheck) observe(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[what] = true
}

// legalShows names, for each legal server, what its walks must show: the
// variation itself, so that a legal server's pass is not a pass on data
// that could not show it.
var legalShows = map[string][]string{
	"short-pages":               {"short page", "tie at a page boundary", "ties descending by id"},
	"ascending-tiebreak":        {"tie at a page boundary", "ties ascending by id"},
	"opaque-server-side-cursor": {"tie at a page boundary", "opaque token"},
	"http-only":                 {"tie at a page boundary"},
}

// judge asserts that exactly the server's own key tripped.
func (s *selfCheck) judge(name string, e expectation) {
	if !e.Defect {
		want, ok := legalShows[name]
		if !ok {
			s.t.Errorf("legal server %s has no entry in legalShows", name)
		}
		for _, w := range want {
			if !s.seen[w] {
				s.t.Errorf("the walks never showed %q (seen: %v)", w, s.seen)
			}
		}
	}
	var keys []string
	for k := range s.problems {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if e.Defect && k == name {
			s.t.Logf("defect confirmed (%s): %s", k, strings.Join(s.problems[k], "; "))
			continue
		}
		s.t.Errorf("unexpected problem %q: %s", k, strings.Join(s.problems[k], "; "))
	}
	if e.Defect {
		if !slices.Contains(selfCheckKeys, name) {
			s.t.Fatalf("defect server %s has no self-check key of its name", name)
		}
		if _, ok := s.problems[name]; !ok {
			s.t.Errorf("the defect %q did not show: %s", name, e.Description)
		}
	}
}

// wire is one binding as one principal.
type wire struct {
	s       *selfCheck
	binding string // jsonrpc or http
	url     string
	token   string
	// header, if set, edits each request's headers.
	header func(http.Header)
}

// werr is an error reply from either binding.
type werr struct {
	code     int // JSON-RPC code, or HTTP status
	status   string
	message  string
	fields   []string
	reasons  []string
	envelope string // what is wrong with the error body, if anything
}

func (e *werr) String() string {
	return fmt.Sprintf("%d %s %q fields=%v reasons=%v", e.code, e.status, e.message, e.fields, e.reasons)
}

func (e *werr) names(field string) bool { return slices.Contains(e.fields, field) }

type reply struct {
	status int
	body   []byte
	result map[string]json.RawMessage
	err    *werr
	what   string
}

func (w wire) with(h func(http.Header)) wire { w.header = h; return w }

// do sends op with params on w's binding.
func (w wire) do(op string, params map[string]any) reply {
	var req *http.Request
	var err error
	what := op
	switch w.binding {
	case "jsonrpc":
		w.s.mu.Lock()
		w.s.seq++
		id := w.s.seq
		w.s.mu.Unlock()
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": op, "params": params})
		req, err = http.NewRequest(http.MethodPost, w.url, bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		what = string(body)
	default:
		p := map[string]any{}
		for k, v := range params {
			p[k] = v
		}
		id, _ := p["id"].(string)
		delete(p, "id")
		var u string
		var body []byte
		method := http.MethodGet
		switch op {
		case "ListTasks":
			u = w.url + "/tasks" + queryOf(p)
		case "GetTask":
			u = w.url + "/tasks/" + url.PathEscape(id) + queryOf(p)
		case "CancelTask":
			method, u, body = http.MethodPost, w.url+"/tasks/"+url.PathEscape(id)+":cancel", []byte("{}")
		case "SendMessage":
			method, u = http.MethodPost, w.url+"/message:send"
			body, _ = json.Marshal(p)
		default:
			w.s.t.Fatalf("no HTTP+JSON route for %s", op)
		}
		req, err = http.NewRequest(method, u, bytes.NewReader(body))
		if err == nil && body != nil {
			req.Header.Set("Content-Type", "application/a2a+json")
		}
		what = method + " " + u
	}
	if err != nil {
		w.s.t.Fatal(err)
	}
	req.Header.Set("A2A-Version", "1.0")
	if w.token != "" {
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	if w.header != nil {
		w.header(req.Header)
	}
	resp, err := w.s.hc.Do(req)
	if err != nil {
		w.s.t.Fatalf("%s: %v", what, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, body: b, what: what}
	if w.binding == "jsonrpc" {
		var env struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if json.Unmarshal(b, &env) != nil {
			r.err = &werr{code: resp.StatusCode, envelope: "reply is not a JSON-RPC object: " + abbrev(string(b))}
			return r
		}
		if len(env.Error) > 0 {
			r.err = parseRPCError(env.Error)
			if env.JSONRPC != "2.0" || len(env.ID) == 0 {
				r.err.envelope = "error reply lacks jsonrpc 2.0 or id"
			}
			return r
		}
		if json.Unmarshal(env.Result, &r.result) != nil || r.result == nil {
			r.err = &werr{code: resp.StatusCode, envelope: "result is not an object"}
		}
		return r
	}
	if resp.StatusCode >= 300 {
		r.err = parseStatusError(resp.StatusCode, b)
		return r
	}
	if json.Unmarshal(b, &r.result) != nil || r.result == nil {
		r.err = &werr{code: resp.StatusCode, envelope: "body is not a JSON object: " + abbrev(string(b))}
	}
	if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, "json") {
		w.s.flag("errors", "%s: Content-Type %q", what, ct)
	}
	return r
}

func abbrev(s string) string {
	if len(s) > 200 {
		return s[:197] + "..."
	}
	return s
}

func queryOf(p map[string]any) string {
	if len(p) == 0 {
		return ""
	}
	v := url.Values{}
	for k, x := range p {
		switch y := x.(type) {
		case string:
			v.Set(k, y)
		case bool:
			v.Set(k, strconv.FormatBool(y))
		default:
			v.Set(k, fmt.Sprint(y))
		}
	}
	return "?" + v.Encode()
}

type detail struct {
	Type            string `json:"@type"`
	Reason          string `json:"reason"`
	Domain          string `json:"domain"`
	FieldViolations []struct {
		Field string `json:"field"`
	} `json:"fieldViolations"`
}

func readDetails(e *werr, ds []detail) {
	for _, d := range ds {
		switch d.Type {
		case "type.googleapis.com/google.rpc.BadRequest":
			for _, f := range d.FieldViolations {
				e.fields = append(e.fields, f.Field)
			}
		case "type.googleapis.com/google.rpc.ErrorInfo":
			e.reasons = append(e.reasons, d.Reason)
			if d.Domain != "a2a-protocol.org" {
				e.envelope = "ErrorInfo domain " + d.Domain
			}
		case "":
			e.envelope = "detail without @type"
		}
	}
}

func parseRPCError(raw json.RawMessage) *werr {
	var o struct {
		Code    *int            `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	e := &werr{}
	if json.Unmarshal(raw, &o) != nil || o.Code == nil || o.Message == nil {
		e.envelope = "error object lacks code or message: " + abbrev(string(raw))
		return e
	}
	e.code, e.message = *o.Code, *o.Message
	if len(o.Data) > 0 && string(o.Data) != "null" {
		var ds []detail
		if json.Unmarshal(o.Data, &ds) != nil {
			e.envelope = "error.data is not an array of typed details"
		}
		readDetails(e, ds)
	}
	return e
}

func parseStatusError(status int, b []byte) *werr {
	var o struct {
		Error *struct {
			Code    *int     `json:"code"`
			Status  string   `json:"status"`
			Message string   `json:"message"`
			Details []detail `json:"details"`
		} `json:"error"`
	}
	e := &werr{code: status}
	if json.Unmarshal(b, &o) != nil || o.Error == nil || o.Error.Code == nil {
		e.envelope = "body is not a google.rpc.Status: " + abbrev(string(b))
		return e
	}
	if *o.Error.Code != status {
		e.envelope = fmt.Sprintf("error.code %d differs from HTTP %d", *o.Error.Code, status)
	}
	e.status, e.message = o.Error.Status, o.Error.Message
	readDetails(e, o.Error.Details)
	return e
}

// wtask is a task as served.
type wtask struct {
	ID, Ctx, State, TSRaw string
	TS                    time.Time
	HasHistory            bool
	History               []string
	HasArtifacts          bool
	ArtifactsRaw          string
	Artifacts             int
}

var rfc3339Z = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$`)

var validStates = []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
	"TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"}

func (s *selfCheck) parseTask(raw json.RawMessage, where string) wtask {
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil {
		s.flag("shape", "%s: a task is not an object", where)
		return wtask{}
	}
	var t wtask
	json.Unmarshal(o["id"], &t.ID)
	json.Unmarshal(o["contextId"], &t.Ctx)
	var st struct {
		State     string `json:"state"`
		Timestamp string `json:"timestamp"`
	}
	json.Unmarshal(o["status"], &st)
	t.State, t.TSRaw = st.State, st.Timestamp
	var err error
	t.TS, err = time.Parse(time.RFC3339Nano, st.Timestamp)
	switch {
	case t.ID == "" || t.Ctx == "":
		s.flag("shape", "%s: task without id or contextId: %s", where, abbrev(string(raw)))
	case !slices.Contains(validStates, t.State):
		s.flag("shape", "%s: task %s has state %q", where, t.ID, t.State)
	case err != nil || !rfc3339Z.MatchString(st.Timestamp):
		s.flag("shape", "%s: task %s has timestamp %q", where, t.ID, st.Timestamp)
	}
	if h, ok := o["history"]; ok {
		t.HasHistory = true
		var ms []struct {
			MessageID string `json:"messageId"`
		}
		if json.Unmarshal(h, &ms) != nil {
			s.flag("shape", "%s: task %s history is not an array", where, t.ID)
		}
		for _, m := range ms {
			t.History = append(t.History, m.MessageID)
		}
	}
	if a, ok := o["artifacts"]; ok {
		t.HasArtifacts, t.ArtifactsRaw = true, abbrev(string(a))
		var as []json.RawMessage
		json.Unmarshal(a, &as)
		t.Artifacts = len(as)
	}
	return t
}

// wpage is one ListTasks page.
type wpage struct {
	Tasks               []wtask
	Next                string
	NextState           string // string, absent, null
	PageSize, TotalSize *int
}

func (s *selfCheck) parsePage(r reply) wpage {
	var p wpage
	where := r.what
	var tasks []json.RawMessage
	if raw, ok := r.result["tasks"]; !ok || json.Unmarshal(raw, &tasks) != nil || string(raw) == "null" {
		s.flag("shape", "%s: tasks is not an array", where)
	}
	for _, raw := range tasks {
		p.Tasks = append(p.Tasks, s.parseTask(raw, where))
	}
	switch raw, ok := r.result["nextPageToken"]; {
	case !ok:
		p.NextState = "absent"
	case string(raw) == "null":
		p.NextState = "null"
	default:
		p.NextState = "string"
		if json.Unmarshal(raw, &p.Next) != nil {
			s.flag("shape", "%s: nextPageToken is not a string", where)
		}
	}
	for name, dst := range map[string]**int{"pageSize": &p.PageSize, "totalSize": &p.TotalSize} {
		var n int
		if raw, ok := r.result[name]; ok && json.Unmarshal(raw, &n) == nil {
			*dst = &n
		} else {
			s.flag("shape", "%s: %s is missing or not an integer", where, name)
		}
	}
	return p
}

// walk is a walk to nextPageToken "" (or to an absent or null
// nextPageToken, which is reported under absent-next-token and then treated
// as the end, so the other checks still judge what was served).
type walk struct {
	Pages []wpage
	Err   *werr
	Tasks []wtask
}

func (w walk) ids() []string {
	out := make([]string, len(w.Tasks))
	for i, t := range w.Tasks {
		out[i] = t.ID
	}
	return out
}

// between, if set, runs after page n of a walk.
type between func(n int)

func (w wire) walk(params map[string]any, maxPages int, mid between) walk {
	var out walk
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	seen := map[string]bool{}
	for n := 1; n <= maxPages; n++ {
		r := w.do("ListTasks", p)
		if r.err != nil {
			out.Err = r.err
			return out
		}
		pg := w.s.parsePage(r)
		out.Pages = append(out.Pages, pg)
		out.Tasks = append(out.Tasks, pg.Tasks...)
		if ps, ok := p["pageSize"].(int); ok && len(pg.Tasks) > ps {
			w.s.flag("pagesize-unvalidated", "pageSize %d served %d tasks", ps, len(pg.Tasks))
		}
		if pg.NextState != "string" {
			w.s.flag("absent-next-token", "%s: page %d has nextPageToken %s", w.binding, n, pg.NextState)
			return out
		}
		if pg.Next == "" {
			return out
		}
		if seen[pg.Next] {
			w.s.flag("shape", "%s: page %d repeats an earlier nextPageToken", w.binding, n)
			return out
		}
		seen[pg.Next] = true
		if mid != nil {
			mid(n)
		}
		p["pageToken"] = pg.Next
	}
	w.s.t.Fatalf("walk %v did not end within %d pages", params, maxPages)
	return out
}

// must runs a walk that has to succeed.
func (w wire) mustWalk(params map[string]any, mid between) walk {
	wk := w.walk(params, 5000, mid)
	if wk.Err != nil {
		w.s.t.Fatalf("%s ListTasks %v failed: %s", w.binding, params, wk.Err)
	}
	return wk
}

// run runs every probe on every declared binding: first those that write
// nothing (and the comparison of the bindings, before any write), then the
// walks and the probes that create tasks.
func (s *selfCheck) run() {
	s.checkCard()
	type pair struct{ alice, bob wire }
	var ws []pair
	for _, b := range []struct{ name, url string }{{"jsonrpc", s.rpc}, {"http", s.rst}} {
		if b.url != "" {
			ws = append(ws, pair{wire{s: s, binding: b.name, url: b.url, token: "alice-token"}, wire{s: s, binding: b.name, url: b.url, token: "bob-token"}})
		}
	}
	var seqs [][]string
	for _, w := range ws {
		s.checkAccess(w.alice)
		s.checkErrors(w.alice)
		s.checkParams(w.alice)
		seqs = append(seqs, w.alice.mustWalk(map[string]any{"pageSize": 50, "historyLength": 0}, nil).ids())
	}
	if len(seqs) == 2 && !slices.Equal(seqs[0], seqs[1]) {
		s.flag("bindings", "the unfiltered walk differs between JSON-RPC (%d tasks) and HTTP+JSON (%d tasks)", len(seqs[0]), len(seqs[1]))
	}
	for i, w := range ws {
		truth := s.checkWalks(w.alice, w.bob, i == 0)
		s.checkFilters(w.alice, truth)
		s.checkContent(w.alice, truth)
		s.checkTokens(w.alice, w.bob, truth)
		s.checkScope(w.alice, w.bob, truth)
		s.checkMoving(w.alice, w.alice.binding)
		s.checkSend(w.alice, w.bob, w.alice.binding)
	}
}

func (s *selfCheck) checkCard() {
	resp, err := s.hc.Get(s.base + "/.well-known/agent-card.json")
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var card struct {
		Name                string `json:"name"`
		SupportedInterfaces []struct {
			URL             string `json:"url"`
			ProtocolBinding string `json:"protocolBinding"`
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"supportedInterfaces"`
		SecuritySchemes map[string]struct {
			HTTP *struct {
				Scheme string `json:"scheme"`
			} `json:"httpAuthSecurityScheme"`
		} `json:"securitySchemes"`
		SecurityRequirements []json.RawMessage `json:"securityRequirements"`
	}
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&card) != nil {
		s.t.Fatalf("agent card: HTTP %d or not JSON", resp.StatusCode)
	}
	var bindings []string
	for _, i := range card.SupportedInterfaces {
		if i.ProtocolVersion != "1.0" || !strings.HasPrefix(i.URL, "http://127.0.0.1:") {
			s.flag("card", "interface %s %s at %s", i.ProtocolBinding, i.ProtocolVersion, i.URL)
		}
		bindings = append(bindings, i.ProtocolBinding)
		switch i.ProtocolBinding {
		case "JSONRPC":
			s.rpc = i.URL
		case "HTTP+JSON":
			s.rst = i.URL
		}
	}
	if !slices.Equal(bindings, s.exp.Bindings) {
		s.flag("card", "card declares %v, expect.yaml says %v", bindings, s.exp.Bindings)
	}
	bearer := false
	for _, sch := range card.SecuritySchemes {
		bearer = bearer || (sch.HTTP != nil && strings.EqualFold(sch.HTTP.Scheme, "bearer"))
	}
	if card.Name == "" || !bearer || len(card.SecurityRequirements) == 0 {
		s.flag("card", "card lacks a name, a bearer httpAuthSecurityScheme or securityRequirements")
	}
}

// checkAccess: authentication and the A2A-Version header.
func (s *selfCheck) checkAccess(a wire) {
	for _, tok := range []string{"", "mallory-token"} {
		w := a
		w.token = tok
		r := w.do("ListTasks", map[string]any{"pageSize": 1})
		if r.status != http.StatusUnauthorized {
			s.flag("auth", "%s: token %q got HTTP %d, want 401", a.binding, tok, r.status)
		}
	}
	for _, v := range []string{"1.0.1", "1.0.12"} {
		r := a.with(func(h http.Header) { h.Set("A2A-Version", v) }).do("ListTasks", map[string]any{"pageSize": 1})
		if r.err != nil {
			s.flag("version", "%s: A2A-Version %s (a patch number, which is not negotiated) was refused: %v", a.binding, v, r.err)
		}
	}
	if r := a.with(func(h http.Header) {
		h.Del("A2A-Version")
		h["a2a-version"] = []string{"1.0"}
	}).do("ListTasks", map[string]any{"pageSize": 1}); r.err != nil {
		s.flag("version", "%s: header a2a-version (lower case) was refused: %v", a.binding, r.err)
	}
	for _, v := range []string{"", "0.3", "2.0", "1.1", "1.0.x"} {
		r := a.with(func(h http.Header) {
			if v == "" {
				h.Del("A2A-Version")
			} else {
				h.Set("A2A-Version", v)
			}
		}).do("ListTasks", map[string]any{"pageSize": 1})
		want := -32009
		if a.binding == "http" {
			want = 400
		}
		if r.err == nil || r.err.code != want || !slices.Contains(r.err.reasons, "VERSION_NOT_SUPPORTED") {
			s.flag("version", "%s: A2A-Version %q: want VersionNotSupported (%d, VERSION_NOT_SUPPORTED), got %v", a.binding, v, want, r.err)
		}
	}
}

// checkErrors: the envelopes of TaskNotFound, invalid params, an unknown
// method and a parse error.
func (s *selfCheck) checkErrors(a wire) {
	nf, inv, ok := -32001, -32602, true
	if a.binding == "http" {
		nf, inv = 404, 400
	}
	for _, op := range []string{"GetTask", "CancelTask"} {
		r := a.do(op, map[string]any{"id": "no-such-task-0000"})
		if r.err == nil || r.err.code != nf || !slices.Contains(r.err.reasons, "TASK_NOT_FOUND") || r.err.envelope != "" {
			s.flag("errors", "%s %s of a missing task: want %d with ErrorInfo TASK_NOT_FOUND, got %v (%s)", a.binding, op, nf, r.err, r.body)
		}
	}
	r := a.do("ListTasks", map[string]any{"pageSize": 2, "historyLength": -3})
	if r.err == nil || r.err.code != inv || !r.err.names("historyLength") || r.err.envelope != "" {
		s.flag("history-ignored", "%s ListTasks historyLength -3: want %d naming historyLength, got %v", a.binding, inv, r.err)
		ok = false
	}
	if a.binding == "http" && ok && r.err.status != "INVALID_ARGUMENT" {
		s.flag("errors", "http invalid params: status %q, want INVALID_ARGUMENT", r.err.status)
	}
	if a.binding != "jsonrpc" {
		return
	}
	if r := a.do("tasks/list", map[string]any{}); r.err == nil || r.err.code != -32601 {
		s.flag("errors", "jsonrpc method tasks/list: want -32601, got %v", r.err)
	}
	req, _ := http.NewRequest(http.MethodPost, a.url, strings.NewReader(`{"jsonrpc": "2.0", "id": 1, "method": `))
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("A2A-Version", "1.0")
	resp, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.NewDecoder(resp.Body).Decode(&env) != nil || env.Error.Code != -32700 {
		s.flag("errors", "a truncated JSON-RPC body: want -32700, got %d", env.Error.Code)
	}
}

// checkParams: pageSize bounds and default, malformed filters, garbage
// tokens.
func (s *selfCheck) checkParams(a wire) {
	inv := -32602
	if a.binding == "http" {
		inv = 400
	}
	for _, v := range []any{0, -1, 101, 150, 1.5, "ten"} {
		r := a.do("ListTasks", map[string]any{"pageSize": v, "historyLength": 0})
		if r.err == nil || r.err.code != inv || !r.err.names("pageSize") {
			s.flag("pagesize-unvalidated", "%s pageSize %v: want %d naming pageSize, got %v", a.binding, v, inv, r.err)
		}
	}
	r := a.do("ListTasks", map[string]any{"historyLength": 0})
	if r.err != nil {
		s.t.Fatalf("%s ListTasks without pageSize: %v", a.binding, r.err)
	}
	if p := s.parsePage(r); len(p.Tasks) > 50 || len(p.Tasks) == 0 {
		s.flag("pagesize-default", "%s: without pageSize the page held %d tasks", a.binding, len(p.Tasks))
	}
	for _, c := range []struct {
		field string
		v     any
	}{{"status", "TASK_STATE_BOGUS"}, {"status", "done"}, {"statusTimestampAfter", "yesterday"},
		{"statusTimestampAfter", "2026-13-45T99:00:00Z"}, {"includeArtifacts", "maybe"}} {
		r := a.do("ListTasks", map[string]any{"pageSize": 2, c.field: c.v})
		if r.err == nil || r.err.code != inv || !r.err.names(c.field) {
			s.flag("invalid-filters", "%s %s %v: want %d naming %s, got %v", a.binding, c.field, c.v, inv, c.field, r.err)
		}
	}
	for _, tok := range []string{"not-a-token", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", strings.Repeat("Zm9v", 2048), "%%%"} {
		r := a.do("ListTasks", map[string]any{"pageSize": 2, "pageToken": tok})
		if r.err == nil || r.err.code != inv || !r.err.names("pageToken") {
			s.flag("token-garbage", "%s pageToken %q: want %d naming pageToken, got %v", a.binding, abbrev(tok), inv, r.err)
		}
	}
}

// truth is what the walks of one binding established.
type truth struct {
	seq   []string         // alice's unfiltered walk, in order
	tasks map[string]wtask // every task alice's listings showed
	bob   map[string]wtask
	// inexact is set when walks at different page sizes disagreed: then a
	// filtered walk of several pages can lose tasks for that reason alone,
	// and the filter checks judge only what such a walk served.
	inexact bool
}

// checkWalks walks alice's listing at several page sizes and bob's once,
// and judges order, exactness, ties, totalSize and the data itself.
func (s *selfCheck) checkWalks(a, b wire, first bool) truth {
	tr := truth{tasks: map[string]wtask{}, bob: map[string]wtask{}}
	var walks []walk
	for _, size := range []int{100, 7, 3} {
		w := a.mustWalk(map[string]any{"pageSize": size, "historyLength": 0}, nil)
		walks = append(walks, w)
		for _, t := range w.Tasks {
			tr.tasks[t.ID] = t
		}
		s.checkOrder(w, fmt.Sprintf("%s pageSize %d", a.binding, size))
	}
	tr.seq = walks[0].ids()
	// Each context listed in one page (contexts hold at most 100 tasks), so
	// tasks a cursor bug skips at page boundaries still join the truth.
	ctxs := map[string]int{}
	for _, t := range tr.tasks {
		ctxs[t.Ctx]++
	}
	for c := range ctxs {
		r := a.do("ListTasks", map[string]any{"contextId": c, "pageSize": 100, "historyLength": 0})
		if r.err != nil {
			s.t.Fatalf("ListTasks contextId %s: %v", c, r.err)
		}
		for _, t := range s.parsePage(r).Tasks {
			if _, ok := tr.tasks[t.ID]; !ok {
				tr.tasks[t.ID] = t
			}
		}
	}
	for i, w := range walks {
		counts := map[string]int{}
		for _, id := range w.ids() {
			counts[id]++
		}
		var dup, miss []string
		for id, n := range counts {
			if n > 1 {
				dup = append(dup, id)
			}
		}
		for id := range tr.tasks {
			if counts[id] == 0 {
				miss = append(miss, id)
			}
		}
		if len(dup) > 0 || len(miss) > 0 || !slices.Equal(w.ids(), tr.seq) {
			tr.inexact = true
		}
		if len(dup) > 0 || len(miss) > 0 {
			s.flag("second-ties-timestamp-cursor", "%s walk %d: %d duplicates, %d of %d tasks never served (e.g. %v)", a.binding, i, len(dup), len(miss), len(tr.tasks), first3(append(dup, miss...)))
		} else if !slices.Equal(w.ids(), tr.seq) {
			s.flag("second-ties-timestamp-cursor", "%s: walks at different page sizes serve the same tasks in different orders", a.binding)
		}
		for n, p := range w.Pages {
			if n+1 < len(w.Pages) && len(p.Tasks) < []int{100, 7, 3}[i] {
				s.observe("short page")
			}
			if n+1 < len(w.Pages) && len(p.Tasks) > 0 && len(w.Pages[n+1].Tasks) > 0 && p.Tasks[len(p.Tasks)-1].TS.Equal(w.Pages[n+1].Tasks[0].TS) {
				s.observe("tie at a page boundary")
			}
			if p.TotalSize != nil && *p.TotalSize != len(tr.tasks) {
				s.flag("total-size-page-count", "%s walk %d page %d: totalSize %d, %d tasks are listed", a.binding, i, n+1, *p.TotalSize, len(tr.tasks))
				break
			}
		}
	}
	bw := b.mustWalk(map[string]any{"pageSize": 100, "historyLength": 0}, nil)
	for _, t := range bw.Tasks {
		tr.bob[t.ID] = t
	}
	if first {
		s.checkData(tr)
	}
	return tr
}

func first3(ids []string) []string {
	sort.Strings(ids)
	return ids[:min(3, len(ids))]
}

func (s *selfCheck) checkOrder(w walk, what string) {
	for i := 1; i < len(w.Tasks); i++ {
		if w.Tasks[i].TS.Equal(w.Tasks[i-1].TS) {
			if w.Tasks[i].ID > w.Tasks[i-1].ID {
				s.observe("ties ascending by id")
			} else {
				s.observe("ties descending by id")
			}
		}
		if w.Tasks[i].TS.After(w.Tasks[i-1].TS) {
			s.flag("id-order", "%s: %s (%s) follows %s (%s)", what, w.Tasks[i].ID, w.Tasks[i].TSRaw, w.Tasks[i-1].ID, w.Tasks[i-1].TSRaw)
			return
		}
	}
}

// checkData: the pre-existing data is rich enough to show the defects
// (several contexts, every state, ties, history, artifacts) and stamped at
// the declared precision.
func (s *selfCheck) checkData(tr truth) {
	ctxs, states, ts := map[string]bool{}, map[string]bool{}, map[time.Time]int{}
	digits := map[string]int{"s": 0, "ms": 3, "us": 6, "ns": 9}[s.exp.Precision]
	for _, t := range tr.tasks {
		ctxs[t.Ctx], states[t.State] = true, true
		ts[t.TS]++
		frac := 0
		if _, f, ok := strings.Cut(strings.TrimSuffix(t.TSRaw, "Z"), "."); ok {
			frac = len(f)
		}
		if frac != digits {
			s.flag("precision", "task %s timestamp %s: want %d fractional digits (%s)", t.ID, t.TSRaw, digits, s.exp.Precision)
		}
	}
	ties := 0
	for _, n := range ts {
		if n > 1 {
			ties++
		}
	}
	if len(tr.tasks) < 300 || len(tr.bob) < 100 || len(ctxs) < 3 || len(states) < 8 || ties < 5 {
		s.flag("data", "alice has %d tasks in %d contexts, %d states, %d tie groups; bob %d tasks", len(tr.tasks), len(ctxs), len(states), ties, len(tr.bob))
	}
}

// checkFilters: contextId, status and statusTimestampAfter against the
// truth.
func (s *selfCheck) checkFilters(a wire, tr truth) {
	want := func(pred func(wtask) bool) []string {
		var out []string
		for id, t := range tr.tasks {
			if pred(t) {
				out = append(out, id)
			}
		}
		sort.Strings(out)
		return out
	}
	// got walks a filtered listing. When the unfiltered walks were inexact
	// and this one took several pages, tasks it lost are not the filter's
	// doing: only tasks it should not have served are judged.
	got := func(params map[string]any, want []string) []string {
		params["pageSize"], params["historyLength"] = 100, 0
		wk := a.mustWalk(params, nil)
		ids := wk.ids()
		sort.Strings(ids)
		if tr.inexact && len(wk.Pages) > 1 {
			extra := false
			for _, id := range ids {
				extra = extra || !slices.Contains(want, id)
			}
			if !extra {
				return want
			}
		}
		return ids
	}
	ctxs := map[string]int{}
	for _, t := range tr.tasks {
		ctxs[t.Ctx]++
	}
	names := make([]string, 0, len(ctxs))
	for c := range ctxs {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names[:min(3, len(names))] {
		w := want(func(t wtask) bool { return t.Ctx == c })
		if g := got(map[string]any{"contextId": c}, w); !slices.Equal(g, w) {
			s.flag("ignores-context-filter", "%s contextId %s: %d tasks, want %d", a.binding, c, len(g), len(w))
		}
	}
	if g := got(map[string]any{"contextId": "no-such-context-here"}, nil); len(g) != 0 {
		s.flag("ignores-context-filter", "%s contextId of no task: %d tasks", a.binding, len(g))
	}
	for _, st := range append(validStates, "TASK_STATE_UNSPECIFIED") {
		w := want(func(t wtask) bool { return st == "TASK_STATE_UNSPECIFIED" || t.State == st })
		if g := got(map[string]any{"status": st}, w); !slices.Equal(g, w) {
			s.flag("status-filter", "%s status %s: %d tasks, want %d", a.binding, st, len(g), len(w))
		}
	}
	// statusTimestampAfter at exactly a served timestamp (a tie group when
	// there is one near the head), and between two timestamps.
	var cut []wtask
	for i, id := range tr.seq {
		if i >= 40 {
			break
		}
		cut = append(cut, tr.tasks[id])
	}
	for _, k := range []int{5, 20, 39} {
		if k >= len(cut) {
			continue
		}
		at := cut[k]
		w := want(func(t wtask) bool { return !t.TS.Before(at.TS) })
		if g := got(map[string]any{"statusTimestampAfter": at.TSRaw}, w); !slices.Equal(g, w) {
			s.flag("tsa-exclusive", "%s statusTimestampAfter %s (task %s's own): %d tasks, want %d (>=)", a.binding, at.TSRaw, at.ID, len(g), len(w))
		}
		mid := at.TS.Add(-time.Nanosecond)
		w = want(func(t wtask) bool { return !t.TS.Before(mid) })
		if g := got(map[string]any{"statusTimestampAfter": mid.Format(time.RFC3339Nano)}, w); !slices.Equal(g, w) {
			s.flag("tsa-exclusive", "%s statusTimestampAfter %s: %d tasks, want %d", a.binding, mid.Format(time.RFC3339Nano), len(g), len(w))
		}
	}
}

// checkContent: historyLength and includeArtifacts, on ListTasks and
// GetTask.
func (s *selfCheck) checkContent(a wire, tr truth) {
	full := map[string][]string{}
	arts := map[string]int{}
	var sample []string
	for _, id := range tr.seq {
		if len(sample) >= 60 {
			break
		}
		r := a.do("GetTask", map[string]any{"id": id})
		if r.err != nil {
			s.flag("leaks-across-principals", "%s: alice's listing shows %s but GetTask says %v", a.binding, id, r.err)
			continue
		}
		t := s.parseTask(mustJSON(r.result), "GetTask")
		full[id], arts[id] = t.History, t.Artifacts
		sample = append(sample, id)
	}
	for _, hl := range []any{nil, 0, 1, 2, 100} {
		for _, inc := range []any{nil, false, true} {
			p := map[string]any{"pageSize": 60}
			if hl != nil {
				p["historyLength"] = hl
			}
			if inc != nil {
				p["includeArtifacts"] = inc
			}
			r := a.do("ListTasks", p)
			if r.err != nil {
				s.t.Fatalf("ListTasks %v: %v", p, r.err)
			}
			for _, t := range s.parsePage(r).Tasks {
				f, known := full[t.ID]
				if !known {
					continue
				}
				s.judgeHistory(a.binding+" ListTasks", t, f, hl)
				on := inc == true
				switch {
				case !on && t.HasArtifacts:
					s.flag("artifacts-empty-array", "%s includeArtifacts %v: task %s has artifacts %s", a.binding, inc, t.ID, t.ArtifactsRaw)
				case on && arts[t.ID] > 0 && t.Artifacts != arts[t.ID]:
					s.flag("artifacts-empty-array", "%s includeArtifacts true: task %s shows %d of %d artifacts", a.binding, t.ID, t.Artifacts, arts[t.ID])
				}
			}
		}
	}
	withHist := 0
	for _, id := range sample {
		if len(full[id]) < 3 {
			continue
		}
		withHist++
		for _, hl := range []any{0, 1, 2} {
			r := a.do("GetTask", map[string]any{"id": id, "historyLength": hl})
			if r.err != nil {
				s.t.Fatalf("GetTask %s historyLength %v: %v", id, hl, r.err)
			}
			s.judgeHistory(a.binding+" GetTask", s.parseTask(mustJSON(r.result), "GetTask"), full[id], hl)
		}
		if r := a.do("GetTask", map[string]any{"id": id, "historyLength": -1}); r.err == nil || !r.err.names("historyLength") {
			s.flag("history-ignored", "%s GetTask historyLength -1: want invalid params naming historyLength, got %v", a.binding, r.err)
		}
	}
	if withHist == 0 {
		s.flag("data", "none of the newest 60 tasks has 3 or more history messages")
	}
}

func (s *selfCheck) judgeHistory(what string, t wtask, full []string, hl any) {
	n, set := hl.(int)
	switch {
	case !set:
		if !slices.Equal(t.History, full) {
			s.flag("history-ignored", "%s historyLength unset: task %s shows %d of %d messages", what, t.ID, len(t.History), len(full))
		}
	case n == 0 && t.HasHistory:
		s.flag("history-ignored", "%s historyLength 0: task %s has a history member (%d messages)", what, t.ID, len(t.History))
	case n > 0 && !slices.Equal(t.History, full[max(0, len(full)-n):]):
		s.flag("history-ignored", "%s historyLength %d: task %s shows %d messages, want the last %d of %d", what, n, t.ID, len(t.History), min(n, len(full)), len(full))
	}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// checkTokens: replay by the other principal, replay with changed
// filters, tampering.
func (s *selfCheck) checkTokens(a, b wire, tr truth) {
	ctxs := map[string]int{}
	for _, t := range tr.tasks {
		ctxs[t.Ctx]++
	}
	big := ""
	for c, n := range ctxs {
		if n >= 8 && (big == "" || c < big) {
			big = c
		}
	}
	base := map[string]any{"contextId": big, "pageSize": 2, "historyLength": 0}
	r := a.do("ListTasks", base)
	if r.err != nil {
		s.t.Fatalf("ListTasks %v: %v", base, r.err)
	}
	tok := s.parsePage(r).Next
	if tok == "" {
		s.t.Fatalf("context %s (%d tasks) gave no nextPageToken at pageSize 2", big, ctxs[big])
	}
	with := func(edit func(map[string]any)) map[string]any {
		p := map[string]any{"pageToken": tok}
		for k, v := range base {
			p[k] = v
		}
		if edit != nil {
			edit(p)
		}
		return p
	}
	if r := a.do("ListTasks", with(nil)); r.err != nil {
		s.t.Fatalf("the token does not continue its own walk: %v", r.err)
	}
	if opaque(tok) {
		s.observe("opaque token")
	}
	if r := b.do("ListTasks", with(nil)); r.err == nil {
		leaked := 0
		for _, t := range s.parsePage(r).Tasks {
			if _, ok := tr.tasks[t.ID]; ok {
				leaked++
			}
		}
		if leaked > 0 {
			s.flag("unbound-token", "%s: bob replayed alice's token and got %d of alice's tasks", a.binding, leaked)
		} else {
			s.flag("token-principal-binding", "%s: bob's replay of alice's token was accepted", a.binding)
		}
	}
	for what, edit := range map[string]func(map[string]any){
		"contextId":            func(p map[string]any) { p["contextId"] = "another-context" },
		"status":               func(p map[string]any) { p["status"] = "TASK_STATE_COMPLETED" },
		"statusTimestampAfter": func(p map[string]any) { p["statusTimestampAfter"] = "2026-01-01T00:00:00Z" },
		"historyLength":        func(p map[string]any) { p["historyLength"] = 1 },
		"includeArtifacts":     func(p map[string]any) { p["includeArtifacts"] = true },
	} {
		if r := a.do("ListTasks", with(edit)); r.err == nil {
			s.flag("token-filter-binding", "%s: the token was accepted with %s changed", a.binding, what)
		}
	}
	for _, v := range tampered(tok) {
		if r := a.do("ListTasks", with(func(p map[string]any) { p["pageToken"] = v })); r.err == nil {
			s.flag("token-tamper", "%s: tampered token %q (from %q) was accepted", a.binding, abbrev(v), abbrev(tok))
		} else if r.err.code >= 500 || (r.err.code != -32602 && r.err.code != 400) {
			s.flag("token-garbage", "%s: tampered token refused with %v", a.binding, r.err)
		}
	}
}

// opaque reports whether tok reveals nothing: it holds no long run of
// digits (a timestamp, an offset) and no part of it decodes, as base64, to
// mostly printable text (JSON, a cursor).
func opaque(tok string) bool {
	if regexp.MustCompile(`(^|[^0-9a-f])\d{6,}`).MatchString(tok) {
		return false
	}
	for _, part := range append(strings.FieldsFunc(tok, func(r rune) bool { return r == '.' || r == '~' }), tok) {
		for _, e := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
			b, err := e.DecodeString(part)
			if err != nil || len(b) == 0 {
				continue
			}
			printable := 0
			for _, c := range b {
				if c >= 0x20 && c < 0x7f {
					printable++
				}
			}
			if printable*10 >= len(b)*8 {
				return false
			}
		}
	}
	return true
}

// tampered returns edited copies of tok whose bytes really differ: one
// character changed at up to 24 places (skipping edits a lenient base64
// decoder would read back as the same bytes), and bit flips in the decoded
// bytes when tok is base64.
func tampered(tok string) []string {
	encs := []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding}
	decode := func(s string) ([]byte, *base64.Encoding) {
		for _, e := range encs {
			if b, err := e.DecodeString(s); err == nil && e.EncodeToString(b) == s {
				return b, e
			}
		}
		return nil, nil
	}
	raw, enc := decode(tok)
	var out []string
	step := max(1, len(tok)/24)
	for i := 0; i < len(tok); i += step {
		b := []byte(tok)
		switch c := b[i]; {
		case c >= 'a' && c < 'z', c >= 'A' && c < 'Z', c >= '0' && c < '9':
			b[i]++
		case c == 'z' || c == 'Z' || c == '9':
			b[i] -= 2
		default:
			b[i] = 'Q'
		}
		if enc != nil {
			if d, err := enc.DecodeString(string(b)); err == nil && bytes.Equal(d, raw) {
				continue
			}
		}
		out = append(out, string(b))
	}
	if enc != nil {
		bstep := max(1, len(raw)/16)
		for i := 0; i < len(raw); i += bstep {
			m := append([]byte(nil), raw...)
			m[i] ^= 0x01
			out = append(out, enc.EncodeToString(m))
		}
	}
	return out
}

// checkScope: listings are disjoint, the shared context is separate, and
// GetTask and CancelTask on a foreign task answer as for a missing one.
func (s *selfCheck) checkScope(a, b wire, tr truth) {
	both := 0
	for id := range tr.bob {
		if _, ok := tr.tasks[id]; ok {
			both++
		}
	}
	if both > 0 {
		s.flag("leaks-across-principals", "%s: %d tasks appear in both alice's and bob's listings", a.binding, both)
	}
	var victim string
	for _, id := range tr.seq {
		if t := tr.tasks[id]; t.State == "TASK_STATE_WORKING" || t.State == "TASK_STATE_INPUT_REQUIRED" || t.State == "TASK_STATE_SUBMITTED" {
			victim = id
			break
		}
	}
	if victim == "" {
		s.flag("data", "no non-terminal task among alice's")
		return
	}
	if _, bobs := tr.bob[victim]; bobs {
		return // a leaking server: reported above
	}
	for _, op := range []string{"GetTask", "CancelTask"} {
		f := b.do(op, map[string]any{"id": victim})
		m := b.do(op, map[string]any{"id": "missing-" + victim})
		if f.err == nil || m.err == nil || f.err.code != m.err.code || f.status != m.status {
			s.flag("scope-get", "%s %s by bob on alice's task: %v, on a missing one: %v", a.binding, op, f.err, m.err)
		}
	}
	if r := a.do("GetTask", map[string]any{"id": victim, "historyLength": 0}); r.err != nil || s.parseTask(mustJSON(r.result), "GetTask").State != tr.tasks[victim].State {
		s.flag("scope-get", "%s: bob's CancelTask changed alice's task %s", a.binding, victim)
	}
}

// send creates a task with SendMessage and returns it.
func (s *selfCheck) send(w wire, ctx, taskID, text string) (wtask, *werr) {
	s.mu.Lock()
	s.seq++
	mid := fmt.Sprintf("selfcheck-msg-%d", s.seq)
	s.mu.Unlock()
	msg := map[string]any{"messageId": mid, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	if ctx != "" {
		msg["contextId"] = ctx
	}
	if taskID != "" {
		msg["taskId"] = taskID
	}
	r := w.do("SendMessage", map[string]any{"message": msg, "configuration": map[string]any{"historyLength": 0}})
	if r.err != nil {
		return wtask{}, r.err
	}
	raw, ok := r.result["task"]
	if !ok {
		s.flag("send", "%s SendMessage answered without a task: %s", w.binding, abbrev(string(r.body)))
		return wtask{}, nil
	}
	t := s.parseTask(raw, "SendMessage")
	if t.HasHistory {
		s.flag("history-ignored", "%s SendMessage with configuration.historyLength 0 returned history", w.binding)
	}
	return t, nil
}

// checkMoving: a task created, and a task moved, after page 1 of a walk
// must not shift the walk: every unchanged task is served exactly once.
func (s *selfCheck) checkMoving(a wire, b string) {
	for _, mode := range []string{"insert", "move"} {
		ctx := fmt.Sprintf("selfcheck-moving-%s-%s", b, mode)
		var made []wtask
		for i := 0; i < 10; i++ {
			t, err := s.send(a, ctx, "", "please keep working on this")
			if err != nil {
				s.t.Fatalf("SendMessage: %v", err)
			}
			made = append(made, t)
		}
		moved := ""
		wk := a.mustWalk(map[string]any{"contextId": ctx, "pageSize": 3, "historyLength": 0}, func(n int) {
			if n != 1 {
				return
			}
			if mode == "insert" {
				if _, err := s.send(a, ctx, "", "one more, keep working"); err != nil {
					s.t.Fatalf("SendMessage: %v", err)
				}
				return
			}
			moved = made[0].ID // the oldest: served last
			if _, err := s.send(a, ctx, moved, "an update, keep working"); err != nil {
				s.t.Fatalf("follow-up SendMessage: %v", err)
			}
		})
		counts := map[string]int{}
		for _, id := range wk.ids() {
			counts[id]++
		}
		for _, t := range made {
			if t.ID != moved && counts[t.ID] != 1 {
				s.flag("offset-token", "%s %s after page 1: unchanged task %s was served %d times", b, mode, t.ID, counts[t.ID])
			}
		}
	}
}

// checkSend: SendMessage accepts the client's context, a follow-up moves
// the status timestamp, CancelTask cancels once, and another principal
// cannot continue the task.
func (s *selfCheck) checkSend(a, b wire, bnd string) {
	ctx := "selfcheck-send-" + bnd
	t, err := s.send(a, ctx, "", "keep working please")
	if err != nil || t.Ctx != ctx || t.ID == "" {
		s.flag("send", "%s SendMessage in context %s: %+v %v", bnd, ctx, t, err)
		return
	}
	if t.State != "TASK_STATE_INPUT_REQUIRED" && t.State != "TASK_STATE_COMPLETED" && t.State != "TASK_STATE_WORKING" {
		s.flag("send", "%s SendMessage settled the task in %s", bnd, t.State)
	}
	if _, err := s.send(b, ctx, t.ID, "let me in"); err == nil || err.code != map[string]int{"jsonrpc": -32001, "http": 404}[bnd] {
		s.flag("scope-get", "%s: bob's follow-up on alice's task: %v", bnd, err)
	}
	if t.State != "TASK_STATE_COMPLETED" {
		t2, err := s.send(a, ctx, t.ID, "more detail, keep working")
		if err != nil || t2.ID != t.ID || !t2.TS.After(t.TS) {
			s.flag("send", "%s follow-up: %v; timestamp %s -> %s", bnd, err, t.TSRaw, t2.TSRaw)
		}
		r := a.do("CancelTask", map[string]any{"id": t.ID})
		if r.err != nil {
			s.flag("send", "%s CancelTask: %v", bnd, r.err)
		} else if c := s.parseTask(mustJSON(r.result), "CancelTask"); c.State != "TASK_STATE_CANCELED" || !c.TS.After(t2.TS) {
			s.flag("send", "%s CancelTask gave %s at %s", bnd, c.State, c.TSRaw)
		}
	}
	if r := a.do("CancelTask", map[string]any{"id": t.ID}); r.err == nil || (r.err.code != -32002 && r.err.code != 400 && r.err.code != 409) {
		s.flag("send", "%s CancelTask of a terminal task: want TaskNotCancelable, got %v", bnd, r.err)
	}
	if _, err := s.send(a, ctx, t.ID, "are you there"); err == nil {
		s.flag("send", "%s: a message to a terminal task was accepted", bnd)
	}
	wk := a.mustWalk(map[string]any{"contextId": ctx, "pageSize": 100, "historyLength": 0}, nil)
	switch ids := wk.ids(); {
	case !slices.Contains(ids, t.ID):
		s.flag("send", "%s: context %s does not list the task %s created in it", bnd, ctx, t.ID)
	case len(ids) > 1:
		s.flag("ignores-context-filter", "%s: context %s lists %d tasks, want only %s", bnd, ctx, len(ids), t.ID)
	}
}
