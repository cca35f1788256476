package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Hand-built transcripts for the checkers of the card, protocol, envelope,
// json, shape and auth areas: each is shown to fail on a reply that breaks
// its rule and to pass on one that keeps it. They join checkerTests, which
// TestCheckers runs and which every scenario's checker must be in.

func init() {
	for name, fn := range protocolCheckerTests {
		if _, dup := checkerTests[name]; dup {
			panic("two tests for checker " + name)
		}
		checkerTests[name] = fn
	}
}

// wireOf builds a decoded raw reply with its Content-Type.
func wireOf(b a2aclient.Binding, status int, contentType, body string) *Wire {
	return &Wire{Response: reply(b, status, body), ContentType: contentType}
}

const (
	rpcOK   = `{"jsonrpc":"2.0","id":"1","result":{"tasks":[{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}],"nextPageToken":"","pageSize":1,"totalSize":1}}`
	httpOK  = `{"tasks":[{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}],"nextPageToken":"","pageSize":1,"totalSize":1}`
	rpcVNS  = `{"jsonrpc":"2.0","id":"1","error":{"code":-32009,"message":"A2A-Version: 0.3 not supported","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org"}]}}`
	httpVNS = `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"A2A-Version: not supported","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org"}]}}`
	rpcJSON = "application/json"
	a2aJSON = "application/a2a+json"
)

// listing renders a ListTasks result body holding tasks with the given ids
// in state TASK_STATE_WORKING, and totalSize 9.
func listing(b a2aclient.Binding, ids ...string) string {
	var ts []string
	for _, id := range ids {
		ts = append(ts, fmt.Sprintf(`{"id":%q,"status":{"state":"TASK_STATE_WORKING","timestamp":"2030-01-01T00:00:00.000Z"}}`, id))
	}
	res := fmt.Sprintf(`{"tasks":[%s],"nextPageToken":"","pageSize":10,"totalSize":9}`, strings.Join(ts, ","))
	if b == a2aclient.JSONRPC {
		return `{"jsonrpc":"2.0","id":"1","result":` + res + `}`
	}
	return res
}

