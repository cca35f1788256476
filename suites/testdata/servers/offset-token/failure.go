package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// failure is an error as both bindings render it.
type failure struct {
	http   int
	rpc    int
	grpc   string
	reason string // ErrorInfo reason
	field  string // BadRequest field
	msg    string
}

func badParam(field, format string, args ...any) *failure {
	return &failure{http: 400, rpc: -32602, grpc: "INVALID_ARGUMENT", field: field, msg: fmt.Sprintf(format, args...)}
}

func notFound(id string) *failure {
	return &failure{http: 404, rpc: -32001, grpc: "NOT_FOUND", reason: "TASK_NOT_FOUND", msg: "no task " + id}
}

func versionFailure(v string) *failure {
	return &failure{http: 400, rpc: -32009, grpc: "FAILED_PRECONDITION", reason: "VERSION_NOT_SUPPORTED",
		msg: "A2A-Version " + v + " is not supported; use 1.0"}
}

func (f *failure) details() []any {
	out := []any{}
	if f.field != "" {
		out = append(out, map[string]any{"@type": "type.googleapis.com/google.rpc.BadRequest",
			"fieldViolations": []any{map[string]any{"field": f.field, "description": f.msg}}})
	}
	if f.reason != "" {
		out = append(out, map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": f.reason,
			"domain": "a2a-protocol.org", "metadata": map[string]any{"service": "approvals"}})
	}
	return out
}

func (a *app) restError(w http.ResponseWriter, f failure) {
	if f.http == 401 {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	e := map[string]any{"code": f.http, "status": f.grpc, "message": f.msg}
	if d := f.details(); len(d) > 0 {
		e["details"] = d
	}
	writeJSON(w, f.http, "application/a2a+json", map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, ctype string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, []byte(`{"error":{"code":500,"status":"INTERNAL","message":"encoding failed"}}`)
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
