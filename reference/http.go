package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// reqInfo collects what the request log line reports.
type reqInfo struct {
	principal string
	method    string
	binding   string
	rows      int
	tokenErr  TokenErrorKind
	errCode   int
}

type ctxKey struct{}

func info(r *http.Request) *reqInfo {
	if rc, ok := r.Context().Value(ctxKey{}).(*reqInfo); ok {
		return rc
	}
	return &reqInfo{}
}

const maxBody = 1 << 20

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", s.serveCard)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/jsonrpc", s.serveJSONRPC)
	if s.cfg.controlToken != "" {
		mux.Handle("/control/", s.controlHandler())
	}
	mux.HandleFunc("/", s.serveREST)
	return s.logRequests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// ServeMux would answer an unclean path (//, /./, /../) with a
		// redirect to its clean form; a client following it would send its
		// request somewhere it did not ask for. No A2A path is unclean.
		if !cleanPath(r.URL.Path) {
			s.writeRESTError(w, info(r), &Error{Kind: KindMethodNotFound, Message: "no A2A operation at " + r.URL.Path +
				": a path must not hold empty, . or .. segments"}, http.StatusNotFound)
			return
		}
		mux.ServeHTTP(w, r)
	}))
}

// cleanPath reports whether p is in the form path.Clean gives it (a
// trailing slash aside).
func cleanPath(p string) bool {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// logRequests writes one structured line per request: principal, method,
// rows and token error kind.
//
// It also detaches the request from its client's cancellation: a request
// the server has started runs to its end. net/http cancels a request's
// context as soon as the client closes its side of the connection, and a
// client that half-closes (shutdown(SHUT_WR) after a complete request)
// still reads the reply; cancelling would turn its request into a server
// error. Each request's work is bounded (a page, one task, one seed
// transaction whose body read fails if the client is gone), and the
// server's read and write timeouts bound the connection.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rc := &reqInfo{}
		sw := &statusWriter{ResponseWriter: w}
		ctx := context.WithValue(context.WithoutCancel(r.Context()), ctxKey{}, rc)
		next.ServeHTTP(sw, r.WithContext(ctx))
		if !s.log.Enabled(r.Context(), slog.LevelInfo) {
			return // no line to write: skip building it
		}
		attrs := []slog.Attr{
			slog.String("http", r.Method+" "+r.URL.Path),
			slog.Int("status", sw.status),
			slog.Duration("took", time.Since(start)),
		}
		if rc.method != "" {
			attrs = append(attrs, slog.String("method", rc.method), slog.String("binding", rc.binding))
		}
		if rc.principal != "" {
			attrs = append(attrs, slog.String("principal", rc.principal))
		}
		if rc.method == "ListTasks" || rc.method == "GetTask" {
			attrs = append(attrs, slog.Int("rows", rc.rows))
		}
		if rc.tokenErr != "" {
			attrs = append(attrs, slog.String("token_error", string(rc.tokenErr)))
		}
		if rc.errCode != 0 {
			attrs = append(attrs, slog.Int("error_code", rc.errCode))
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	})
}

// admit authenticates the caller, checks the A2A-Version service parameter
// and applies the per-principal rate limit.
func (s *Server) admit(r *http.Request, rc *reqInfo) *Error {
	if e := singleHeaders(r, "Authorization", "A2A-Version"); e != nil {
		return e
	}
	name, e := s.seams.edge.authenticate(r.Header.Get("Authorization"), s.cfg.principals)
	if e != nil {
		return e
	}
	rc.principal = name
	if e := s.checkVersion(r); e != nil {
		return e
	}
	if s.cfg.rateLimit > 0 {
		s.limitersMu.Lock()
		lim := s.limiters[name]
		if lim == nil {
			burst := s.cfg.rateBurst
			if burst < 1 {
				burst = int(math.Max(1, math.Ceil(s.cfg.rateLimit)))
			}
			lim = rate.NewLimiter(rate.Limit(s.cfg.rateLimit), burst)
			s.limiters[name] = lim
		}
		s.limitersMu.Unlock()
		res := lim.Reserve()
		if d := res.Delay(); d > 0 {
			res.Cancel()
			return &Error{Kind: KindRateLimited, RetryAfter: d,
				Message: fmt.Sprintf("rate limit: principal %s is limited to %g requests/s; retry after %s", name, s.cfg.rateLimit, d.Round(time.Millisecond))}
		}
	}
	return nil
}

