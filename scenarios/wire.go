package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// This file sends the requests the A2A client would not send: no
// A2A-Version header, a header name in another letter case, another method
// name, a hand-written body, a hand-encoded query. The client renders the
// request (a2aclient.Client.Build), an Edit changes it, and it is sent with
// the target's HTTP client and recorded as an a2aclient.Exchange, so
// witnesses work as for every other case. The client's Do cannot be used:
// it sends exactly what Build renders and keeps no reply headers, and the
// protocol cases need the reply's Content-Type.

// Edit changes a rendered request before it is sent.
type Edit func(*a2aclient.Built)

// WithoutHeader removes the request header name.
func WithoutHeader(name string) Edit {
	return func(b *a2aclient.Built) { b.Header.Del(name) }
}

// WithRawHeader sets header name spelled exactly as given (Go would
// otherwise canonicalize it, e.g. "a2a-version" to "A2a-Version").
func WithRawHeader(name, value string) Edit {
	return func(b *a2aclient.Built) { b.Header[name] = []string{value} }
}

// WithURL replaces the request URL with f(URL).
func WithURL(f func(string) string) Edit {
	return func(b *a2aclient.Built) { b.URL = f(b.URL) }
}

// WithBody replaces the request body.
func WithBody(body string) Edit {
	return func(b *a2aclient.Built) { b.Body = []byte(body) }
}

// Wire is the reply to a request sent by sendRaw: the decoded reply, the
// reply's Content-Type, and a note on what was unusual about the request.
type Wire struct {
	*a2aclient.Response
	ContentType string
	// Note says what the request did that the A2A client would not (e.g.
	// "no A2A-Version header"), for witnesses: exchanges keep no headers.
	Note string
}

// Witness renders the note, the exchange and the reply's Content-Type.
func (w *Wire) Witness() string {
	if w == nil || w.Response == nil || w.X == nil {
		return ""
	}
	s := w.X.Transcript()
	if w.ContentType != "" {
		s += "\n    (reply Content-Type: " + w.ContentType + ")"
	}
	if w.Note != "" {
		s = "(" + w.Note + ")\n" + s
	}
	return s
}

// MediaType returns the reply's media type, lower case and without
// parameters ("" when absent or unparseable).
func (w *Wire) MediaType() string {
	mt, _, err := mime.ParseMediaType(w.ContentType)
	if err != nil {
		return ""
	}
	return strings.ToLower(mt)
}

// Page decodes the reply as a ListTasks page.
func (w *Wire) Page() *a2aclient.Page { return a2aclient.ParsePage(w.Response) }

