package a2aclient

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ListRequest is a ListTasks request; nil fields are not sent.
type ListRequest struct {
	ContextID            *string
	Status               *string
	PageSize             *int
	PageToken            string
	HistoryLength        *int
	StatusTimestampAfter *string
	IncludeArtifacts     *bool
	// Extra adds or overrides params verbatim (for bad-input cases).
	Extra map[string]any
}

// Params renders the request as ProtoJSON params.
func (r ListRequest) Params() map[string]any {
	p := map[string]any{}
	if r.ContextID != nil {
		p["contextId"] = *r.ContextID
	}
	if r.Status != nil {
		p["status"] = *r.Status
	}
	if r.PageSize != nil {
		p["pageSize"] = *r.PageSize
	}
	if r.PageToken != "" {
		p["pageToken"] = r.PageToken
	}
	if r.HistoryLength != nil {
		p["historyLength"] = *r.HistoryLength
	}
	if r.StatusTimestampAfter != nil {
		p["statusTimestampAfter"] = *r.StatusTimestampAfter
	}
	if r.IncludeArtifacts != nil {
		p["includeArtifacts"] = *r.IncludeArtifacts
	}
	for k, v := range r.Extra {
		p[k] = v
	}
	return p
}

// Ptr returns a pointer to v, for ListRequest fields.
func Ptr[T any](v T) *T { return &v }

// Task is a Task as it came over the wire.
type Task struct {
	Raw       Fields
	ID        string
	ContextID string
	State     string
	// Timestamp is status.timestamp as sent; TS is it parsed (zero if absent
	// or unparseable).
	Timestamp string
	TS        time.Time
	// History holds the messageIds of history, oldest first; nil when the
	// field is absent.
	History []string
}

// HasArtifacts reports whether the artifacts member is present (even as []
// or null).
func (t Task) HasArtifacts() bool { return t.Raw.Has("artifacts") }

// ArtifactCount returns the number of artifacts, and whether artifacts is
// a JSON array.
func (t Task) ArtifactCount() (int, bool) {
	var a []json.RawMessage
	v, ok := t.Raw["artifacts"]
	if !ok || json.Unmarshal(v, &a) != nil || a == nil {
		return 0, false
	}
	return len(a), true
}

// ParseTask decodes a Task object. Problems with its shape are returned as
// a description, not an error, so the caller can judge them.
func ParseTask(raw json.RawMessage) (Task, string) {
	f, err := decodeFields(raw)
	if err != nil {
		return Task{}, "task is not an object"
	}
	t := Task{Raw: f}
	var ok bool
	if t.ID, ok = f.String("id"); !ok || t.ID == "" {
		return t, "task has no string id"
	}
	t.ContextID, _ = f.String("contextId")
	st, err := decodeFields(f["status"])
	if err != nil {
		return t, "task " + t.ID + " has no status object"
	}
	t.State, _ = st.String("state")
	t.Timestamp, _ = st.String("timestamp")
	if t.Timestamp != "" {
		t.TS, _ = time.Parse(time.RFC3339Nano, t.Timestamp)
	}
	if h, ok := f["history"]; ok && !f.IsNull("history") {
		var msgs []struct {
			MessageID string `json:"messageId"`
		}
		if json.Unmarshal(h, &msgs) != nil {
			return t, "task " + t.ID + " history is not an array of messages"
		}
		t.History = []string{}
		for _, m := range msgs {
			t.History = append(t.History, m.MessageID)
		}
	}
	return t, ""
}

// Page is a decoded ListTasks reply.
type Page struct {
	*Response
	Tasks []Task
	// TasksShape describes a tasks member that is absent, null or not an
	// array ("" when it is an array).
	TasksShape string
	// NextPageToken is the token; NextPresent and NextNull tell an absent
	// member and a null from "".
	NextPageToken         string
	NextPresent, NextNull bool
	PageSize, TotalSize   *int
	// Problems lists shape problems of individual tasks.
	Problems []string
}

// The states of a reply's nextPageToken member, as NextState reports them.
const (
	NextString = "string"
	NextAbsent = "absent"
	NextNull   = "null"
)

// NextState says whether nextPageToken was a string (NextString, "" included),
// absent (NextAbsent) or null (NextNull).
func (p *Page) NextState() string {
	switch {
	case !p.NextPresent:
		return NextAbsent
	case p.NextNull:
		return NextNull
	}
	return NextString
}

