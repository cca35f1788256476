package main

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// source is where request fields come from: a JSON-RPC params object (or an
// HTTP+JSON body), or an HTTP+JSON query string. Absent and null fields are
// "not set".
type source interface {
	str(name string) (string, bool, *apiError)
	integer(name string) (int, bool, *apiError)
	boolean(name string) (bool, bool, *apiError)
}

type jsonSource map[string]json.RawMessage

func (j jsonSource) get(name string) (json.RawMessage, bool) {
	v, ok := j[name]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil, false
	}
	return v, true
}

func (j jsonSource) str(name string) (string, bool, *apiError) {
	v, ok := j.get(name)
	if !ok {
		return "", false, nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false, invalid(name, "%s must be a string", name)
	}
	return s, true, nil
}

func (j jsonSource) integer(name string) (int, bool, *apiError) {
	v, ok := j.get(name)
	if !ok {
		return 0, false, nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil { // ProtoJSON also accepts a quoted number
		return parseInt(name, s)
	}
	return parseInt(name, string(v))
}

func (j jsonSource) boolean(name string) (bool, bool, *apiError) {
	v, ok := j.get(name)
	if !ok {
		return false, false, nil
	}
	var b bool
	if json.Unmarshal(v, &b) != nil {
		return false, false, invalid(name, "%s must be true or false", name)
	}
	return b, true, nil
}

type querySource url.Values

func (q querySource) str(name string) (string, bool, *apiError) {
	v, ok := q[name]
	if !ok || len(v) == 0 {
		return "", false, nil
	}
	return v[0], true, nil
}

func (q querySource) integer(name string) (int, bool, *apiError) {
	s, ok, _ := q.str(name)
	if !ok {
		return 0, false, nil
	}
	return parseInt(name, s)
}

func (q querySource) boolean(name string) (bool, bool, *apiError) {
	s, ok, _ := q.str(name)
	if !ok {
		return false, false, nil
	}
	switch s {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, invalid(name, "%s must be true or false, got %q", name, s)
}

// parseInt accepts a decimal int32, in any form JSON allows for an integer.
func parseInt(name, s string) (int, bool, *apiError) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false, invalid(name, "%s must be an integer, got %s", name, s)
	}
	return int(f), true, nil
}

// parseList validates ListTasks fields; key identifies the filter set a page
// token is bound to.
func parseList(src source) (q query, token, key string, e *apiError) {
	if q.contextID, _, e = src.str("contextId"); e != nil {
		return
	}
	if n, ok, err := src.integer("status"); ok && err == nil && n >= 0 && n < len(states) {
		q.state = states[n]
	} else if s, ok, err := src.str("status"); err != nil || ok {
		if err != nil {
			err2 := *err
			err2.msg = "status must be a TaskState name"
			return q, "", "", &err2
		}
		found := s == ""
		for _, st := range states {
			found = found || st == s
		}
		if !found {
			return q, "", "", invalid("status", "unknown status %q; want a TaskState such as TASK_STATE_WORKING", s)
		}
		q.state = s
	}
	if q.state == "TASK_STATE_UNSPECIFIED" {
		q.state = ""
	}
	after := ""
	if s, ok, err := src.str("statusTimestampAfter"); err != nil {
		return q, "", "", err
	} else if ok && s != "" {
		t, perr := time.Parse(time.RFC3339Nano, s)
		if perr != nil {
			return q, "", "", invalid("statusTimestampAfter", "statusTimestampAfter must be an RFC 3339 timestamp, got %q", s)
		}
		q.after = t.UTC()
		after = stamp(q.after)
	}
	q.pageSize = 50
	if n, ok, err := src.integer("pageSize"); err != nil {
		return q, "", "", err
	} else if ok {
		if n < 1 || n > 100 {
			return q, "", "", invalid("pageSize", "pageSize must be between 1 and 100 inclusive, got %d", n)
		}
		q.pageSize = n
	}
	q.history = -1
	if n, ok, err := src.integer("historyLength"); err != nil {
		return q, "", "", err
	} else if ok {
		if n < 0 {
			return q, "", "", invalid("historyLength", "historyLength must be a non-negative integer, got %d", n)
		}
		q.history = n
	}
	if q.artifacts, _, e = src.boolean("includeArtifacts"); e != nil {
		return
	}
	if token, _, e = src.str("pageToken"); e != nil {
		return
	}
	key = strings.Join([]string{q.contextID, q.state, after, strconv.Itoa(q.history), strconv.FormatBool(q.artifacts)}, "\x00")
	return q, token, key, nil
}

// historyParam reads an optional non-negative historyLength (-1: unset).
func historyParam(src source) (int, *apiError) {
	n, ok, err := src.integer("historyLength")
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return -1, nil
	case n < 0:
		return 0, invalid("historyLength", "historyLength must be a non-negative integer, got %d", n)
	}
	return n, nil
}
