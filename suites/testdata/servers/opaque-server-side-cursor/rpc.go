package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// rpc is the JSON-RPC adapter: params become the query string (or body) of
// the matching HTTP+JSON handler, and its errors become JSON-RPC errors.
func (s *server) rpc(w http.ResponseWriter, r *http.Request) {
	var req struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      any                        `json:"id"`
		Method  string                     `json:"method"`
		Params  map[string]json.RawMessage `json:"params"`
	}
	respond := func(res any, e *apiErr) {
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if e != nil {
			obj := map[string]any{"code": e.RPC, "message": e.Message}
			if d := e.details(); len(d) > 0 {
				obj["data"] = d
			}
			out["error"] = obj
		} else {
			out["result"] = res
		}
		w.Header().Set("Content-Type", "application/json")
		if e != nil && e.Status == 401 {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(401)
		}
		json.NewEncoder(w).Encode(out)
	}
	caller, authErr := s.check(r)
	if authErr != nil && authErr.Status == 401 {
		respond(nil, authErr)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err := json.Unmarshal(body, &req); err != nil {
		var probe map[string]any
		if json.Unmarshal(body, &probe) != nil {
			respond(nil, &apiErr{RPC: -32700, Message: "parse error"})
		} else {
			respond(nil, badField("params", "params must be an object"))
		}
		return
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		respond(nil, &apiErr{RPC: -32600, Message: "invalid request"})
		return
	}
	if authErr != nil {
		respond(nil, authErr)
		return
	}
	var h handler
	var fields map[string]string // param -> kind it must have
	switch req.Method {
	case "ListTasks":
		h = s.restList
		fields = map[string]string{"contextId": "string", "status": "enum", "pageSize": "number", "pageToken": "string",
			"historyLength": "number", "statusTimestampAfter": "string", "includeArtifacts": "bool", "tenant": "string"}
	case "GetTask":
		h, fields = s.restGet, map[string]string{"id": "string", "historyLength": "number", "tenant": "string"}
	case "CancelTask":
		h, fields = s.restCancel, map[string]string{"id": "string", "tenant": "string"}
	case "SendMessage":
		b, _ := json.Marshal(req.Params)
		respond(s.restSend(caller, nil, b, ""))
		return
	default:
		respond(nil, &apiErr{RPC: -32601, Message: "method not found: " + req.Method})
		return
	}
	q := url.Values{}
	for name, raw := range req.Params {
		kind, known := fields[name]
		if !known || string(raw) == "null" {
			continue // unknown fields are ignored
		}
		v, ok := scalar(raw, kind)
		if !ok {
			respond(nil, badField(name, "has the wrong JSON type for a %s: %s", kind, raw))
			return
		}
		q.Set(name, v)
	}
	id := q.Get("id")
	if req.Method == "CancelTask" {
		id += ":cancel"
	}
	if (req.Method == "GetTask" || req.Method == "CancelTask") && q.Get("id") == "" {
		respond(nil, badField("id", "required"))
		return
	}
	respond(h(caller, q, nil, id))
}

// scalar turns a JSON value of the given kind into its query-string form.
// ProtoJSON also accepts numbers as strings and enums as numbers.
func scalar(raw json.RawMessage, kind string) (string, bool) {
	var s string
	var n json.Number
	var b bool
	switch kind {
	case "string":
		return s, json.Unmarshal(raw, &s) == nil
	case "number":
		if json.Unmarshal(raw, &n) == nil {
			return n.String(), true
		}
		return s, json.Unmarshal(raw, &s) == nil
	case "bool":
		if json.Unmarshal(raw, &b) == nil {
			return strconv.FormatBool(b), true
		}
		return "", false
	case "enum":
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
		if json.Unmarshal(raw, &n) == nil {
			i, err := n.Int64()
			if err != nil || i < 0 || i > int64(len(states)) {
				return "", false
			}
			if i == 0 {
				return "TASK_STATE_UNSPECIFIED", true
			}
			return states[i-1], true
		}
	}
	return fmt.Sprint(raw), false
}
