package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

// listRequest is ListTasksRequest as sent. Numbers and the enum stay raw so
// that both quoted and bare forms (ProtoJSON accepts both) can be checked.
type listRequest struct {
	Tenant               string          `json:"tenant"`
	ContextID            string          `json:"contextId"`
	Status               json.RawMessage `json:"status"`
	PageSize             json.RawMessage `json:"pageSize"`
	PageToken            string          `json:"pageToken"`
	HistoryLength        json.RawMessage `json:"historyLength"`
	StatusTimestampAfter string          `json:"statusTimestampAfter"`
	IncludeArtifacts     json.RawMessage `json:"includeArtifacts"`
}

// filter is a validated listing.
type filter struct {
	context, state string
	after          time.Time
	history        int // -1 when unset
	artifacts      bool
}

// key is what a page token is bound to.
func (f filter) key() string {
	a := ""
	if !f.after.IsZero() {
		a = f.after.Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("%q %q %q %d %t", f.context, f.state, a, f.history, f.artifacts)
}

func absent(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// optionalCount reads an optional non-negative int32 (-1 when absent).
func optionalCount(name string, raw json.RawMessage) (int, *rpcError) {
	if absent(raw) {
		return -1, nil
	}
	n, e := integer(name, raw)
	if e == nil && n < 0 {
		e = invalidParams(name, fmt.Sprintf("%s must not be negative (got %d)", name, n))
	}
	return n, e
}

func integer(name string, raw json.RawMessage) (int, *rpcError) {
	s := string(bytes.Trim(raw, `"`))
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, invalidParams(name, fmt.Sprintf("%s must be an integer (got %s)", name, raw))
	}
	return int(f), nil
}

var stateNames = []string{"TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
	"TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"}

func parseState(raw json.RawMessage) (string, *rpcError) {
	if absent(raw) {
		return "", nil
	}
	var name string
	if json.Unmarshal(raw, &name) != nil {
		var n int
		if json.Unmarshal(raw, &n) != nil || n < 0 || n >= len(stateNames) {
			return "", invalidParams("status", fmt.Sprintf("status must be a TaskState (got %s)", raw))
		}
		name = stateNames[n]
	}
	for i, s := range stateNames {
		if s == name {
			if i == 0 {
				return "", nil
			}
			return s, nil
		}
	}
	if name == "" {
		return "", nil
	}
	return "", invalidParams("status", fmt.Sprintf("status must be a TaskState (got %q)", name))
}

type listResult struct {
	Tasks         []map[string]any `json:"tasks"`
	NextPageToken string           `json:"nextPageToken"`
	PageSize      int              `json:"pageSize"`
	TotalSize     int              `json:"totalSize"`
}

func (s *service) listTasks(who string, req listRequest) (any, *rpcError) {
	var f filter
	var e *rpcError
	f.context = req.ContextID
	if f.state, e = parseState(req.Status); e != nil {
		return nil, e
	}
	if req.StatusTimestampAfter != "" {
		t, err := time.Parse(time.RFC3339Nano, req.StatusTimestampAfter)
		if err != nil {
			return nil, invalidParams("statusTimestampAfter", fmt.Sprintf("statusTimestampAfter must be an ISO 8601 timestamp (got %q)", req.StatusTimestampAfter))
		}
		f.after = t
	}
	size := 50
	if !absent(req.PageSize) {
		if size, e = integer("pageSize", req.PageSize); e != nil {
			return nil, e
		}
		if size < 1 || size > 100 {
			return nil, invalidParams("pageSize", fmt.Sprintf("pageSize must be between 1 and 100 inclusive, got %d", size))
		}
	}
	if f.history, e = optionalCount("historyLength", req.HistoryLength); e != nil {
		return nil, e
	}
	if !absent(req.IncludeArtifacts) {
		switch string(bytes.Trim(req.IncludeArtifacts, `"`)) {
		case "true":
			f.artifacts = true
		case "false":
		default:
			return nil, invalidParams("includeArtifacts", "includeArtifacts must be true or false")
		}
	}
	var cur *position
	if req.PageToken != "" {
		if cur, e = s.tokens.read(req.PageToken, who, f.key()); e != nil {
			return nil, e
		}
	}
	s.repo.mu.Lock()
	defer s.repo.mu.Unlock()
	var rows []*ticket
	for _, t := range s.repo.all {
		if t.owner == who && (f.context == "" || t.context == f.context) && (f.state == "" || t.state == f.state) &&
			(f.after.IsZero() || t.at.After(f.after)) {
			rows = append(rows, t)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return newer(rows[i], rows[j]) })
	res := listResult{Tasks: []map[string]any{}, PageSize: size, TotalSize: len(rows)}
	i := 0
	if cur != nil {
		i = sort.Search(len(rows), func(k int) bool { return cur.passed(rows[k]) })
	}
	for ; i < len(rows) && len(res.Tasks) < size; i++ {
		res.Tasks = append(res.Tasks, rows[i].wire(f.history, f.artifacts))
	}
	if i < len(rows) {
		res.NextPageToken = s.tokens.write(who, f.key(), rows[i-1])
	}
	return res, nil
}
