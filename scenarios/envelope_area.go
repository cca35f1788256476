package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "envelope": what wraps a reply on each binding (the JSON-RPC 2.0
// envelope, media types), the standard error codes and error body, omitted
// params, and requests that lack a REQUIRED field.

var _ = Register(Scenario{
	ID: "LT-REPLY-ENVELOPE", Area: "envelope", Level: SHOULD, Checker: "CheckReplyEnvelope",
	Title: "A ListTasks reply has the binding's envelope: JSON-RPC 2.0 with the request id echoed and application/json, or application/a2a+json on HTTP+JSON",
	Reqs:  R("LT-RPC-1", "LT-RPC-2", "LT-REST-7"),
	Quote: `JSON-RPC: "Protocol: JSON-RPC 2.0 over HTTP(S)"; "Content-Type: application/json for requests and responses" (§9.1); example request {"jsonrpc":"2.0","id":3,"method":"ListTasks",...} (§9.4.4). HTTP+JSON: "Content-Type: application/a2a+json SHOULD be used for requests and responses" (§11.1)`,
	Run: func(e *Env) {
		c := e.A()
		var rs []EnvelopeProbe
		switch e.Binding() {
		case a2aclient.JSONRPC:
			for _, id := range []any{3, "pw-envelope"} {
				e.By("ListTasks with JSON-RPC id %v", jsonText(id))
				body := rpcBody(c, id, "ListTasks", map[string]any{"pageSize": 1, "historyLength": 0})
				rs = append(rs, EnvelopeProbe{ID: jsonText(id), Reply: e.send(c, "", listOnce(), WithBody(body))})
			}
		case a2aclient.HTTPJSON:
			e.By("GET /tasks and read the reply's media type")
			rs = append(rs, EnvelopeProbe{Reply: e.send(c, "", listOnce())})
		}
		e.Report(CheckReplyEnvelope(rs)...)
	},
})

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// EnvelopeProbe is a successful call's reply and, on JSON-RPC, the request
// id it carried (as JSON text).
type EnvelopeProbe struct {
	ID    string
	Reply *Wire
}

// CheckReplyEnvelope judges the envelope of success replies
// (LT-REPLY-ENVELOPE). JSON-RPC replies echo jsonrpc "2.0" and the request
// id with its JSON type (JSON-RPC 2.0: "It MUST be the same as the value of
// the id member in the Request Object") and are application/json; the A2A
// text states these without an RFC 2119 keyword, so a departure is
// Non-strict. HTTP+JSON replies SHOULD be application/a2a+json (Non-strict).
// A failed call is left to the cases that judge the listing.
func CheckReplyEnvelope(ps []EnvelopeProbe) []Finding {
	var fs []Finding
	for _, p := range ps {
		r := p.Reply
		if r == nil || r.Response == nil || r.X == nil || r.Err != nil {
			continue
		}
		w := r.Witness()
		mt := r.MediaType()
		switch r.X.Binding {
		case a2aclient.JSONRPC:
			if mt != "application/json" {
				fs = append(fs, Breach(R("LT-RPC-1"), "the JSON-RPC reply's Content-Type is %q; JSON-RPC uses \"application/json for requests and responses\" (§9.1)", r.ContentType).Of("content-type", r.ContentType).WithWitness(w))
			}
			var env map[string]json.RawMessage
			if json.Unmarshal([]byte(r.X.RespBody), &env) != nil {
				continue // a malformed reply is judged by LT-WALK-SHAPE
			}
			if v := bytes.TrimSpace(env["jsonrpc"]); string(v) != `"2.0"` {
				fs = append(fs, Breach(R("LT-RPC-1"), "the JSON-RPC reply has jsonrpc %s, not \"2.0\"", rawText(v)).Of("jsonrpc", "").WithWitness(w))
			}
			if v := compactJSON(env["id"]); v != p.ID {
				fs = append(fs, Breach(R("LT-RPC-1", "LT-RPC-2"), "the JSON-RPC reply's id is %s for a request with id %s; a response's id \"MUST be the same as the value of the id member in the Request Object\" (JSON-RPC 2.0)", rawText(env["id"]), p.ID).Of("id", p.ID).WithWitness(w))
			}
			if _, both := env["error"]; both && env["result"] != nil {
				fs = append(fs, Breach(R("LT-RPC-1"), "the JSON-RPC reply carries both result and error").WithWitness(w))
			}
		case a2aclient.HTTPJSON:
			if mt != "application/a2a+json" {
				fs = append(fs, Breach(R("LT-REST-7"), "the HTTP+JSON reply's Content-Type is %q; \"Content-Type: application/a2a+json SHOULD be used for requests and responses\" (§11.1)", r.ContentType).Of("content-type", r.ContentType).WithWitness(w))
			}
		}
	}
	return fs
}

func compactJSON(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

func rawText(v json.RawMessage) string {
	if len(v) == 0 {
		return "(absent)"
	}
	return string(v)
}

var _ = Register(Scenario{
	ID: "LT-PARAMS-OMITTED", Area: "envelope", Level: SHOULD, Checker: "CheckParamsOmitted", CrossBinding: true,
	Title: "A JSON-RPC ListTasks with no params member is served with every field at its default, like params {}",
	Reqs:  R("LT-RPC-1", "LT-REQ-9"),
	Quote: `"Protocol: JSON-RPC 2.0 over HTTP(S)" (§9.1), in which params "MAY be omitted"; ListTasksRequest has no REQUIRED field, and "Implementations should apply the default value when the field is not explicitly provided." (§5.7)`,
	Run: func(e *Env) {
		c := e.Client(a2aclient.JSONRPC, 0)
		if t := tenantOf(c); t != "" {
			e.Skip("requests carry tenant %q, which travels in params, so a request with no params would not be the same request; judged only without a tenant", t)
		}
		e.By("JSON-RPC ListTasks with no params member, then with params {}")
		none := e.send(c, "", listOnce(), WithBody(rpcBody(c, "pw-noparams", "ListTasks", nil)))
		empty := e.send(c, "", listOnce(), WithBody(rpcBody(c, "pw-emptyparams", "ListTasks", map[string]any{})))
		e.Report(CheckParamsOmitted(none.Page(), empty.Page())...)
	},
})

// CheckParamsOmitted judges ListTasks without params against ListTasks with
// params {} (LT-PARAMS-OMITTED): refusing it, or serving another listing,
// departs from JSON-RPC 2.0 and the defaults rule (Non-strict). Both first
// pages start the same sorted listing, so where pages may be short the
// shorter must be a prefix of the longer.
func CheckParamsOmitted(none, empty *a2aclient.Page) []Finding {
	if none == nil || none.Response == nil || none.X == nil {
		return nil
	}
	w := none.X.Transcript()
	if none.Err != nil || none.Malformed != "" {
		return []Finding{Breach(R("LT-RPC-1", "LT-REQ-9"), "ListTasks with no params member failed (%s); JSON-RPC 2.0 lets params be omitted, and every ListTasksRequest field is optional, so it is a request for the defaults", none.Describe()).WithWitness(w)}
	}
	if empty == nil || empty.Response == nil || empty.Err != nil || empty.X == nil {
		return nil
	}
	a, b := none.IDs(), empty.IDs()
	k := min(len(a), len(b))
	if strings.Join(a[:k], ",") != strings.Join(b[:k], ",") || (k == 0 && len(a)+len(b) > 0) {
		return []Finding{Breach(R("LT-REQ-9"), "ListTasks with no params served %v and with params {} %v: not the same listing, though omitted fields take their defaults either way", first(a, 5), first(b, 5)).
			WithWitness(w + "\n" + empty.X.Transcript())}
	}
	return nil
}

// StandardProbe is a request that must get one standard error, and the
// reply.
type StandardProbe struct {
	What string
	// Code is the JSON-RPC code the reply must carry; on HTTP+JSON, Status
	// is the HTTP status.
	Code   int
	Status int
	Reply  *Wire
}

var _ = Register(Scenario{
	ID: "LT-ERR-STANDARD", Area: "envelope", Level: SHOULD, Checker: "CheckStandardErrors",
	Title: "Protocol errors use the standard codes (-32700, -32600, -32601) on JSON-RPC, and the google.rpc.Status body with its status name on HTTP+JSON",
	Reqs:  R("LT-ERR-4", "LT-ERR-7", "LT-OP-6", "LT-RPC-3"),
	Quote: `JSON-RPC standard codes: -32700 "The server received invalid JSON", -32600 "The JSON sent is not a valid Request object", -32601 "The requested method does not exist or is not available" (§9.5); ListTasks errors: "None specific to this operation beyond standard protocol errors." (§3.1.4); REST: {"error": {"code": 404, "status": "NOT_FOUND", "message": ..., "details": [...]}} (§11.6)`,
	Run: func(e *Env) {
		c := e.A()
		var ps []StandardProbe
		switch e.Binding() {
		case a2aclient.JSONRPC:
			for _, p := range []struct {
				what string
				code int
				body string
			}{
				{"a body that is not JSON", -32700, `{"jsonrpc":"2.0","id":"pw-parse","method":"ListTasks","params":{`},
				{"a request object with no method", -32600, `{"jsonrpc":"2.0","id":"pw-nomethod","params":{}}`},
				{"an unknown method", -32601, rpcBody(c, "pw-nosuchmethod", "PagewalkNoSuchMethod", map[string]any{})},
			} {
				e.By("JSON-RPC %s", p.what)
				ps = append(ps, StandardProbe{What: p.what, Code: p.code, Reply: e.send(c, "", listOnce(), WithBody(p.body))})
			}
		case a2aclient.HTTPJSON:
			e.By("GET /tasks?pageSize=abc and GET /tasks/{an id that does not exist}")
			ps = append(ps, StandardProbe{What: "pageSize=abc", Status: 400,
				Reply: e.send(c, "", a2aclient.Request{Op: "ListTasks", Params: map[string]any{"pageSize": "abc"}})})
			ps = append(ps, StandardProbe{What: "GetTask of a task that does not exist", Status: 404,
				Reply: e.send(c, "", a2aclient.Request{Op: "GetTask", Params: map[string]any{"id": e.ID("no-such-task")}})})
		}
		e.Report(CheckStandardErrors(ps)...)
	},
})

// rpcStatus maps an HTTP status to the google.rpc.Code names that may go
// with it (google/rpc/code.proto's HTTP mapping).
var rpcStatus = map[int][]string{
	400: {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE"},
	401: {"UNAUTHENTICATED"},
	403: {"PERMISSION_DENIED"},
	404: {"NOT_FOUND"},
	409: {"ABORTED", "ALREADY_EXISTS"},
	429: {"RESOURCE_EXHAUSTED"},
	499: {"CANCELLED"},
	500: {"INTERNAL", "UNKNOWN", "DATA_LOSS"},
	501: {"UNIMPLEMENTED"},
	503: {"UNAVAILABLE"},
	504: {"DEADLINE_EXCEEDED"},
}

// CheckStandardErrors judges standard protocol errors (LT-ERR-STANDARD).
// On JSON-RPC the code must be the standard one (normative text without an
// RFC 2119 keyword: Non-strict); the HTTP status a JSON-RPC error travels
// in is unspecified and recorded (Info). On HTTP+JSON the google.rpc.Status
// body carries, besides code and message, the status name that goes with
// the HTTP status (§11.6's body: Non-strict); the body's media type is
// application/a2a+json in §11.6's example, application/json in
// whats-new-v1 and problem+json in §6.4 (A13), so only a type that is not
// JSON at all is judged. Bodies that are not google.rpc.Status at all are
// judged by LT-ERR-ENVELOPE.
func CheckStandardErrors(ps []StandardProbe) []Finding {
	var fs []Finding
	var statuses []string
	for _, p := range ps {
		r := p.Reply
		if r == nil || r.Response == nil || r.X == nil {
			continue
		}
		w := r.Witness()
		if r.X.Binding == a2aclient.JSONRPC {
			statuses = append(statuses, fmt.Sprintf("%s: HTTP %d", p.What, r.X.Status))
			switch {
			case r.Err == nil && r.Malformed != "":
				fs = append(fs, Breach(R("LT-ERR-4", "LT-RPC-1"), "%s got a reply that is not a JSON-RPC error object (%s); want error code %d", p.What, r.Malformed, p.Code).WithWitness(w))
			case r.Err == nil:
				fs = append(fs, Breach(R("LT-ERR-4"), "%s was answered with a result; want error code %d", p.What, p.Code).WithWitness(w))
			case r.Err.Code != p.Code:
				fs = append(fs, Breach(R("LT-ERR-4", "LT-OP-6"), "%s was answered with error code %d; the standard code is %d", p.What, r.Err.Code, p.Code).WithWitness(w))
			}
			continue
		}
		switch {
		case r.Err == nil:
			fs = append(fs, Breach(R("LT-ERR-7", "LT-OP-6"), "%s was answered with HTTP %d success; want an HTTP %d error", p.What, r.X.Status, p.Status).WithWitness(w))
			continue
		case r.Err.Envelope != "":
			continue // not google.rpc.Status: LT-ERR-ENVELOPE's finding
		case r.X.Status != p.Status:
			fs = append(fs, Breach(R("LT-ERR-7", "LT-OP-6"), "%s was answered with HTTP %d; want %d", p.What, r.X.Status, p.Status).WithWitness(w))
		}
		names, known := rpcStatus[r.X.Status]
		switch {
		case r.Err.Status == "":
			fs = append(fs, Breach(R("LT-ERR-7", "LT-ERR-6"), "the HTTP %d error body for %s has no error.status; §11.6's body names the google.rpc.Code (e.g. \"status\": \"NOT_FOUND\")", r.X.Status, p.What).Of("no status", p.What).WithWitness(w))
		case known && !contains(names, r.Err.Status):
			fs = append(fs, Breach(R("LT-ERR-7", "LT-ERR-6"), "the HTTP %d error body for %s says status %q; HTTP %d goes with %s", r.X.Status, p.What, r.Err.Status, r.X.Status, strings.Join(names, " or ")).WithWitness(w))
		}
		switch mt := r.MediaType(); {
		case mt == "application/a2a+json":
		case mt == "application/json" || mt == "application/problem+json":
			fs = append(fs, Observe(R("LT-ERR-7", "LT-REST-7"), "HTTP+JSON error bodies are %s (§11.6's example uses application/a2a+json; the spec also shows application/json and problem+json, A13)", mt))
		default:
			fs = append(fs, Breach(R("LT-ERR-7", "LT-REST-7"), "the HTTP %d error body for %s has Content-Type %q, which is not a JSON media type; §11.6's example is application/a2a+json", r.X.Status, p.What, r.ContentType).
				Of("content-type", r.ContentType).WithWitness(w))
		}
	}
	if len(statuses) > 0 {
		fs = append(fs, Observe(R("LT-RPC-3"), "JSON-RPC errors came with %s (the spec does not say which HTTP status a JSON-RPC error uses)", strings.Join(statuses, ", ")))
	}
	return fs
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

var _ = Register(Scenario{
	ID: "LT-REQUIRED-FIELDS", Area: "envelope", Level: SHOULD, Checker: "CheckRequiredFields",
	Title: "A request that lacks a REQUIRED field (GetTask without id, SendMessage without message) is refused",
	Reqs:  R("LT-RESP-8", "LT-ERR-1"),
	Quote: `REQUIRED fields "MUST be present and set in valid messages. Implementations SHOULD validate these requirements and reject messages with missing required fields." (§5.7); GetTaskRequest.id and SendMessageRequest.message are REQUIRED (proto)`,
	Run: func(e *Env) {
		c := e.A()
		var ps []RequiredProbe
		if e.Binding() == a2aclient.JSONRPC {
			e.By("JSON-RPC GetTask with params {} (no id)")
			ps = append(ps, RequiredProbe{What: "GetTask", Field: "id",
				Reply: e.send(c, "", listOnce(), WithBody(rpcBody(c, "pw-getnoid", "GetTask", map[string]any{})))})
		}
		e.By("SendMessage with no message")
		ps = append(ps, RequiredProbe{What: "SendMessage", Field: "message",
			Reply: e.send(c, "", a2aclient.Request{Op: "SendMessage", Params: map[string]any{"configuration": map[string]any{"historyLength": 0}}})})
		e.Report(CheckRequiredFields(ps)...)
	},
})

// RequiredProbe is a request that lacks its REQUIRED Field.
type RequiredProbe struct {
	What, Field string
	Reply       *Wire
}

// CheckRequiredFields judges requests that lack a REQUIRED field
// (LT-REQUIRED-FIELDS): accepting one breaks the SHOULD to reject it
// (Non-strict). The error code and the naming of the field are judged by
// the validation cases (LT-PAGESIZE-BOUNDS, LT-TOKEN-GARBAGE,
// LT-FILTER-INVALID), not again here.
func CheckRequiredFields(ps []RequiredProbe) []Finding {
	var fs []Finding
	for _, p := range ps {
		r := p.Reply
		if r == nil || r.Response == nil || r.X == nil || r.Err != nil {
			continue
		}
		fs = append(fs, Breach(R("LT-RESP-8", "LT-ERR-1"), "%s without %s (REQUIRED) was accepted (%s); implementations \"SHOULD validate these requirements and reject messages with missing required fields\"", p.What, p.Field, r.Describe()).WithWitness(r.Witness()))
	}
	return fs
}
