package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// args are request fields as decoded JSON (numbers as json.Number) or, on
// HTTP+JSON, query strings. Accessors accept both.
type args map[string]any

func (a args) text(k string) (string, bool, *failure) {
	v, ok := a[k]
	if !ok || v == nil {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, badParam(k, "%s: expected a string", k)
	}
	return s, true, nil
}

func (a args) number(k string) (int64, bool, *failure) {
	v, ok := a[k]
	if !ok || v == nil {
		return 0, false, nil
	}
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return 0, false, badParam(k, "%s: expected an integer", k)
	}
	if i, err := strconv.ParseInt(s, 10, 32); err == nil {
		return i, true, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= math.MaxInt32 {
		return int64(f), true, nil
	}
	return 0, false, badParam(k, "%s: expected an integer, got %v", k, v)
}

func (a args) flag(k string) (bool, *failure) {
	switch v := a[k].(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	case string:
		if b, err := strconv.ParseBool(v); err == nil && (v == "true" || v == "false") {
			return b, nil
		}
	}
	return false, badParam(k, "%s: expected true or false", k)
}

// listing is a validated ListTasks request.
type listing struct {
	context, state string
	since          time.Time
	size           int
	history        int // -1 = unset
	artifacts      bool
	token          string
	binding        string // the filter set a page token is sealed to
}

func parseListing(a args) (l listing, f *failure) {
	l.size, l.history = 50, -1
	if l.context, _, f = a.text("contextId"); f != nil {
		return
	}
	switch v := a["status"].(type) {
	case nil:
	case json.Number:
		i, err := v.Int64()
		if err != nil || i < 0 || i > int64(len(allStates)) {
			return l, badParam("status", "status: no TaskState numbered %s", v)
		}
		if i > 0 {
			l.state = allStates[i-1]
		}
	case string:
		if v != "" && v != "TASK_STATE_UNSPECIFIED" {
			if !slices.Contains(allStates, v) {
				return l, badParam("status", "status: %q is not a TaskState", v)
			}
			l.state = v
		}
	default:
		return l, badParam("status", "status: expected a TaskState name")
	}
	if s, ok, f := a.text("statusTimestampAfter"); f != nil {
		return l, f
	} else if ok && s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return l, badParam("statusTimestampAfter", "statusTimestampAfter: %q is not an RFC 3339 timestamp", s)
		}
		l.since = t.UTC()
	}
	if n, ok, f := a.number("pageSize"); f != nil {
		return l, f
	} else if ok {
		if n < 1 || n > 100 {
			return l, badParam("pageSize", "pageSize: must be between 1 and 100 inclusive, got %d", n)
		}
		l.size = int(n)
	}
	if n, ok, f := a.number("historyLength"); f != nil {
		return l, f
	} else if ok {
		if n < 0 {
			return l, badParam("historyLength", "historyLength: must be non-negative, got %d", n)
		}
		l.history = int(n)
	}
	if l.artifacts, f = a.flag("includeArtifacts"); f != nil {
		return
	}
	if l.token, _, f = a.text("pageToken"); f != nil {
		return
	}
	since := ""
	if !l.since.IsZero() {
		since = l.since.Format(time.RFC3339Nano)
	}
	l.binding = strings.Join([]string{l.context, l.state, since, fmt.Sprint(l.history), fmt.Sprint(l.artifacts)}, "|")
	return l, nil
}

func historyLength(a args) (int, *failure) {
	n, ok, f := a.number("historyLength")
	switch {
	case f != nil:
		return 0, f
	case !ok:
		return -1, nil
	case n < 0:
		return 0, badParam("historyLength", "historyLength: must be non-negative, got %d", n)
	}
	return int(n), nil
}
