package main

import (
	"io"
	"net/http"
	"strings"
)

type handler func(who string, in args) (any, *failure)

func (a *app) methods() map[string]handler {
	return map[string]handler{"ListTasks": a.listTasks, "GetTask": a.getTask, "CancelTask": a.cancelTask, "SendMessage": a.sendMessage}
}

// jsonrpc serves the JSON-RPC 2.0 binding at /rpc.
func (a *app) jsonrpc(w http.ResponseWriter, r *http.Request) {
	var id any
	reply := func(status int, result any, f *failure) {
		out := map[string]any{"jsonrpc": "2.0", "id": id}
		if f != nil {
			e := map[string]any{"code": f.rpc, "message": f.msg}
			if d := f.details(); len(d) > 0 {
				e["data"] = d
			}
			out["error"] = e
		} else {
			out["result"] = result
		}
		writeJSON(w, status, "application/json", out)
	}
	if r.Method != http.MethodPost {
		reply(405, nil, &failure{rpc: -32600, msg: "POST a JSON-RPC request"})
		return
	}
	who, f := a.principal(r)
	if f != nil && f.http == 401 {
		w.Header().Set("WWW-Authenticate", "Bearer")
		reply(401, nil, f)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	req, err := decodeArgs(body)
	if err != nil {
		reply(200, nil, &failure{rpc: -32700, msg: "parse error"})
		return
	}
	id = req["id"]
	method, _ := req["method"].(string)
	if req["jsonrpc"] != "2.0" || method == "" {
		reply(200, nil, &failure{rpc: -32600, msg: "invalid JSON-RPC request"})
		return
	}
	if f != nil {
		reply(200, nil, f)
		return
	}
	h, ok := a.methods()[method]
	if !ok {
		reply(200, nil, &failure{rpc: -32601, msg: "unknown method " + method})
		return
	}
	params := args{}
	switch p := req["params"].(type) {
	case nil:
	case map[string]any:
		params = args(p)
	default:
		reply(200, nil, badParam("params", "params: must be an object"))
		return
	}
	res, f := h(who, params)
	reply(200, res, f)
}

// rest serves the HTTP+JSON binding under /v1.
func (a *app) rest(w http.ResponseWriter, r *http.Request, path string) {
	who, f := a.principal(r)
	if f != nil {
		a.restError(w, *f)
		return
	}
	in := args{}
	for k, v := range r.URL.Query() {
		in[k] = v[0]
	}
	var h handler
	switch {
	case path == "/tasks" && r.Method == http.MethodGet:
		h = a.listTasks
	case strings.HasPrefix(path, "/tasks/") && strings.HasSuffix(path, ":cancel") && r.Method == http.MethodPost:
		in["id"] = strings.TrimSuffix(strings.TrimPrefix(path, "/tasks/"), ":cancel")
		h = a.cancelTask
	case strings.HasPrefix(path, "/tasks/") && r.Method == http.MethodGet && !strings.Contains(path[7:], "/"):
		in["id"] = strings.TrimPrefix(path, "/tasks/")
		h = a.getTask
	case path == "/message:send" && r.Method == http.MethodPost:
		body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		b, err := decodeArgs(body)
		if err != nil {
			a.restError(w, *badParam("body", "body: not a JSON object"))
			return
		}
		in, h = b, a.sendMessage
	default:
		a.restError(w, failure{http: 404, grpc: "NOT_FOUND", msg: r.Method + " " + path + " is not an A2A operation"})
		return
	}
	res, f := h(who, in)
	if f != nil {
		a.restError(w, *f)
		return
	}
	writeJSON(w, 200, "application/a2a+json", res)
}
