package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// apiError is one A2A error, with what each binding needs to render it.
type apiError struct {
	rpcCode    int
	httpStatus int
	status     string // google.rpc.Code name
	reason     string // google.rpc.ErrorInfo reason, for A2A errors
	field      string // google.rpc.BadRequest field, for invalid params
	msg        string
}

func invalid(field, format string, args ...any) *apiError {
	return &apiError{rpcCode: -32602, httpStatus: 400, status: "INVALID_ARGUMENT", field: field, msg: fmt.Sprintf(format, args...)}
}

func errTaskNotFound(id string) *apiError {
	return &apiError{rpcCode: -32001, httpStatus: 404, status: "NOT_FOUND", reason: "TASK_NOT_FOUND", msg: fmt.Sprintf("task %q not found", id)}
}

func errNotCancelable(id, state string) *apiError {
	return &apiError{rpcCode: -32002, httpStatus: 400, status: "FAILED_PRECONDITION", reason: "TASK_NOT_CANCELABLE",
		msg: fmt.Sprintf("task %q is %s and cannot be canceled", id, state)}
}

func errUnsupported(format string, args ...any) *apiError {
	return &apiError{rpcCode: -32004, httpStatus: 400, status: "FAILED_PRECONDITION", reason: "UNSUPPORTED_OPERATION", msg: fmt.Sprintf(format, args...)}
}

func errVersion(v string) *apiError {
	if v == "" {
		v = "0.3 (no A2A-Version header)"
	}
	return &apiError{rpcCode: -32009, httpStatus: 400, status: "FAILED_PRECONDITION", reason: "VERSION_NOT_SUPPORTED",
		msg: fmt.Sprintf("A2A version %s is not supported; this agent speaks 1.0", v)}
}

func errUnauthenticated() *apiError {
	return &apiError{rpcCode: -32000, httpStatus: 401, status: "UNAUTHENTICATED", msg: "missing or unknown bearer token"}
}

func errNotFoundPath(p string) *apiError {
	return &apiError{rpcCode: -32601, httpStatus: 404, status: "NOT_FOUND", msg: "no such endpoint: " + p}
}

// details renders the typed detail objects of e.
func (e *apiError) details() []any {
	var d []any
	if e.field != "" {
		d = append(d, map[string]any{"@type": "type.googleapis.com/google.rpc.BadRequest",
			"fieldViolations": []any{map[string]string{"field": e.field, "description": e.msg}}})
	}
	if e.reason != "" {
		d = append(d, map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": e.reason, "domain": "a2a-protocol.org"})
	}
	return d
}

// writeREST writes e as a google.rpc.Status body.
func writeREST(w http.ResponseWriter, e *apiError) {
	if e.httpStatus == 401 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="absent-next-token"`)
	}
	body := map[string]any{"code": e.httpStatus, "status": e.status, "message": e.msg}
	if d := e.details(); len(d) > 0 {
		body["details"] = d
	}
	w.Header().Set("Content-Type", "application/a2a+json")
	w.WriteHeader(e.httpStatus)
	json.NewEncoder(w).Encode(map[string]any{"error": body})
}