// ListTasks sends a ListTasks request.
func (c *Client) ListTasks(ctx context.Context, r ListRequest) (*Page, error) {
	resp, err := c.Do(ctx, Request{Op: "ListTasks", Params: r.Params()})
	if err != nil {
		return &Page{Response: resp}, err
	}
	return ParsePage(resp), nil
}

// ParsePage decodes the ListTasks-specific members of a reply.
func ParsePage(resp *Response) *Page {
	p := &Page{Response: resp}
	if resp.Err != nil || resp.Result == nil {
		return p
	}
	f := resp.Result
	switch {
	case !f.Has("tasks"):
		p.TasksShape = "tasks is absent"
	case f.IsNull("tasks"):
		p.TasksShape = "tasks is null"
	default:
		var items []json.RawMessage
		if err := json.Unmarshal(f["tasks"], &items); err != nil {
			p.TasksShape = "tasks is not an array"
		}
		for _, it := range items {
			t, problem := ParseTask(it)
			if problem != "" {
				p.Problems = append(p.Problems, problem)
			}
			p.Tasks = append(p.Tasks, t)
		}
	}
	p.NextPresent = f.Has("nextPageToken")
	p.NextNull = f.IsNull("nextPageToken")
	p.NextPageToken, _ = f.String("nextPageToken")
	if n, ok := f.Int("pageSize"); ok {
		p.PageSize = &n
	}
	if n, ok := f.Int("totalSize"); ok {
		p.TotalSize = &n
	}
	return p
}

// IDs returns the task ids of the page in order.
func (p *Page) IDs() []string {
	if p == nil {
		return nil
	}
	out := make([]string, len(p.Tasks))
	for i, t := range p.Tasks {
		out[i] = t.ID
	}
	return out
}

// TaskReply is a reply that carries one Task (GetTask, CancelTask) or a
// SendMessageResponse holding one.
type TaskReply struct {
	*Response
	Task    Task
	Problem string
}

// GetTask fetches one task; historyLength nil leaves it unset.
func (c *Client) GetTask(ctx context.Context, id string, historyLength *int) (*TaskReply, error) {
	p := map[string]any{"id": id}
	if historyLength != nil {
		p["historyLength"] = *historyLength
	}
	return c.taskCall(ctx, Request{Op: "GetTask", Params: p}, false)
}

// CancelTask cancels a task.
func (c *Client) CancelTask(ctx context.Context, id string) (*TaskReply, error) {
	return c.taskCall(ctx, Request{Op: "CancelTask", Params: map[string]any{"id": id}}, false)
}

// SendMessage sends a user text message, optionally in a context or to an
// existing task, and returns the task from the SendMessageResponse. The call
// is blocking (returnImmediately is not set), so the task comes back settled
// in a terminal or interrupted state and does not change behind the walk
// that follows.
func (c *Client) SendMessage(ctx context.Context, messageID, text, contextID, taskID string) (*TaskReply, error) {
	msg := map[string]any{"messageId": messageID, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	if contextID != "" {
		msg["contextId"] = contextID
	}
	if taskID != "" {
		msg["taskId"] = taskID
	}
	return c.taskCall(ctx, Request{Op: "SendMessage", Params: map[string]any{"message": msg,
		"configuration": map[string]any{"historyLength": 0}}}, true)
}

func (c *Client) taskCall(ctx context.Context, req Request, wrapped bool) (*TaskReply, error) {
	resp, err := c.Do(ctx, req)
	r := &TaskReply{Response: resp}
	if err != nil || resp.Err != nil || resp.Result == nil {
		return r, err
	}
	raw := json.RawMessage(nil)
	if wrapped {
		t, ok := resp.Result["task"]
		if !ok {
			r.Problem = "SendMessageResponse has no task (the agent answered with a message)"
			return r, nil
		}
		raw = t
	} else {
		b, _ := json.Marshal(resp.Result)
		raw = b
	}
	r.Task, r.Problem = ParseTask(raw)
	return r, nil
}

// Describe renders a reply briefly for error messages.
func (r *Response) Describe() string {
	switch {
	case r == nil || r.X == nil:
		return "no reply"
	case r.X.Err != "":
		return "transport error: " + r.X.Err
	case r.Err != nil:
		return r.Err.Error()
	case r.Malformed != "":
		return "malformed reply: " + r.Malformed
	}
	return fmt.Sprintf("HTTP %d success", r.X.Status)
}