// singleHeaders refuses a request that gives one of the named headers more
// than once: with two Authorization headers, which principal is calling is
// ambiguous, and the server must not pick one.
func singleHeaders(r *http.Request, names ...string) *Error {
	for _, name := range names {
		if n := len(r.Header.Values(name)); n > 1 {
			return &Error{Kind: KindInvalidRequest, Field: name,
				Message: fmt.Sprintf("%s: header given %d times; send it once", name, n)}
		}
	}
	return nil
}

// bearerToken returns the token of an "Authorization: Bearer TOKEN" header
// value (the scheme is case-insensitive, RFC 7235).
func bearerToken(authorization string) (string, bool) {
	scheme, tok, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", false
	}
	return tok, true
}

// SupportedVersion is the only A2A protocol version the server speaks.
const SupportedVersion = "1.0"

// checkVersion reads the A2A-Version header (or request parameter) and has
// the request edge judge it (LT-VER-*): an empty value means 0.3.
func (s *Server) checkVersion(r *http.Request) *Error {
	v := strings.TrimSpace(r.Header.Get("A2A-Version"))
	if v == "" {
		q, e := s.seams.edge.query(r.URL.RawQuery)
		if e != nil {
			return e
		}
		vs := q["A2A-Version"]
		if len(vs) > 1 {
			return &Error{Kind: KindInvalidRequest, Field: "A2A-Version",
				Message: fmt.Sprintf("A2A-Version: request parameter given %d times; give it once", len(vs))}
		}
		if len(vs) == 1 {
			v = strings.TrimSpace(vs[0])
		}
	}
	return s.seams.edge.version(v)
}

// ---- JSON-RPC binding ----