// sendRaw renders req with c, applies edits, sends the request and decodes
// the reply for c's binding. The error is a transport failure only.
func sendRaw(ctx context.Context, hc *http.Client, c *a2aclient.Client, note string, req a2aclient.Request, edits ...Edit) (*Wire, error) {
	b, err := c.Build(req)
	if err != nil {
		return nil, err
	}
	for _, ed := range edits {
		ed(&b)
	}
	x := &a2aclient.Exchange{Op: req.Op, Binding: c.Iface.Binding, Principal: c.Principal, HTTPMethod: b.Method, URL: b.URL, ReqBody: string(b.Body)}
	w := &Wire{Note: note}
	hr, err := http.NewRequestWithContext(ctx, b.Method, b.URL, bytes.NewReader(b.Body))
	if err != nil {
		return nil, err
	}
	hr.Header = b.Header
	if hc == nil {
		hc = http.DefaultClient
	}
	x.Sent = time.Now()
	resp, err := hc.Do(hr)
	if err != nil {
		x.Received, x.Err = time.Now(), err.Error()
		record(c, x)
		w.Response = &a2aclient.Response{X: x}
		return w, fmt.Errorf("%s %s: %w", b.Method, b.URL, err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	resp.Body.Close()
	x.Received, x.Status, x.RespBody = time.Now(), resp.StatusCode, string(body)
	w.ContentType = resp.Header.Get("Content-Type")
	record(c, x)
	if err != nil {
		x.Err = err.Error()
		w.Response = &a2aclient.Response{X: x}
		return w, fmt.Errorf("%s %s: reading reply: %w", b.Method, b.URL, err)
	}
	w.Response = a2aclient.Decode(c.Iface.Binding, x)
	return w, nil
}

func record(c *a2aclient.Client, x *a2aclient.Exchange) {
	if c.Record != nil {
		c.Record(x)
	}
}

// send is sendRaw with the target's HTTP client; a transport failure aborts
// the case.
func (e *Env) send(c *a2aclient.Client, note string, req a2aclient.Request, edits ...Edit) *Wire {
	w, err := sendRaw(e.ctx, e.target.HTTP, c, note, req, edits...)
	e.Check(err, req.Op)
	return w
}

// tenantOf returns the tenant client c sends (its own, else its
// interface's).
func tenantOf(c *a2aclient.Client) string {
	if c.Tenant != "" {
		return c.Tenant
	}
	return c.Iface.Tenant
}

// rpcBody renders a JSON-RPC request body with the given id (any JSON
// value) and method. params nil omits the params member; c's tenant is
// added to params as the client would.
func rpcBody(c *a2aclient.Client, id any, method string, params map[string]any) string {
	env := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		p := map[string]any{}
		for k, v := range params {
			p[k] = v
		}
		if t := tenantOf(c); t != "" {
			if _, set := p["tenant"]; !set {
				p["tenant"] = t
			}
		}
		env["params"] = p
	}
	b, _ := json.Marshal(env)
	return string(b)
}

// clientFor returns a client for principal i on binding b with its tenant
// set to tenant ("" keeps the target's).
func (e *Env) clientFor(b a2aclient.Binding, i int, tenant string) *a2aclient.Client {
	c, err := e.target.Client(b, i, e.record)
	if err != nil {
		e.Skip("%v", err)
	}
	if tenant != "" {
		c.Tenant = tenant
	}
	return c
}

// CreatedTask is a task a case created, as the SendMessage reply showed
// it.
type CreatedTask struct {
	ID, ContextID, State string
	TS                   time.Time
	Reply                *a2aclient.TaskReply
}

// createTasks makes n tasks with SendMessage in context ctxID, each with
// its own messageId (tag keeps message ids distinct between calls in one
// case, so a server that deduplicates by messageId still makes n tasks). It
// skips the case when the agent does not answer with a task.
func (e *Env) createTasks(c *a2aclient.Client, n int, ctxID, tag string) []CreatedTask {
	var out []CreatedTask
	for i := 0; i < n; i++ {
		r, err := c.SendMessage(e.ctx, e.ID(fmt.Sprintf("%s-msg%03d", tag, i)), e.target.BlackBoxText, ctxID, "")
		e.checkSend(err)
		if r.Err != nil || r.Problem != "" || r.Task.ID == "" {
			e.Skip("SendMessage did not create a task (%s %s); this case needs tasks it creates itself", r.Describe(), r.Problem)
		}
		out = append(out, CreatedTask{ID: r.Task.ID, ContextID: r.Task.ContextID, State: r.Task.State, TS: r.Task.TS, Reply: r})
	}
	return out
}

// requireIsolated skips the case unless ListTasks by contextId ctx serves
// some of ids (the tasks the case created there) and nothing else: a
// filter that is not applied would make the case's walks as long as the
// principal's whole listing, and is LT-FILTER-CONTEXT's finding. It
// returns the page it read.
func (e *Env) requireIsolated(c *a2aclient.Client, ctx string, ids []string) *a2aclient.Page {
	p, err := c.ListTasks(e.ctx, a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(100), HistoryLength: a2aclient.Ptr(0)})
	e.Check(err, "ListTasks")
	if p.Err != nil || p.Malformed != "" {
		e.Skip("ListTasks by contextId %s failed (%s); LT-FILTER-CONTEXT judges the listing", ctx, p.Describe())
	}
	ours := 0
	for _, t := range p.Tasks {
		if !contains(ids, t.ID) {
			e.Skip("ListTasks by contextId %s served task %s, which the case did not create there, so the filter cannot isolate the case's tasks; LT-FILTER-CONTEXT judges the filter", ctx, t.ID)
		}
		ours++
	}
	if ours == 0 {
		e.Skip("ListTasks by contextId %s served none of the %d tasks the case created there, so there is nothing to compare; LT-FILTER-CONTEXT judges the filter", ctx, len(ids))
	}
	return p
}

func createdIDs(ps []CreatedTask) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}
