package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// apiErr is an error in the HTTP+JSON binding's terms; the JSON-RPC adapter
// translates it.
type apiErr struct {
	Status  int    // HTTP status
	Code    string // google.rpc code
	RPC     int    // JSON-RPC code
	Message string
	Field   string
	Reason  string
}

func badField(field, format string, args ...any) *apiErr {
	return &apiErr{Status: 400, Code: "INVALID_ARGUMENT", RPC: -32602, Field: field, Message: field + ": " + fmt.Sprintf(format, args...)}
}

func noTask(id string) *apiErr {
	return &apiErr{Status: 404, Code: "NOT_FOUND", RPC: -32001, Reason: "TASK_NOT_FOUND", Message: "task " + id + " does not exist"}
}

func (e *apiErr) details() []map[string]any {
	var d []map[string]any
	if e.Reason != "" {
		d = append(d, map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": e.Reason, "domain": "a2a-protocol.org"})
	}
	if e.Field != "" {
		d = append(d, map[string]any{"@type": "type.googleapis.com/google.rpc.BadRequest",
			"fieldViolations": []map[string]string{{"field": e.Field, "description": e.Message}}})
	}
	return d
}

func (e *apiErr) write(w http.ResponseWriter) {
	if e.Status == 401 {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
	body := map[string]any{"code": e.Status, "status": e.Code, "message": e.Message}
	if d := e.details(); len(d) > 0 {
		body["details"] = d
	}
	w.Header().Set("Content-Type", "application/a2a+json")
	w.WriteHeader(e.Status)
	json.NewEncoder(w).Encode(map[string]any{"error": body})
}
