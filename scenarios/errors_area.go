package scenarios

import (
	"bytes"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "errors": the error envelope of each binding.

var _ = Register(Scenario{
	ID: "LT-ERR-ENVELOPE", Area: "errors", Level: MUST, Checker: "CheckEnvelope",
	Title: "Errors use each binding's envelope: a JSON-RPC error object, or a google.rpc.Status body, with typed details",
	Reqs:  R("LT-ERR-3", "LT-ERR-5", "LT-ERR-6", "LT-ERR-8", "LT-ERR-2"),
	Quote: `"Each object in the data array MUST include a @type key" (§9.5); "HTTP error responses use the google.rpc.Status JSON representation" (§11.6); REST A2A-specific errors "MUST include a google.rpc.ErrorInfo" (§11.6); "Implementations SHOULD use well-known types such as google.rpc.BadRequest to attach structured data to validation errors" (§9.5 for error.data, §11.6 for error.details)`,
	Run: func(e *Env) {
		var bad *a2aclient.Page
		field := ""
		for _, probe := range []struct {
			field string
			req   a2aclient.ListRequest
		}{
			{"pageSize", a2aclient.ListRequest{PageSize: a2aclient.Ptr(-1)}},
			{"pageSize", a2aclient.ListRequest{PageSize: a2aclient.Ptr(101)}},
			{"pageToken", a2aclient.ListRequest{PageSize: a2aclient.Ptr(2), PageToken: "not-a-page-token"}},
		} {
			e.By("provoke an invalid-params error with %v", probe.req.Params())
			p, err := e.A().ListTasks(e.ctx, probe.req)
			e.Check(err, "ListTasks")
			if p.Err != nil {
				bad, field = p, probe.field
				break
			}
		}
		e.By("provoke a TaskNotFound error")
		missing, err := e.A().GetTask(e.ctx, e.ID("no-such-task"), nil)
		e.Check(err, "GetTask")
		if bad == nil {
			e.Report(CheckEnvelope(nil, "", missing.Response)...)
			e.Skip("the server accepted pageSize -1, pageSize 101 and a made-up pageToken, so no invalid-params envelope could be examined (LT-PAGESIZE-BOUNDS and LT-TOKEN-GARBAGE judge the acceptance)")
		}
		e.Report(CheckEnvelope(bad.Response, field, missing.Response)...)
	},
})

// CheckEnvelope judges the envelopes of an invalid-params error (provoked
// with a bad probeField) and a TaskNotFound error (LT-ERR-ENVELOPE).
func CheckEnvelope(invalid *a2aclient.Response, probeField string, notFound *a2aclient.Response) []Finding {
	var fs []Finding
	for _, c := range []struct {
		what string
		r    *a2aclient.Response
		a2a  bool
	}{{"invalid params", invalid, false}, {"TaskNotFound", notFound, true}} {
		r := c.r
		if r == nil || r.X == nil {
			continue
		}
		w := r.X.Transcript()
		if r.Err == nil {
			if c.a2a {
				fs = append(fs, Breach(R("LT-AUTHZ-6", "LT-ERR-10"), "GetTask of a task that does not exist succeeded").WithWitness(w))
			}
			continue // accepted invalid input is judged by LT-PAGESIZE-BOUNDS and LT-TOKEN-GARBAGE
		}
		binding := r.X.Binding
		if r.Err.UntypedDetail {
			fs = append(fs, Breach(R("LT-ERR-3"), "%s error on %s has a detail object without @type; each \"MUST include a @type key\"", c.what, binding).WithWitness(w))
		}
		if r.Err.Envelope != "" {
			if binding == a2aclient.HTTPJSON {
				fs = append(fs, Breach(R("LT-ERR-6", "LT-ERR-7"), "%s error body on HTTP+JSON: %s; \"HTTP error responses use the google.rpc.Status JSON representation\"", c.what, r.Err.Envelope).WithWitness(w))
			} else {
				fs = append(fs, Breach(R("LT-RPC-1", "LT-ERR-4"), "%s JSON-RPC error object: %s", c.what, r.Err.Envelope).WithWitness(w))
			}
		}
		if binding == a2aclient.JSONRPC && r.RPC != nil {
			// The envelope as decoded from the whole reply: X.RespBody
			// keeps only the first KeptResponseBytes of a long one.
			if v := bytes.TrimSpace(r.RPC.Version); string(v) != `"2.0"` {
				fs = append(fs, Breach(R("LT-RPC-1"), "%s error reply has jsonrpc %s, not \"2.0\"", c.what, rawText(v)).WithWitness(w))
			}
			if r.RPC.ID == nil {
				fs = append(fs, Breach(R("LT-RPC-1"), "%s error reply lacks the request id", c.what).WithWitness(w))
			}
		}
		switch {
		case !c.a2a && binding == a2aclient.JSONRPC && r.Err.Code != -32602:
			fs = append(fs, Breach(R("LT-ERR-2", "LT-ERR-4"), "invalid params answered with JSON-RPC code %d, not -32602", r.Err.Code).WithWitness(w))
		case !c.a2a && binding == a2aclient.HTTPJSON && r.Err.Code != 400:
			fs = append(fs, Breach(R("LT-ERR-2"), "invalid params answered with HTTP %d, not 400", r.Err.Code).WithWitness(w))
		case c.a2a && binding == a2aclient.JSONRPC && r.Err.Code != -32001:
			fs = append(fs, Breach(R("LT-ERR-10"), "TaskNotFound answered with JSON-RPC code %d, not -32001", r.Err.Code).WithWitness(w))
		case c.a2a && binding == a2aclient.HTTPJSON && r.Err.Code != 404:
			fs = append(fs, Breach(R("LT-ERR-10"), "TaskNotFound answered with HTTP %d, not 404", r.Err.Code).WithWitness(w))
		}
		if !c.a2a && len(r.Err.Fields) == 0 {
			named := "and its message names no parameter either"
			if probeField != "" && r.Err.NamesField(probeField) {
				named = "(the message text does name " + probeField + ")"
			}
			sec := "§9.5"
			if binding == a2aclient.HTTPJSON {
				sec = "§11.6"
			}
			fs = append(fs, Breach(R("LT-ERR-5", "LT-ERR-1"), "the invalid-params error on %s has no google.rpc.BadRequest field violation (\"Implementations SHOULD use well-known types such as google.rpc.BadRequest to attach structured data to validation errors\", %s) %s", binding, sec, named).WithWitness(w))
		}
		if c.a2a && binding == a2aclient.HTTPJSON && !hasReason(r.Err, "TASK_NOT_FOUND") {
			fs = append(fs, Breach(R("LT-ERR-8"), "the HTTP+JSON TaskNotFound error has no google.rpc.ErrorInfo with reason TASK_NOT_FOUND (%v)", r.Err.Reasons).WithWitness(w))
		}
		if c.a2a && binding == a2aclient.JSONRPC && !hasReason(r.Err, "TASK_NOT_FOUND") {
			fs = append(fs, Breach(R("LT-ERR-8"), "the JSON-RPC TaskNotFound error has no google.rpc.ErrorInfo with reason TASK_NOT_FOUND (SHOULD since 1.0.1)").Ambiguous("A14").WithWitness(w))
		}
	}
	return fs
}

func hasReason(e *a2aclient.ProtoError, reason string) bool {
	for _, r := range e.Reasons {
		if r == reason {
			return true
		}
	}
	return false
}