var protocolCheckerTests = map[string]func(*testing.T){
	"CheckCardWellKnown": func(t *testing.T) {
		good := `{"name":"x","supportedInterfaces":[{"url":"http://h/jsonrpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
		wantClean(t, "card", CheckCardWellKnown(CardFetch{URL: "http://h/.well-known/agent-card.json", Status: 200, Body: []byte(good)}))
		wantFinding(t, "not at the well-known URI", CheckCardWellKnown(CardFetch{URL: "http://h/.well-known/agent-card.json", Found: "http://h/card.json", Status: 404, Body: []byte("no")}), ClassNonStrict, "LT-CARD-2")
		wantFinding(t, "no supportedInterfaces", CheckCardWellKnown(CardFetch{Status: 200, Body: []byte(`{"name":"x"}`)}), ClassNonStrict, "LT-CARD-3")
		noURL := `{"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
		wantFinding(t, "no url", CheckCardWellKnown(CardFetch{Status: 200, Body: []byte(noURL)}), ClassFail, "LT-CARD-5")
		noVersion := `{"supportedInterfaces":[{"url":"http://h/","protocolBinding":"HTTP+JSON"}]}`
		fs := CheckCardWellKnown(CardFetch{Status: 200, Body: []byte(noVersion)})
		wantFinding(t, "no protocolVersion", fs, ClassNonStrict, "LT-CARD-4")
		if has(fs, ClassFail, "LT-CARD-5") {
			t.Errorf("a missing protocolVersion is not the MUST of §8.3.1: %v", fs)
		}
	},
	"CheckCardInterfaces": func(t *testing.T) {
		ok := InterfaceProbe{Declared: "JSONRPC 1.0", Reply: wireOf(a2aclient.JSONRPC, 200, rpcJSON, rpcOK)}
		wantClean(t, "answers", CheckCardInterfaces([]InterfaceProbe{ok}))
		dead := InterfaceProbe{Declared: "JSONRPC 1.0 at /a2a", Reply: wireOf(a2aclient.JSONRPC, 404, "text/plain", "404 page not found")}
		wantFinding(t, "404 page", CheckCardInterfaces([]InterfaceProbe{ok, dead}), ClassFail, "LT-CARD-5")
		gone := InterfaceProbe{Declared: "HTTP+JSON 1.0", Reply: &Wire{Response: &a2aclient.Response{X: &a2aclient.Exchange{Binding: a2aclient.HTTPJSON, Err: "connection refused"}}}}
		wantFinding(t, "no reply", CheckCardInterfaces([]InterfaceProbe{gone}), ClassFail, "LT-CARD-5")
		restErr := InterfaceProbe{Declared: "HTTP+JSON 1.0", Reply: wireOf(a2aclient.HTTPJSON, 404, "text/plain", "not here")}
		wantFinding(t, "REST 404", CheckCardInterfaces([]InterfaceProbe{restErr}), ClassFail, "LT-CARD-5")
	},
	"CheckVersionAbsent": func(t *testing.T) {
		wantClean(t, "VersionNotSupported (JSON-RPC)", CheckVersionAbsent(wireOf(a2aclient.JSONRPC, 200, rpcJSON, rpcVNS)))
		wantClean(t, "VersionNotSupported (HTTP)", CheckVersionAbsent(wireOf(a2aclient.HTTPJSON, 400, a2aJSON, httpVNS)))
		fs := CheckVersionAbsent(wireOf(a2aclient.JSONRPC, 200, rpcJSON, rpcOK))
		wantFinding(t, "served as 1.0", fs, ClassNonStrict, "LT-VER-3")
		if has(fs, ClassFail, "LT-VER-3") {
			t.Errorf("the header-less case rests on A16 and must not Fail: %v", fs)
		}
		other := `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"bad"}}`
		wantFinding(t, "another error", CheckVersionAbsent(wireOf(a2aclient.HTTPJSON, 400, a2aJSON, other)), ClassNonStrict, "LT-VER-3")
	},
	"CheckVersionUnsupported": func(t *testing.T) {
		wantClean(t, "JSON-RPC -32009", CheckVersionUnsupported(wireOf(a2aclient.JSONRPC, 200, rpcJSON, rpcVNS)))
		wantClean(t, "HTTP 400 with reason", CheckVersionUnsupported(wireOf(a2aclient.HTTPJSON, 400, a2aJSON, httpVNS)))
		wantFinding(t, "served", CheckVersionUnsupported(wireOf(a2aclient.HTTPJSON, 200, a2aJSON, httpOK)), ClassFail, "LT-VER-3")
		noReason := `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"unsupported version"}}`
		wantFinding(t, "no ErrorInfo", CheckVersionUnsupported(wireOf(a2aclient.HTTPJSON, 400, a2aJSON, noReason)), ClassFail, "LT-ERR-8")
		wrongCode := `{"jsonrpc":"2.0","id":"1","error":{"code":-32600,"message":"bad version"}}`
		wantFinding(t, "wrong code", CheckVersionUnsupported(wireOf(a2aclient.JSONRPC, 200, rpcJSON, wrongCode)), ClassFail, "LT-ERR-10")
		status505 := strings.Replace(httpVNS, `"code":400`, `"code":505`, 1)
		wantFinding(t, "HTTP 505", CheckVersionUnsupported(wireOf(a2aclient.HTTPJSON, 505, a2aJSON, status505)), ClassNonStrict, "LT-ERR-10")
	},
	"CheckVersionForms": func(t *testing.T) {
		ok := wireOf(a2aclient.HTTPJSON, 200, a2aJSON, httpOK)
		vns := wireOf(a2aclient.HTTPJSON, 400, a2aJSON, httpVNS)
		good := []VersionProbe{{Kind: "patch", What: "1.0.1", Reply: ok}, {Kind: "name-case", What: "a2a-version", Reply: ok}, {Kind: "query", What: "?A2A-Version=1.0", Reply: vns}}
		fs := CheckVersionForms(good)
		wantClean(t, "forms", fs)
		if !has(fs, ClassInfo, "LT-VER-2") {
			t.Errorf("the query form must be recorded: %v", fs)
		}
		wantFinding(t, "patch refused", CheckVersionForms([]VersionProbe{{Kind: "patch", What: "1.0.1", Reply: vns}}), ClassFail, "LT-VER-4")
		wantFinding(t, "name case", CheckVersionForms([]VersionProbe{{Kind: "name-case", What: "A2A-VERSION", Reply: vns}}), ClassFail, "LT-VER-5")
	},
	"CheckMethodName": func(t *testing.T) {
		ok := wireOf(a2aclient.JSONRPC, 200, rpcJSON, rpcOK)
		nf := wireOf(a2aclient.JSONRPC, 200, rpcJSON, `{"jsonrpc":"2.0","id":"1","error":{"code":-32601,"message":"method not found"}}`)
		wantClean(t, "names", CheckMethodName([]MethodProbe{{Name: "ListTasks", Want: true, Reply: ok}, {Name: "tasks/list", Reply: nf}}))
		fs := CheckMethodName([]MethodProbe{{Name: "tasks/list", Reply: ok}})
		wantFinding(t, "tasks/list served", fs, ClassNonStrict, "LT-OP-2")
		wantFinding(t, "ListTasks refused", CheckMethodName([]MethodProbe{{Name: "ListTasks", Want: true, Reply: nf}}), ClassNonStrict, "LT-OP-1")
		rest := wireOf(a2aclient.HTTPJSON, 404, a2aJSON, `{"error":{"code":404,"status":"NOT_FOUND","message":"no route"}}`)
		wantFinding(t, "GET /tasks refused", CheckMethodName([]MethodProbe{{Name: "GET /tasks", Want: true, Reply: rest}}), ClassNonStrict, "LT-OP-3")
	},
	"CheckIdempotent": func(t *testing.T) {
		walk := func(bodies ...string) History {
			var h History
			for i, b := range bodies {
				h.Pages = append(h.Pages, a2aclient.Step{N: i + 1, Page: pageReply(a2aclient.HTTPJSON, 200, b)})
			}
			return h
		}
		two := walk(listing(a2aclient.HTTPJSON, "a", "b"))
		wantClean(t, "same", CheckIdempotent(two, walk(listing(a2aclient.HTTPJSON, "b", "a")))) // tie order may differ
		wantClean(t, "short pages", CheckIdempotent(two, walk(strings.Replace(listing(a2aclient.HTTPJSON, "a"), `"nextPageToken":""`, `"nextPageToken":"t"`, 1), listing(a2aclient.HTTPJSON, "b"))))
		moved := walk(strings.Replace(listing(a2aclient.HTTPJSON, "a", "b"), "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", 1))
		wantFinding(t, "a read changed a task", CheckIdempotent(two, moved), ClassNonStrict, "LT-OP-7")
		wantFinding(t, "another set", CheckIdempotent(two, walk(listing(a2aclient.HTTPJSON, "a"))), ClassNonStrict, "LT-OP-7")
		total := walk(strings.Replace(listing(a2aclient.HTTPJSON, "a", "b"), `"totalSize":9`, `"totalSize":10`, 1))
		wantFinding(t, "totalSize", CheckIdempotent(two, total), ClassNonStrict, "LT-OP-7")
		done := walk(strings.ReplaceAll(listing(a2aclient.HTTPJSON, "a", "b"), "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"))
		wantFinding(t, "the first read changed the tasks", CheckIdempotent(walk(listing(a2aclient.HTTPJSON, "a", "b", "c")), done, done), ClassNonStrict, "LT-OP-7")
		wantClean(t, "three reads, a wider first", CheckIdempotent(walk(listing(a2aclient.HTTPJSON, "a", "b", "x")), two, two))
		early := walk(listing(a2aclient.HTTPJSON, "a"))
		early.End = "page 1 has no nextPageToken member"
		if fs := CheckIdempotent(two, early); len(judged(fs)) > 0 {
			t.Errorf("a walk that ended early compares only the tasks both served: %v", fs)
		}
	},
	"CheckReplyEnvelope": func(t *testing.T) {
		good := []EnvelopeProbe{
			{ID: "3", Reply: wireOf(a2aclient.JSONRPC, 200, "application/json; charset=utf-8", strings.Replace(rpcOK, `"id":"1"`, `"id":3`, 1))},
			{Reply: wireOf(a2aclient.HTTPJSON, 200, a2aJSON, httpOK)},
		}
		wantClean(t, "envelopes", CheckReplyEnvelope(good))
		wantFinding(t, "id as a string", CheckReplyEnvelope([]EnvelopeProbe{{ID: "3", Reply: wireOf(a2aclient.JSONRPC, 200, rpcJSON, strings.Replace(rpcOK, `"id":"1"`, `"id":"3"`, 1))}}), ClassNonStrict, "LT-RPC-2")
		wantFinding(t, "no jsonrpc", CheckReplyEnvelope([]EnvelopeProbe{{ID: `"1"`, Reply: wireOf(a2aclient.JSONRPC, 200, rpcJSON, strings.Replace(rpcOK, `"jsonrpc":"2.0",`, ``, 1))}}), ClassNonStrict, "LT-RPC-1")
		wantFinding(t, "text/plain JSON-RPC", CheckReplyEnvelope([]EnvelopeProbe{{ID: `"1"`, Reply: wireOf(a2aclient.JSONRPC, 200, "text/plain", rpcOK)}}), ClassNonStrict, "LT-RPC-1")
		wantFinding(t, "application/json on HTTP+JSON", CheckReplyEnvelope([]EnvelopeProbe{{Reply: wireOf(a2aclient.HTTPJSON, 200, rpcJSON, httpOK)}}), ClassNonStrict, "LT-REST-7")
	},
	"CheckParamsOmitted": func(t *testing.T) {
		two := pageReply(a2aclient.JSONRPC, 200, listing(a2aclient.JSONRPC, "a", "b"))
		wantClean(t, "defaults", CheckParamsOmitted(two, two))
		refused := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"params: required"}}`)
		wantFinding(t, "refused", CheckParamsOmitted(refused, two), ClassNonStrict, "LT-RPC-1")
		wantClean(t, "a shorter first page", CheckParamsOmitted(pageReply(a2aclient.JSONRPC, 200, listing(a2aclient.JSONRPC, "a")), two))
		wantFinding(t, "other tasks", CheckParamsOmitted(pageReply(a2aclient.JSONRPC, 200, listing(a2aclient.JSONRPC, "c")), two), ClassNonStrict, "LT-REQ-9")
	},
	"CheckStandardErrors": func(t *testing.T) {
		rpcErr := func(code int) *Wire {
			return wireOf(a2aclient.JSONRPC, 200, rpcJSON, fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":"x"}}`, code))
		}
		good := []StandardProbe{{What: "parse", Code: -32700, Reply: rpcErr(-32700)}, {What: "no method", Code: -32600, Reply: rpcErr(-32600)}, {What: "unknown method", Code: -32601, Reply: rpcErr(-32601)},
			{What: "pageSize=abc", Status: 400, Reply: wireOf(a2aclient.HTTPJSON, 400, a2aJSON, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"pageSize"}}`)},
			{What: "missing task", Status: 404, Reply: wireOf(a2aclient.HTTPJSON, 404, a2aJSON, `{"error":{"code":404,"status":"NOT_FOUND","message":"no"}}`)}}
		fs := CheckStandardErrors(good)
		wantClean(t, "standard", fs)
		if !has(fs, ClassInfo, "LT-RPC-3") {
			t.Errorf("the HTTP status of JSON-RPC errors must be recorded: %v", fs)
		}
		wantFinding(t, "unknown method as invalid request", CheckStandardErrors([]StandardProbe{{What: "unknown method", Code: -32601, Reply: rpcErr(-32600)}}), ClassNonStrict, "LT-ERR-4")
		wantFinding(t, "no status name", CheckStandardErrors([]StandardProbe{{What: "missing task", Status: 404, Reply: wireOf(a2aclient.HTTPJSON, 404, a2aJSON, `{"error":{"code":404,"message":"no"}}`)}}), ClassNonStrict, "LT-ERR-7")
		wantFinding(t, "status name mismatch", CheckStandardErrors([]StandardProbe{{What: "missing task", Status: 404, Reply: wireOf(a2aclient.HTTPJSON, 404, a2aJSON, `{"error":{"code":404,"status":"INVALID_ARGUMENT","message":"no"}}`)}}), ClassNonStrict, "LT-ERR-7")
		wantFinding(t, "text/html error", CheckStandardErrors([]StandardProbe{{What: "missing task", Status: 404, Reply: wireOf(a2aclient.HTTPJSON, 404, "text/html", `{"error":{"code":404,"status":"NOT_FOUND","message":"no"}}`)}}), ClassNonStrict, "LT-ERR-7")
		// A body that is not google.rpc.Status is LT-ERR-ENVELOPE's finding, not this case's.
		wantClean(t, "not google.rpc.Status", CheckStandardErrors([]StandardProbe{{What: "missing task", Status: 404, Reply: wireOf(a2aclient.HTTPJSON, 404, "text/plain", `not found`)}}))
	},
	"CheckRequiredFields": func(t *testing.T) {
		rej := wireOf(a2aclient.JSONRPC, 200, rpcJSON, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"id: is required"}}`)
		wantClean(t, "refused", CheckRequiredFields([]RequiredProbe{{What: "GetTask", Field: "id", Reply: rej}}))
		acc := wireOf(a2aclient.HTTPJSON, 200, a2aJSON, `{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED"}}}`)
		wantFinding(t, "accepted", CheckRequiredFields([]RequiredProbe{{What: "SendMessage", Field: "message", Reply: acc}}), ClassNonStrict, "LT-RESP-8")
	},
	"CheckUnknownField": func(t *testing.T) {
		walk := func(p *a2aclient.Page) History { return History{Pages: []a2aclient.Step{{N: 1, Page: p}}} }
		two := walk(pageReply(a2aclient.JSONRPC, 200, listing(a2aclient.JSONRPC, "a", "b")))
		wantClean(t, "ignored", CheckUnknownField(UnknownProbe{Field: "x", Plain: two, With: two}))
		rej := walk(pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"unknown field x"}}`))
		rej.End = "the first page failed"
		wantFinding(t, "refused", CheckUnknownField(UnknownProbe{Field: "x", Plain: two, With: rej}), ClassNonStrict, "LT-JSON-4")
		wantFinding(t, "changed", CheckUnknownField(UnknownProbe{Field: "x", Plain: two, With: walk(pageReply(a2aclient.JSONRPC, 200, listing(a2aclient.JSONRPC, "a")))}), ClassNonStrict, "LT-JSON-4")
		early := walk(pageReply(a2aclient.JSONRPC, 200, listing(a2aclient.JSONRPC, "a")))
		early.End = "page 1 has no nextPageToken member"
		if fs := CheckUnknownField(UnknownProbe{Field: "x", Plain: early, With: early}); len(judged(fs)) > 0 || len(fs) == 0 {
			t.Errorf("walks that ended early judge only the refusal, and say so: %v", fs)
		}
		rej2 := rej
		rej2.End = "the first page failed"
		wantFinding(t, "refused, though the plain walk ended early", CheckUnknownField(UnknownProbe{Field: "x", Plain: early, With: rej2}), ClassNonStrict, "LT-JSON-4")
	},
	"CheckLenient": func(t *testing.T) {
		all := []string{"a", "b", "c"}
		page := func(ids ...string) *a2aclient.Page {
			return pageReply(a2aclient.JSONRPC, 200, listing(a2aclient.JSONRPC, ids...))
		}
		rej := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"bad"}}`)
		good := []LenientProbe{
			{Form: "numeric-string", What: `"pageSize": "2"`, Reply: page("a", "b"), Unfiltered: all, MaxTasks: 2},
			{Form: "snake-case", What: `"page_size": 2`, Reply: page(all...), Unfiltered: all, MaxTasks: 2},
			{Form: "enum-number", What: `"status": 7`, Reply: rej, Want: []string{}, Unfiltered: all},
		}
		fs := CheckLenient(good)
		wantClean(t, "lenient", fs)
		if !has(fs, ClassInfo, "LT-JSON-4") || !has(fs, ClassInfo, "LT-JSON-1") {
			t.Errorf("ignored snake_case and a refused enum number must be recorded: %v", fs)
		}
		wantClean(t, "enum number applied", CheckLenient([]LenientProbe{{Form: "enum-number", What: `"status": 7`, Reply: page(), Want: []string{}, Unfiltered: all}}))
		wantFinding(t, "numeric string refused", CheckLenient([]LenientProbe{{Form: "numeric-string", What: `"pageSize": "2"`, Reply: rej, Unfiltered: all, MaxTasks: 2}}), ClassNonStrict, "LT-JSON-5")
		wantFinding(t, "numeric string ignored", CheckLenient([]LenientProbe{{Form: "numeric-string", What: `"pageSize": "2"`, Reply: page(all...), Unfiltered: all, MaxTasks: 2}}), ClassNonStrict, "LT-JSON-5")
		wantFinding(t, "enum number ignored", CheckLenient([]LenientProbe{{Form: "enum-number", What: `"status": 7`, Reply: page(all...), Want: []string{}, Unfiltered: all}}), ClassNonStrict, "LT-JSON-5")
		wantFinding(t, "enum number ignored on a short page", CheckLenient([]LenientProbe{{Form: "enum-number", What: `"status": 7`, Reply: page("a"), Want: []string{}, Unfiltered: all}}), ClassNonStrict, "LT-JSON-5")
		// The control form works: the lenient form is what is not read.
		wantFinding(t, "numeric string ignored, the number applied", CheckLenient([]LenientProbe{{Form: "numeric-string", What: `"pageSize": "2"`, Reply: page(all...), Unfiltered: all, MaxTasks: 2, Control: page("a", "b")}}), ClassNonStrict, "LT-JSON-5")
		wantFinding(t, "enum number ignored, the name applied", CheckLenient([]LenientProbe{{Form: "enum-number", What: `"status": 7`, Reply: page(all...), Want: []string{}, Unfiltered: all, Control: page()}}), ClassNonStrict, "LT-JSON-5")
		// The control form fails too: the field itself is broken, which its
		// own case judges; here it is recorded only.
		for name, p := range map[string]LenientProbe{
			"page size not kept in any form": {Form: "numeric-string", What: `"pageSize": "2"`, Reply: page(all...), Unfiltered: all, MaxTasks: 2, Control: page(all...)},
			"status not applied in any form": {Form: "enum-number", What: `"status": 7`, Reply: page(all...), Want: []string{}, Unfiltered: all, Control: page("b")},
		} {
			fs := CheckLenient([]LenientProbe{p})
			wantClean(t, name, fs)
			if !has(fs, ClassInfo, "LT-JSON-5") {
				t.Errorf("%s: want an Info line saying what could not be judged, got %v", name, fs)
			}
		}
		// A refused control proves nothing about the field.
		wantFinding(t, "numeric string ignored, control refused", CheckLenient([]LenientProbe{{Form: "numeric-string", What: `"pageSize": "2"`, Reply: page(all...), Unfiltered: all, MaxTasks: 2, Control: rej}}), ClassNonStrict, "LT-JSON-5")
	},
	"CheckTimestampPrecision": func(t *testing.T) {
		fs := CheckTimestampPrecision([]Stamp{{"a", "2030-01-01T00:00:00.123Z"}, {"b", "2030-01-01T00:00:00.123456Z"}, {"c", "2030-01-01T00:00:01Z"}})
		wantClean(t, "0, 3 and 6 digits", fs)
		if !has(fs, ClassInfo, "LT-JSON-3") {
			t.Errorf("finer than milliseconds must be recorded: %v", fs)
		}
		if fs := CheckTimestampPrecision([]Stamp{{"a", "2030-01-01T00:00:00Z"}}); !has(fs, ClassInfo, "LT-JSON-3") || len(judged(fs)) > 0 {
			t.Errorf("whole seconds are recorded, not judged: %v", fs)
		}
		wantFinding(t, "two digits", CheckTimestampPrecision([]Stamp{{"a", "2030-01-01T00:00:00.12Z"}}), ClassNonStrict, "LT-JSON-3")
	},
	"CheckRestQuery": func(t *testing.T) {
		ours := []string{"a", "b", "s1", "s2"}
		page := func(next string, ids ...string) *Wire {
			return wireOf(a2aclient.HTTPJSON, 200, a2aJSON, strings.Replace(listing(a2aclient.HTTPJSON, ids...), `"nextPageToken":""`, `"nextPageToken":"`+next+`"`, 1))
		}
		probe := func(reqs []string, want []string, pages ...*Wire) []QueryProbe {
			return []QueryProbe{{What: "probe", Reqs: reqs, Pages: pages, Want: want, Ours: ours}}
		}
		wantClean(t, "round-trip", CheckRestQuery(probe(R("LT-REST-6", "LT-REST-1"), []string{"s1", "s2"}, page("", "s1", "s2", "other"))))
		wantClean(t, "short pages", CheckRestQuery(probe(R("LT-REST-6", "LT-REST-1"), []string{"s1", "s2"}, page("t", "s1"), page("", "s2"))))
		wantFinding(t, "mangled", CheckRestQuery(probe(R("LT-REST-6", "LT-REST-1"), []string{"s1", "s2"}, page(""))), ClassFail, "LT-REST-6")
		rej := wireOf(a2aclient.HTTPJSON, 400, a2aJSON, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"includeArtifacts"}}`)
		wantFinding(t, "boolean refused", CheckRestQuery(probe(R("LT-REST-4"), []string{"a", "b"}, rej)), ClassNonStrict, "LT-REST-4")
		wantFinding(t, "timestamp filter ignored", CheckRestQuery(probe(R("LT-REST-5", "LT-REQ-7"), []string{}, page("", "a", "b"))), ClassNonStrict, "LT-REST-5")
		// statusTimestampAfter ignored in every form (a2a-go v2.3.1 over
		// HTTP+JSON): LT-FILTER-TSA owns that defect, so this case only
		// says it could not judge the encoding (it once reported it again).
		late := func(pages, control []*Wire) []QueryProbe {
			ps := probe(R("LT-REST-5", "LT-REQ-7"), []string{}, pages...)
			ps[0].Control, ps[0].Owner = control, "LT-FILTER-TSA"
			return ps
		}
		ignored := CheckRestQuery(late([]*Wire{page("", "a", "b")}, []*Wire{page("", "a", "b")}))
		wantClean(t, "filter ignored in every form", ignored)
		if !has(ignored, ClassInfo, "LT-REST-5") || !strings.Contains(ignored[0].Message, "LT-FILTER-TSA") {
			t.Errorf("an encoding that could not be judged is said so, naming the case that judges the filter: %v", ignored)
		}
		wantClean(t, "refused in every form", CheckRestQuery(late([]*Wire{rej}, []*Wire{rej})))
		// The filter works in pagewalk's form but not in this one: the
		// encoding is misread or refused, which is this case's to report.
		wantFinding(t, "second-precision form misread", CheckRestQuery(late([]*Wire{page("", "a", "b")}, []*Wire{page("")})), ClassNonStrict, "LT-REST-5")
		wantFinding(t, "second-precision form refused", CheckRestQuery(late([]*Wire{rej}, []*Wire{page("")})), ClassNonStrict, "LT-REST-5")
		wantClean(t, "applied", CheckRestQuery(late([]*Wire{page("")}, []*Wire{page("")})))
		wantFinding(t, "camelCase ignored", CheckRestQuery(probe(R("LT-REST-2", "LT-REST-1"), []string{"a", "b"}, page("", "a", "b", "s1", "s2"))), ClassFail, "LT-REST-2")
		// The same request by JSON-RPC lists what the GET listed: the query
		// is read as JSON-RPC reads it, and the listing is off for another
		// reason (filters combined as OR, states changed by a read), which
		// the filter cases and LT-IDEMPOTENT judge; noted only.
		peer := func(pages, peer []*Wire) []QueryProbe {
			ps := probe(R("LT-REST-3", "LT-REST-8"), []string{"a"}, pages...)
			ps[0].Peer, ps[0].PeerOwner = peer, "the filter cases"
			return ps
		}
		rpc := func(ids ...string) *Wire {
			return wireOf(a2aclient.JSONRPC, 200, "application/json", listing(a2aclient.JSONRPC, ids...))
		}
		agreed := CheckRestQuery(peer([]*Wire{page("", "a", "b", "s1")}, []*Wire{rpc("a", "b", "s1")}))
		wantClean(t, "JSON-RPC lists the same", agreed)
		if len(agreed) != 1 || agreed[0].Kind != "unfinished" || !strings.Contains(agreed[0].Message, "the filter cases") {
			t.Errorf("JSON-RPC lists the same: want one unfinished note naming the owners, got %v", agreed)
		}
		wantFinding(t, "JSON-RPC lists the right set", CheckRestQuery(peer([]*Wire{page("", "a", "b", "s1")}, []*Wire{rpc("a")})), ClassNonStrict, "LT-REST-3")
		wantFinding(t, "JSON-RPC lists another wrong set", CheckRestQuery(peer([]*Wire{page("", "a", "b", "s1")}, []*Wire{rpc("a", "b")})), ClassNonStrict, "LT-REST-3")
		if got := rfc3986("a b+c/é%"); got != "a%20b%2Bc%2F%C3%A9%25" {
			t.Errorf("rfc3986: %s", got)
		}
	},
	"CheckTaskShape": func(t *testing.T) {
		r := reply(a2aclient.HTTPJSON, 200, `{}`)
		obj := func(raw string) []TaskObject {
			return []TaskObject{{Where: "GetTask", Reply: r, Raw: json.RawMessage(raw), WantID: "t1"}}
		}
		wantClean(t, "task", CheckTaskShape(obj(`{"id":"t1","contextId":"c","status":{"state":"TASK_STATE_WORKING","timestamp":"2030-01-01T00:00:00.000Z"}}`)))
		wantClean(t, "no timestamp", CheckTaskShape(obj(`{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"}}`)))
		wantFinding(t, "no id", CheckTaskShape(obj(`{"status":{"state":"TASK_STATE_WORKING"}}`)), ClassFail, "LT-TASK-1")
		wantFinding(t, "no status", CheckTaskShape(obj(`{"id":"t1"}`)), ClassFail, "LT-TASK-1")
		wantFinding(t, "no state", CheckTaskShape(obj(`{"id":"t1","status":{}}`)), ClassFail, "LT-TASK-2")
		wantFinding(t, "short state name", CheckTaskShape(obj(`{"id":"t1","status":{"state":"working"}}`)), ClassFail, "LT-TASK-3")
		wantFinding(t, "unspecified", CheckTaskShape(obj(`{"id":"t1","status":{"state":"TASK_STATE_UNSPECIFIED"}}`)), ClassNonStrict, "LT-TASK-3")
		wantFinding(t, "offset", CheckTaskShape(obj(`{"id":"t1","status":{"state":"TASK_STATE_WORKING","timestamp":"2030-01-01T01:00:00+01:00"}}`)), ClassFail, "LT-JSON-2")
		wantFinding(t, "another task", CheckTaskShape(obj(`{"id":"t2","status":{"state":"TASK_STATE_WORKING"}}`)), ClassNonStrict, "LT-TASK-1")
	},
	"CheckPageSizeEcho": func(t *testing.T) {
		echo := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[],"nextPageToken":"","pageSize":7,"totalSize":0}`)
		wantClean(t, "echo", CheckPageSizeEcho(echo, 7))
		count := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[],"nextPageToken":"","pageSize":0,"totalSize":0}`)
		wantFinding(t, "count", CheckPageSizeEcho(count, 7), ClassHardened, "LT-SEED-5")
	},
	"CheckAuthRequired": func(t *testing.T) {
		unauth := wireOf(a2aclient.HTTPJSON, 401, a2aJSON, `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"bearer token required"}}`)
		rpcUnauth := wireOf(a2aclient.JSONRPC, 401, rpcJSON, `{"jsonrpc":"2.0","id":"1","error":{"code":-32000,"message":"unauthenticated"}}`)
		wantClean(t, "refused", CheckAuthRequired([]AuthProbe{{What: "no header", Reply: unauth}, {What: "no header", Reply: rpcUnauth}}))
		served := wireOf(a2aclient.HTTPJSON, 200, a2aJSON, `{"tasks":[],"nextPageToken":"","pageSize":1,"totalSize":0}`)
		wantFinding(t, "served empty", CheckAuthRequired([]AuthProbe{{What: "with a wrong token", Reply: served}}), ClassFail, "LT-AUTHZ-7")
		wantFinding(t, "served data", CheckAuthRequired([]AuthProbe{{What: "no header", Reply: wireOf(a2aclient.JSONRPC, 200, rpcJSON, rpcOK)}}), ClassFail, "LT-AUTHZ-7")
		forbidden := wireOf(a2aclient.HTTPJSON, 403, a2aJSON, `{"error":{"code":403,"status":"PERMISSION_DENIED","message":"no"}}`)
		if fs := CheckAuthRequired([]AuthProbe{{What: "no header", Reply: forbidden}}); len(judged(fs)) > 0 || !has(fs, ClassInfo, "LT-AUTHZ-7") {
			t.Errorf("a 403 refusal is recorded, not judged (401 is an example code): %v", fs)
		}
	},
	"CheckTenantRoute": func(t *testing.T) {
		sent := reply(a2aclient.HTTPJSON, 200, `{"task":{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"}}}`)
		list := pageReply(a2aclient.HTTPJSON, 200, listing(a2aclient.HTTPJSON, "t1"))
		get := reply(a2aclient.HTTPJSON, 200, `{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"}}`)
		good := TenantRoute{Tenant: "acme", From: "the Agent Card", Binding: a2aclient.HTTPJSON, Send: sent, ID: "t1", List: list, Get: get}
		wantClean(t, "routed", CheckTenantRoute(good))
		nf := reply(a2aclient.HTTPJSON, 404, `{"error":{"code":404,"status":"NOT_FOUND","message":"no route /acme/message:send"}}`)
		wantFinding(t, "no tenant route", CheckTenantRoute(TenantRoute{Tenant: "acme", Binding: a2aclient.HTTPJSON, Send: nf}), ClassNonStrict, "LT-REQ-1")
		elsewhere := good
		elsewhere.List = pageReply(a2aclient.HTTPJSON, 200, listing(a2aclient.HTTPJSON))
		wantFinding(t, "listed elsewhere", CheckTenantRoute(elsewhere), ClassNonStrict, "LT-TEN-3")
		noList := good
		noList.List = pageReply(a2aclient.HTTPJSON, 404, `{"error":{"code":404,"status":"NOT_FOUND","message":"no route"}}`)
		wantFinding(t, "no /{tenant}/tasks", CheckTenantRoute(noList), ClassNonStrict, "LT-OP-3")
		if why := good.Unjudged(); why != "" {
			t.Errorf("a declared tenant that routes is judged: %s", why)
		}
		// A made-up tenant (the card declares none) shows routing only
		// against a second made-up one. A server that ignores the tenant
		// (a2a-go v2.3.1 on JSON-RPC) lists the task under both: nothing
		// can be judged, and the case skips (it once passed on that).
		madeUp := good
		madeUp.MadeUp, madeUp.OtherTenant, madeUp.From = true, "pw-other", "pagewalk (the card declares none)"
		madeUp.Other = pageReply(a2aclient.HTTPJSON, 200, listing(a2aclient.HTTPJSON, "t1"))
		wantClean(t, "ignored made-up tenant", CheckTenantRoute(madeUp))
		if why := madeUp.Unjudged(); !strings.Contains(why, "ignores the tenant") || !strings.Contains(why, "--tenant") {
			t.Errorf("an ignored made-up tenant must leave the case unjudged, saying what would decide it: %q", why)
		}
		madeUp.Other = nil
		if madeUp.Unjudged() == "" {
			t.Error("a made-up tenant compared with no other cannot show routing")
		}
		madeUp.Other = pageReply(a2aclient.HTTPJSON, 200, listing(a2aclient.HTTPJSON))
		if why := madeUp.Unjudged(); why != "" {
			t.Errorf("a made-up tenant whose task is not under another made-up one is routed: %s", why)
		}
		madeUp.Other = pageReply(a2aclient.HTTPJSON, 404, `{"error":{"code":404,"status":"NOT_FOUND","message":"no tenant pw-other"}}`)
		if why := madeUp.Unjudged(); why != "" {
			t.Errorf("a server that tells two made-up tenants apart routes by tenant: %s", why)
		}
	},
}
