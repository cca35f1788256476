package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// handler is an HTTP+JSON operation: the caller, the query string and the
// body in; the result or an error out. The JSON-RPC adapter calls the same
// handlers.
type handler func(caller string, q url.Values, body []byte, pathID string) (any, *apiErr)

// authed authenticates, checks A2A-Version, and runs h.
func (s *server) authed(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, e := s.check(r)
		if e != nil {
			e.write(w)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		res, e := h(caller, r.URL.Query(), body, r.PathValue("id"))
		if e != nil {
			e.write(w)
			return
		}
		w.Header().Set("Content-Type", "application/a2a+json")
		json.NewEncoder(w).Encode(res)
	}
}

func (s *server) check(r *http.Request) (string, *apiErr) {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) != 2 || !strings.EqualFold(f[0], "bearer") || s.callers[f[1]] == "" {
		return "", &apiErr{Status: 401, Code: "UNAUTHENTICATED", RPC: -32000, Message: "a valid bearer token is required"}
	}
	if v := r.Header.Get("A2A-Version"); majorMinor(v) != "1.0" {
		return "", &apiErr{Status: 400, Code: "FAILED_PRECONDITION", RPC: -32009, Reason: "VERSION_NOT_SUPPORTED",
			Message: fmt.Sprintf("A2A-Version %q is not supported (an empty header means 0.3); send 1.0", v)}
	}
	return s.callers[f[1]], nil
}

// majorMinor returns the major.minor part of an A2A version ("1.0" for
// "1.0.2": patch numbers are not negotiated, §3.6), or "" if v is not a
// version.
func majorMinor(v string) string {
	f := strings.Split(v, ".")
	if len(f) < 2 || len(f) > 3 {
		return ""
	}
	for _, n := range f {
		if _, err := strconv.ParseUint(n, 10, 16); err != nil {
			return ""
		}
	}
	return f[0] + "." + f[1]
}

// wire renders t; history < 0 means all of it.
func wire(t *Task, history int, artifacts bool) map[string]any {
	m := map[string]any{"id": t.ID(), "contextId": t.Context,
		"status": map[string]any{"state": t.State, "timestamp": time.Unix(t.Unix, 0).UTC().Format("2006-01-02T15:04:05Z")}}
	h := t.History
	if history >= 0 && len(h) > history {
		h = h[len(h)-history:]
	}
	if len(h) > 0 {
		m["history"] = h
	}
	if artifacts && len(t.Artifacts) > 0 {
		m["artifacts"] = t.Artifacts
	}
	return m
}

func intParam(q url.Values, name string, def int) (int, *apiErr) {
	v, ok := q[name]
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(v[0], 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, badField(name, "must be an integer, got %q", v[0])
	}
	return int(f), nil
}