func (s *Server) serveJSONRPC(w http.ResponseWriter, r *http.Request) {
	rc := info(r)
	rc.binding = "jsonrpc"
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		s.writeRPCError(w, rc, nil, &Error{Kind: KindInvalidRequest, Message: "JSON-RPC requests must be POSTed"}, http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		s.writeRPCError(w, rc, nil, &Error{Kind: KindInvalidRequest, Field: "body", Message: "body: " + err.Error()}, 0)
		return
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		s.writeRPCError(w, rc, nil, &Error{Kind: KindInvalidRequest, Field: "body", Message: "body: batch requests are not supported; send one request per call"}, 0)
		return
	}
	var req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.writeRPCError(w, rc, nil, &Error{Kind: KindParse, Field: "body", Message: "body: parse error: not a JSON object: " + err.Error()}, 0)
		return
	}
	id := req.ID
	if len(id) > 0 && id[0] != '"' && id[0] != 'n' && (id[0] < '0' || id[0] > '9') && id[0] != '-' {
		s.writeRPCError(w, rc, nil, &Error{Kind: KindInvalidRequest, Message: "id: must be a string, a number or null"}, 0)
		return
	}
	if !validJSONText(id) {
		s.writeRPCError(w, rc, nil, &Error{Kind: KindInvalidRequest, Message: "id: must be valid UTF-8"}, 0)
		return
	}
	var method string
	if req.JSONRPC != "2.0" {
		s.writeRPCError(w, rc, id, &Error{Kind: KindInvalidRequest, Message: `jsonrpc: must be "2.0"`}, 0)
		return
	}
	if err := json.Unmarshal(req.Method, &method); err != nil || method == "" {
		s.writeRPCError(w, rc, id, &Error{Kind: KindInvalidRequest, Message: "method: must be a non-empty string"}, 0)
		return
	}
	method = s.seams.edge.method(method)
	rc.method = method
	if e := s.admit(r, rc); e != nil {
		s.writeRPCError(w, rc, id, e, 0)
		return
	}
	if e := s.seams.edge.rpcParams(method, req.Params); e != nil {
		s.writeRPCError(w, rc, id, e, 0)
		return
	}
	params, e := parseJSONParams(req.Params)
	if e == nil {
		e = s.seams.edge.fields(method, slices.Sorted(maps.Keys(params)))
	}
	if e != nil {
		s.writeRPCError(w, rc, id, e, 0)
		return
	}
	ctx := r.Context()
	var result any
	switch method {
	case "ListTasks":
		var p ListParams
		if p, e = parseList(params, s.seams.params); e == nil {
			result, e = s.listTasks(ctx, rc, p, "jsonrpc")
		}
	case "GetTask":
		var p GetParams
		if p, e = parseGet(params, s.seams.params, true); e == nil {
			result, e = s.getTask(ctx, rc, p)
		}
	case "CancelTask":
		var p GetParams
		if p, e = parseGet(params, s.seams.params, false); e == nil {
			result, e = s.cancelTask(ctx, rc, p)
		}
	case "SendMessage":
		result, e = s.sendMessage(ctx, rc, params, params)
	case "SendStreamingMessage", "SubscribeToTask", "GetExtendedAgentCard",
		"CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
		"ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig":
		e = &Error{Kind: KindUnsupportedOperation, Message: method + ": not supported by the pagewalk reference server"}
	default:
		e = &Error{Kind: KindMethodNotFound, Message: "method: " + strconv.Quote(method) + " not found; this server speaks SendMessage, GetTask, ListTasks and CancelTask"}
	}
	if e != nil {
		s.writeRPCError(w, rc, id, e, 0)
		return
	}
	if len(id) == 0 { // a notification gets no reply
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, s.seams.reply.resultType("jsonrpc"), map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *Server) writeRPCError(w http.ResponseWriter, rc *reqInfo, id json.RawMessage, e *Error, status int) {
	e = s.seams.rewriter.err(e)
	if e.Kind == KindInternal && e.cause != nil {
		s.log.Error("internal error", "err", e.cause)
	}
	rc.errCode = e.RPCCode()
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if status == 0 {
		// JSON-RPC errors travel in a 200 response, except where HTTP has a
		// precise status the client must see: authentication and rate limits.
		status = http.StatusOK
		switch e.Kind {
		case KindUnauthenticated, KindRateLimited:
			status = e.HTTPStatus()
		}
	}
	setErrorHeaders(w, e)
	errObj := map[string]any{"code": e.RPCCode(), "message": e.Message}
	if d := e.Details(); len(d) > 0 {
		errObj["data"] = d
	}
	writeJSON(w, status, "application/json", map[string]any{"jsonrpc": "2.0", "id": id, "error": errObj})
}

