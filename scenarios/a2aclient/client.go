package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Client speaks A2A over one interface as one principal. Its zero value is
// not usable; fill Iface and Token.
type Client struct {
	// HTTP sends the requests; use NewHTTPClient. Whatever client is given,
	// replies are capped, requests time out and redirects are not followed
	// (see bounded).
	HTTP *http.Client
	// Iface is the endpoint and its binding.
	Iface Interface
	// Principal names the caller in transcripts; Token is its bearer token.
	Principal, Token string
	// Tenant, if set, goes in params.tenant (JSON-RPC) or the /{tenant}
	// path prefix (HTTP+JSON). It defaults to the interface's tenant.
	Tenant string
	// Record, if set, receives every exchange.
	Record func(*Exchange)
	// MaxPageTasks bounds the tasks of one ListTasks reply (default
	// DefaultMaxPageTasks); a reply with more fails with
	// *TooManyTasksError, undecoded.
	MaxPageTasks int

	seq atomic.Int64
}

func (c *Client) tenant() string {
	if c.Tenant != "" {
		return c.Tenant
	}
	return c.Iface.Tenant
}

// Request is one A2A call before it is sent: an operation and its params
// (ProtoJSON names). Params values are sent as given, so tests can send
// deliberately bad values.
type Request struct {
	Op     string // ListTasks, GetTask, CancelTask, SendMessage
	Params map[string]any
}

// Built is an HTTP request ready to send (and to hand to a load generator).
type Built struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// Build renders req for the client's binding.
func (c *Client) Build(req Request) (Built, error) {
	h := http.Header{}
	h.Set("A2A-Version", ProtocolVersion)
	if c.Token != "" {
		h.Set("Authorization", "Bearer "+c.Token)
	}
	params := map[string]any{}
	for k, v := range req.Params {
		params[k] = v
	}
	tenant := c.tenant()
	switch c.Iface.Binding {
	case JSONRPC:
		if tenant != "" {
			if _, set := params["tenant"]; !set {
				params["tenant"] = tenant
			}
		}
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("pw-%d", c.seq.Add(1)), "method": req.Op, "params": params})
		if err != nil {
			return Built{}, err
		}
		h.Set("Content-Type", "application/json")
		return Built{Method: http.MethodPost, URL: c.Iface.URL, Header: h, Body: body}, nil
	case HTTPJSON:
		base := strings.TrimRight(c.Iface.URL, "/")
		if t, ok := params["tenant"].(string); ok {
			tenant = t
			delete(params, "tenant")
		}
		if tenant != "" {
			base += "/" + url.PathEscape(tenant)
		}
		switch req.Op {
		case "ListTasks":
			return Built{Method: http.MethodGet, URL: base + "/tasks" + query(params), Header: h}, nil
		case "GetTask":
			id := fmt.Sprint(params["id"])
			delete(params, "id")
			return Built{Method: http.MethodGet, URL: base + "/tasks/" + url.PathEscape(id) + query(params), Header: h}, nil
		case "CancelTask":
			id := fmt.Sprint(params["id"])
			delete(params, "id")
			body, _ := json.Marshal(params)
			h.Set("Content-Type", "application/a2a+json")
			return Built{Method: http.MethodPost, URL: base + "/tasks/" + url.PathEscape(id) + ":cancel", Header: h, Body: body}, nil
		case "SendMessage":
			body, _ := json.Marshal(params)
			h.Set("Content-Type", "application/a2a+json")
			return Built{Method: http.MethodPost, URL: base + "/message:send", Header: h, Body: body}, nil
		}
		return Built{}, fmt.Errorf("a2aclient: no HTTP+JSON mapping for %s", req.Op)
	}
	return Built{}, fmt.Errorf("a2aclient: unknown binding %q", c.Iface.Binding)
}

