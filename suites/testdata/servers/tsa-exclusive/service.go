package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
)

// service is the A2A core: one method per operation, JSON in, JSON out.
type service struct {
	url    string
	keys   map[string]string // bearer token -> principal
	repo   *repo
	clock  *clock
	tokens *tokens
}

// rpcError is a JSON-RPC error with its typed details.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    []any  `json:"data,omitempty"`
}

func invalidParams(field, msg string) *rpcError {
	return &rpcError{Code: -32602, Message: "Invalid params: " + msg, Data: []any{map[string]any{
		"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": []any{map[string]any{"field": field, "description": msg}}}}}
}

func a2aError(code int, reason, msg string) *rpcError {
	return &rpcError{Code: code, Message: msg, Data: []any{map[string]any{
		"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "a2a-protocol.org"}}}
}

func taskNotFound(id string) *rpcError {
	return a2aError(-32001, "TASK_NOT_FOUND", "Task not found: "+id)
}

// versionRE matches the versions this agent speaks: 1.0, with any patch
// number (patch numbers are not negotiated, §3.6).
var versionRE = regexp.MustCompile(`^1\.0(\.\d+)?$`)

// authenticate maps the bearer token to a principal ("" if unknown) and
// checks the protocol version.
func (s *service) authenticate(r *http.Request) (string, *rpcError) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	who := s.keys[tok]
	if !ok || who == "" {
		return "", &rpcError{Code: -32000, Message: "Unauthenticated: send Authorization: Bearer <token>"}
	}
	if v := r.Header.Get("A2A-Version"); !versionRE.MatchString(v) {
		if v == "" {
			v = "0.3 (no A2A-Version header)"
		}
		return "", a2aError(-32009, "VERSION_NOT_SUPPORTED", "Version not supported: "+v+"; this agent implements A2A 1.0")
	}
	return who, nil
}

// call dispatches one operation.
func (s *service) call(who, method string, params json.RawMessage) (any, *rpcError) {
	switch method {
	case "ListTasks":
		var req listRequest
		if e := decode(params, &req); e != nil {
			return nil, e
		}
		return s.listTasks(who, req)
	case "GetTask":
		var req struct {
			ID            string          `json:"id"`
			HistoryLength json.RawMessage `json:"historyLength"`
		}
		if e := decode(params, &req); e != nil {
			return nil, e
		}
		h, e := optionalCount("historyLength", req.HistoryLength)
		if e != nil {
			return nil, e
		}
		return s.getTask(who, req.ID, h)
	case "CancelTask":
		var req struct {
			ID string `json:"id"`
		}
		if e := decode(params, &req); e != nil {
			return nil, e
		}
		return s.cancelTask(who, req.ID)
	case "SendMessage":
		var req sendRequest
		if e := decode(params, &req); e != nil {
			return nil, e
		}
		return s.sendMessage(who, req)
	}
	return nil, &rpcError{Code: -32601, Message: "Method not found: " + method}
}

// decode reads params into v; a field of the wrong JSON type is invalid
// params naming that field.
func decode(params json.RawMessage, v any) *rpcError {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			return invalidParams(te.Field, te.Field+" has the wrong type ("+te.Value+")")
		}
		return invalidParams("params", "params must be an object")
	}
	return nil
}