func setErrorHeaders(w http.ResponseWriter, e *Error) {
	switch e.Kind {
	case KindUnauthenticated:
		w.Header().Set("WWW-Authenticate", `Bearer realm="pagewalk"`)
	case KindRateLimited:
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
}

func writeJSON(w http.ResponseWriter, status int, contentType string, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// ---- HTTP+JSON binding ----

// restRoute is a parsed HTTP+JSON path: /[tenant/]tasks[/id[:cancel]] or
// /[tenant/]message:send.
type restRoute struct {
	op, tenant, id string
	hasTenant      bool
}

func parseRESTPath(escaped string) (restRoute, bool) {
	raw := strings.Split(strings.Trim(escaped, "/"), "/")
	segs := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil {
			return restRoute{}, false
		}
		segs[i] = u
	}
	var rt restRoute
	// An optional leading tenant segment, recognised by what follows it.
	if len(segs) >= 2 && (segs[1] == "tasks" || segs[1] == "message:send") && !(segs[0] == "tasks" && len(segs) == 2) {
		rt.tenant, rt.hasTenant, segs = segs[0], true, segs[1:]
	}
	switch {
	case len(segs) == 1 && segs[0] == "message:send":
		rt.op = "SendMessage"
	case len(segs) == 1 && segs[0] == "tasks":
		rt.op = "ListTasks"
	case len(segs) == 2 && segs[0] == "tasks" && strings.HasSuffix(segs[1], ":cancel"):
		rt.op, rt.id = "CancelTask", strings.TrimSuffix(segs[1], ":cancel")
	case len(segs) == 2 && segs[0] == "tasks":
		rt.op, rt.id = "GetTask", segs[1]
	default:
		return rt, false
	}
	return rt, rt.id != "" || rt.op == "ListTasks" || rt.op == "SendMessage"
}

func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	rc := info(r)
	rc.binding = "http"
	rt, ok := parseRESTPath(r.URL.EscapedPath())
	if !ok || !s.seams.edge.route(rt) {
		s.writeRESTError(w, rc, &Error{Kind: KindMethodNotFound, Message: "no A2A operation at " + r.URL.Path +
			"; HTTP+JSON paths are POST /message:send, GET /tasks, GET /tasks/{id}, POST /tasks/{id}:cancel, each optionally under /{tenant}"}, http.StatusNotFound)
		return
	}
	want := http.MethodGet
	if rt.op == "SendMessage" || rt.op == "CancelTask" {
		want = http.MethodPost
	}
	rc.method = rt.op
	if r.Method != want {
		w.Header().Set("Allow", want)
		s.writeRESTError(w, rc, &Error{Kind: KindMethodNotFound, Message: rt.op + " is " + want + " " + r.URL.Path}, http.StatusMethodNotAllowed)
		return
	}
	if e := s.admit(r, rc); e != nil {
		s.writeRESTError(w, rc, e, 0)
		return
	}
	qv, e := s.seams.edge.query(r.URL.RawQuery)
	if e != nil {
		s.writeRESTError(w, rc, e, 0)
		return
	}
	q := queryParams(qv)
	delete(q, "A2A-Version")
	if e := s.seams.edge.fields(rt.op, slices.Sorted(maps.Keys(q))); e != nil {
		s.writeRESTError(w, rc, e, 0)
		return
	}
	pathVals := map[string]string{}
	if rt.hasTenant {
		pathVals["tenant"] = rt.tenant
	}
	if rt.id != "" {
		pathVals["id"] = rt.id
	}
	ctx := r.Context()
	var result any
	switch rt.op {
	case "ListTasks":
		var p ListParams
		if p, e = parseList(withValues{q, pathVals}, s.seams.params); e == nil {
			result, e = s.listTasks(ctx, rc, p, "http")
		}
	case "GetTask":
		var p GetParams
		if p, e = parseGet(withValues{q, pathVals}, s.seams.params, true); e == nil {
			result, e = s.getTask(ctx, rc, p)
		}
	case "CancelTask", "SendMessage":
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			e = &Error{Kind: KindInvalidRequest, Field: "body", Message: "body: " + err.Error()}
			break
		}
		var jp jsonParams
		if len(bytes.TrimSpace(body)) == 0 {
			jp = jsonParams{}
		} else if jp, e = parseJSONParams(body); e != nil {
			e.Field, e.Message = "body", "body: must be a JSON object"
			break
		}
		for k, v := range pathVals {
			b, _ := json.Marshal(v)
			jp[k] = b
		}
		if rt.op == "SendMessage" {
			result, e = s.sendMessage(ctx, rc, jp, jp)
		} else {
			var p GetParams
			if p, e = parseGet(jp, s.seams.params, false); e == nil {
				result, e = s.cancelTask(ctx, rc, p)
			}
		}
	}
	if e != nil {
		s.writeRESTError(w, rc, e, 0)
		return
	}
	writeJSON(w, http.StatusOK, s.seams.reply.resultType("http"), result)
}

// writeRESTError writes a google.rpc.Status body (LT-ERR-6).
func (s *Server) writeRESTError(w http.ResponseWriter, rc *reqInfo, e *Error, status int) {
	e = s.seams.rewriter.err(e)
	if e.Kind == KindInternal && e.cause != nil {
		s.log.Error("internal error", "err", e.cause)
	}
	if status == 0 {
		status = e.HTTPStatus()
	}
	rc.errCode = status
	setErrorHeaders(w, e)
	body := map[string]any{"code": status, "status": e.Status(), "message": e.Message}
	if d := e.Details(); len(d) > 0 {
		body["details"] = d
	}
	writeJSON(w, status, "application/a2a+json", map[string]any{"error": body})
}