// query renders params as an HTTP+JSON query string (LT-REST-2..6):
// camelCase names, enums as names, booleans lowercase, numbers decimal.
func query(params map[string]any) string {
	if len(params) == 0 {
		return ""
	}
	v := url.Values{}
	for k, p := range params {
		switch x := p.(type) {
		case nil:
			continue
		case string:
			v.Set(k, x)
		case bool:
			v.Set(k, strconv.FormatBool(x))
		case json.RawMessage:
			v.Set(k, strings.Trim(string(x), `"`))
		default:
			v.Set(k, fmt.Sprint(x))
		}
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// Response is a decoded reply: the result fields on success, or the error.
type Response struct {
	X *Exchange
	// Result holds the JSON-RPC result object or the HTTP+JSON body.
	Result Fields
	// Err is the A2A error, if the call failed at the protocol level.
	Err *ProtoError
	// Malformed says what was wrong with a reply that is neither a valid
	// result nor a valid error ("" if well-formed).
	Malformed string
	// RPC is the JSON-RPC 2.0 envelope of the reply, read from the whole
	// body (nil on HTTP+JSON, or when the body is not a JSON object).
	// X.RespBody may hold only the reply's first KeptResponseBytes, so a
	// check reads the envelope here, never by decoding X.RespBody again.
	RPC *RPCEnvelope
}

// RPCEnvelope is what a JSON-RPC reply carried beside its result or error.
type RPCEnvelope struct {
	// Version is the raw JSON of the "jsonrpc" member (nil when absent).
	Version json.RawMessage
	// ID is the raw JSON of the "id" member (nil when absent; JSON null
	// when the server wrote null).
	ID json.RawMessage
}

// Do sends req and decodes the reply. The returned error is a transport
// failure only; protocol errors are in Response.Err.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	b, err := c.Build(req)
	if err != nil {
		return nil, err
	}
	x := &Exchange{Op: req.Op, Binding: c.Iface.Binding, Principal: c.Principal, HTTPMethod: b.Method, URL: b.URL, ReqBody: string(b.Body)}
	hr, err := http.NewRequestWithContext(ctx, b.Method, b.URL, bytes.NewReader(b.Body))
	if err != nil {
		return nil, err
	}
	hr.Header = b.Header
	x.Sent = time.Now()
	resp, body, err := exchange(c.HTTP, hr)
	x.Received = time.Now()
	if resp == nil {
		x.Err = err.Error()
		c.record(x)
		return &Response{X: x}, fmt.Errorf("%s %s: %w", b.Method, b.URL, err)
	}
	x.Status, x.ContentType = resp.StatusCode, resp.Header.Get("Content-Type")
	x.keepBody(body)
	if err != nil {
		x.Err = err.Error()
		c.record(x)
		return &Response{X: x}, fmt.Errorf("%s %s: reading the reply: %w", b.Method, b.URL, err)
	}
	r := DecodeBody(c.Iface.Binding, x, body)
	if err := c.checkTasks(req, r); err != nil {
		x.Err = err.Error()
		c.record(x)
		return &Response{X: x}, fmt.Errorf("%s %s: %w", b.Method, b.URL, err)
	}
	c.record(x)
	return r, nil
}

// checkTasks refuses a ListTasks reply with more tasks than MaxPageTasks
// before anything decodes them.
func (c *Client) checkTasks(req Request, r *Response) error {
	if req.Op != "ListTasks" || r.Result == nil {
		return nil
	}
	limit := c.MaxPageTasks
	if limit <= 0 {
		limit = DefaultMaxPageTasks
	}
	if n, ok := countArray(r.Result["tasks"]); ok && n > limit {
		return &TooManyTasksError{Limit: limit, Seen: n}
	}
	return nil
}

func (c *Client) record(x *Exchange) {
	if c.Record != nil {
		c.Record(x)
	}
}

// Decode decodes the reply recorded in x for binding b. Tests use it to
// build responses from hand-written wire bodies.
func Decode(b Binding, x *Exchange) *Response {
	return DecodeBody(b, x, []byte(x.RespBody))
}

// DecodeBody decodes body, the whole reply of exchange x, for binding b.
// (x.RespBody may hold only the reply's first KeptResponseBytes.)
func DecodeBody(b Binding, x *Exchange, body []byte) *Response {
	if x.Binding == "" {
		x.Binding = b
	}
	r := &Response{X: x}
	switch b {
	case JSONRPC:
		env, err := decodeFields(body)
		if err != nil {
			r.Malformed = x.replyKind() + "is not a JSON-RPC object: " + err.Error()
			return r
		}
		r.RPC = &RPCEnvelope{Version: env["jsonrpc"], ID: env["id"]}
		if e, ok := env["error"]; ok {
			r.Err = parseJSONRPCError(e)
			return r
		}
		res, ok := env["result"]
		if !ok {
			r.Malformed = x.replyKind() + "has neither result nor error"
			return r
		}
		if r.Result, err = decodeFields(res); err != nil {
			r.Malformed = "result is not an object: " + err.Error()
		}
	case HTTPJSON:
		if x.Status < 200 || x.Status > 299 {
			r.Err = parseStatusError(x.Status, body)
			return r
		}
		var err error
		if r.Result, err = decodeFields(body); err != nil {
			r.Malformed = "body is not a JSON object: " + err.Error()
		}
	default:
		r.Malformed = fmt.Sprintf("unknown binding %q", b)
	}
	return r
}
