package main

import (
	"encoding/json"
	"io"
	"net/http"
)

// serveRPC is the JSON-RPC 2.0 endpoint.
func (s *service) serveRPC(w http.ResponseWriter, r *http.Request) {
	var env struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	status := http.StatusOK
	var result any
	var e *rpcError
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	who, authErr := s.authenticate(r)
	switch {
	case authErr != nil && authErr.Code == -32000:
		status, e = http.StatusUnauthorized, authErr
		w.Header().Set("WWW-Authenticate", `Bearer realm="a2a"`)
	case json.Unmarshal(body, &env) != nil:
		e = &rpcError{Code: -32700, Message: "Parse error"}
	case env.Version != "2.0" || env.Method == "":
		e = &rpcError{Code: -32600, Message: "Invalid Request"}
	case authErr != nil:
		e = authErr
	default:
		result, e = s.call(who, env.Method, env.Params)
	}
	id := env.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	out := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *rpcError       `json:"error,omitempty"`
	}{"2.0", id, result, e}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(out)
}
