package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// serveREST is the HTTP+JSON binding: each route becomes the core call of
// the same name, and core errors become google.rpc.Status bodies.
func (s *service) serveREST(w http.ResponseWriter, r *http.Request) {
	who, e := s.authenticate(r)
	if e != nil {
		s.restError(w, e)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/rest/v1")
	params := map[string]any{}
	for k, v := range r.URL.Query() {
		params[k] = v[0] // query values are strings; the core accepts quoted numbers and booleans
	}
	var method string
	switch {
	case r.Method == http.MethodGet && path == "/tasks":
		method = "ListTasks"
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/tasks/"):
		method, params["id"] = "GetTask", strings.TrimPrefix(path, "/tasks/")
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/tasks/") && strings.HasSuffix(path, ":cancel"):
		method, params["id"] = "CancelTask", strings.TrimSuffix(strings.TrimPrefix(path, "/tasks/"), ":cancel")
	case r.Method == http.MethodPost && path == "/message:send":
		method = "SendMessage"
		b, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		if json.Unmarshal(b, &params) != nil {
			s.restError(w, invalidParams("body", "the body must be a JSON object"))
			return
		}
	default:
		s.restError(w, &rpcError{Code: -32601, Message: "Not found: " + r.Method + " " + r.URL.Path})
		return
	}
	raw, _ := json.Marshal(params)
	res, e := s.call(who, method, raw)
	if e != nil {
		s.restError(w, e)
		return
	}
	w.Header().Set("Content-Type", "application/a2a+json")
	json.NewEncoder(w).Encode(res)
}

// httpOf maps a core error code to its HTTP status and google.rpc code.
var httpOf = map[int]struct {
	status int
	code   string
}{
	-32000: {401, "UNAUTHENTICATED"}, -32001: {404, "NOT_FOUND"}, -32002: {400, "FAILED_PRECONDITION"},
	-32004: {400, "FAILED_PRECONDITION"}, -32009: {400, "FAILED_PRECONDITION"}, -32601: {404, "NOT_FOUND"},
	-32602: {400, "INVALID_ARGUMENT"}, -32700: {400, "INVALID_ARGUMENT"},
}

func (s *service) restError(w http.ResponseWriter, e *rpcError) {
	m, ok := httpOf[e.Code]
	if !ok {
		m.status, m.code = 500, "INTERNAL"
	}
	if m.status == 401 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="a2a"`)
	}
	body := map[string]any{"code": m.status, "status": m.code, "message": e.Message}
	if len(e.Data) > 0 {
		body["details"] = e.Data
	}
	w.Header().Set("Content-Type", "application/a2a+json")
	w.WriteHeader(m.status)
	json.NewEncoder(w).Encode(map[string]any{"error": body})
}