func (s *server) restList(caller string, q url.Values, _ []byte, _ string) (any, *apiErr) {
	ctx := q.Get("contextId")
	state := q.Get("status")
	if state == "TASK_STATE_UNSPECIFIED" {
		state = ""
	}
	if state != "" && !slices.Contains(states, state) {
		return nil, badField("status", "%q is not a task state", state)
	}
	var after int64 = math.MinInt64
	afterText := ""
	if v := q.Get("statusTimestampAfter"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, badField("statusTimestampAfter", "%q is not an RFC 3339 timestamp", v)
		}
		// Tasks are stamped in whole seconds: >= t means >= the first whole
		// second not before t.
		after = t.Unix()
		if t.Nanosecond() > 0 {
			after++
		}
		afterText = t.UTC().Format(time.RFC3339Nano)
	}
	size, e := intParam(q, "pageSize", 50)
	if e != nil {
		return nil, e
	}
	if size < 1 || size > 100 {
		return nil, badField("pageSize", "must be between 1 and 100 inclusive, got %d", size)
	}
	hist, e := intParam(q, "historyLength", -1)
	if e != nil {
		return nil, e
	}
	if _, set := q["historyLength"]; set && hist < 0 {
		return nil, badField("historyLength", "must not be negative, got %d", hist)
	}
	arts := false
	switch v := q.Get("includeArtifacts"); v {
	case "true":
		arts = true
	case "", "false":
	default:
		return nil, badField("includeArtifacts", "must be true or false, got %q", v)
	}
	filters := strings.Join([]string{ctx, state, afterText, fmt.Sprint(hist), fmt.Sprint(arts)}, "\x1f")
	var cur *pageCursor
	if tok := q.Get("pageToken"); tok != "" {
		c, e := s.pages.lookup(tok, caller, filters)
		if e != nil {
			return nil, e
		}
		cur = &c
	}
	s.store.mu.Lock()
	var rows []*Task
	for _, t := range s.store.tasks {
		if t.Owner == caller && (ctx == "" || t.Context == ctx) && (state == "" || t.State == state) && t.Unix >= after {
			rows = append(rows, t)
		}
	}
	s.store.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Unix != rows[j].Unix {
			return rows[i].Unix > rows[j].Unix
		}
		return rows[i].Num > rows[j].Num
	})
	start := 0
	if cur != nil {
		start = sort.Search(len(rows), func(i int) bool {
			return rows[i].Unix < cur.unix || (rows[i].Unix == cur.unix && rows[i].Num < cur.num)
		})
	}
	end := min(start+size, len(rows))
	out := make([]map[string]any, 0, end-start)
	s.store.mu.Lock()
	for _, t := range rows[start:end] {
		out = append(out, wire(t, hist, arts))
	}
	s.store.mu.Unlock()
	next := ""
	if end < len(rows) {
		last := rows[end-1]
		next = s.pages.issue(pageCursor{caller: caller, filters: filters, unix: last.Unix, num: last.Num})
	}
	return map[string]any{"tasks": out, "nextPageToken": next, "pageSize": size, "totalSize": len(rows)}, nil
}

func (s *server) find(caller, id string) (*Task, *apiErr) {
	n, err := strconv.ParseInt(id, 10, 64)
	t := s.store.tasks[n]
	if err != nil || t == nil || t.Owner != caller || t.ID() != id {
		return nil, noTask(id)
	}
	return t, nil
}

func (s *server) restGet(caller string, q url.Values, _ []byte, id string) (any, *apiErr) {
	hist, e := intParam(q, "historyLength", -1)
	if e != nil {
		return nil, e
	}
	if _, set := q["historyLength"]; set && hist < 0 {
		return nil, badField("historyLength", "must not be negative, got %d", hist)
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	t, e := s.find(caller, id)
	if e != nil {
		return nil, e
	}
	return wire(t, hist, true), nil
}

func closed(state string) bool {
	switch state {
	case "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED":
		return true
	}
	return false
}

// restCancel serves POST /api/tasks/{id}:cancel (the pattern's {id} holds
// "<id>:cancel").
func (s *server) restCancel(caller string, _ url.Values, _ []byte, idop string) (any, *apiErr) {
	id, ok := strings.CutSuffix(idop, ":cancel")
	if !ok {
		return nil, &apiErr{Status: 404, Code: "NOT_FOUND", RPC: -32601, Message: "no such operation on a task"}
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	t, e := s.find(caller, id)
	if e != nil {
		return nil, e
	}
	if closed(t.State) {
		return nil, &apiErr{Status: 400, Code: "FAILED_PRECONDITION", RPC: -32002, Reason: "TASK_NOT_CANCELABLE", Message: "task " + id + " is already " + t.State}
	}
	c := *t
	c.State, c.Unix = "TASK_STATE_CANCELED", s.store.now()
	if err := s.store.save(&c); err != nil {
		return nil, &apiErr{Status: 500, Code: "INTERNAL", RPC: -32603, Message: err.Error()}
	}
	return wire(&c, -1, true), nil
}
