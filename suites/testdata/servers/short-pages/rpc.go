package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// rpc serves the JSON-RPC 2.0 binding.
func (s *server) rpc(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "JSON-RPC needs POST", http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	var req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeRPC(w, nil, nil, &apiError{rpcCode: -32700, msg: "parse error: " + err.Error()})
		return
	}
	who, aerr := s.caller(r)
	if aerr != nil {
		writeRPC(w, req.ID, nil, aerr)
		return
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		writeRPC(w, req.ID, nil, &apiError{rpcCode: -32600, msg: `invalid request: want "jsonrpc": "2.0" and a method`})
		return
	}
	params := jsonSource{}
	if p := bytes.TrimSpace(req.Params); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		if json.Unmarshal(p, &params) != nil {
			writeRPC(w, req.ID, nil, invalid("params", "params must be an object"))
			return
		}
	}
	var res any
	switch req.Method {
	case "ListTasks":
		res, aerr = s.listTasks(who, params)
	case "GetTask", "CancelTask":
		id, _, err := params.str("id")
		if err == nil && id == "" {
			err = invalid("id", "id is required")
		}
		switch {
		case err != nil:
			aerr = err
		case req.Method == "GetTask":
			res, aerr = s.getTask(who, id, params)
		default:
			res, aerr = s.cancelTask(who, id)
		}
	case "SendMessage":
		res, aerr = s.sendMessage(who, params)
	default:
		aerr = &apiError{rpcCode: -32601, msg: "method not found: " + req.Method}
	}
	writeRPC(w, req.ID, res, aerr)
}

func writeRPC(w http.ResponseWriter, id json.RawMessage, res any, e *apiError) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	out := map[string]any{"jsonrpc": "2.0", "id": id}
	if e != nil {
		obj := map[string]any{"code": e.rpcCode, "message": e.msg}
		if d := e.details(); len(d) > 0 {
			obj["data"] = d
		}
		out["error"] = obj
		if e.httpStatus == 401 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="short-pages"`)
		}
	} else {
		out["result"] = res
	}
	w.Header().Set("Content-Type", "application/json")
	if e != nil && e.httpStatus == 401 {
		w.WriteHeader(http.StatusUnauthorized)
	}
	json.NewEncoder(w).Encode(out)
}
