package main

import (
	"encoding/json"
	"strings"
)

var terminal = map[string]bool{"TASK_STATE_COMPLETED": true, "TASK_STATE_FAILED": true, "TASK_STATE_CANCELED": true, "TASK_STATE_REJECTED": true}

// render builds the wire form of r.
func render(r *record, history int, artifacts bool) map[string]any {
	t := map[string]any{"id": r.ID, "contextId": r.Context,
		"status": map[string]any{"state": r.State, "timestamp": formatStamp(r.Stamp)}}
	h := r.History
	if history >= 0 && len(h) > history {
		h = h[len(h)-history:]
	}
	if len(h) > 0 {
		t["history"] = h
	}
	if artifacts && len(r.Artifacts) > 0 {
		t["artifacts"] = r.Artifacts
	}
	return t
}

func (a *app) listTasks(who string, in args) (any, *failure) {
	l, f := parseListing(in)
	if f != nil {
		return nil, f
	}
	a.db.mu.Lock()
	defer a.db.mu.Unlock()
	ix := a.db.index[who]
	offset := 0
	if l.token != "" {
		var f *failure
		if offset, f = a.signer.open(l.token, who, l.binding); f != nil {
			return nil, f
		}
	}
	match := func(r *record) bool {
		return (l.context == "" || r.Context == l.context) && (l.state == "" || r.State == l.state) &&
			(l.since.IsZero() || !r.Stamp.Before(l.since))
	}
	tasks, total := []any{}, 0
	more := false
	for _, r := range ix {
		if !match(r) {
			continue
		}
		total++
		if total <= offset {
			continue
		}
		if len(tasks) == l.size {
			more = true
			continue
		}
		tasks = append(tasks, render(r, l.history, l.artifacts))
	}
	next := ""
	if more {
		next = a.signer.sign(who, l.binding, offset+len(tasks))
	}
	return map[string]any{"tasks": tasks, "nextPageToken": next, "pageSize": l.size, "totalSize": total}, nil
}

func (a *app) getTask(who string, in args) (any, *failure) {
	id, _, f := in.text("id")
	if f != nil || id == "" {
		return nil, badParam("id", "id: the task id is required")
	}
	h, f := historyLength(in)
	if f != nil {
		return nil, f
	}
	a.db.mu.Lock()
	defer a.db.mu.Unlock()
	r := a.db.find(who, id)
	if r == nil {
		return nil, notFound(id)
	}
	return render(r, h, true), nil
}

func (a *app) cancelTask(who string, in args) (any, *failure) {
	id, _, f := in.text("id")
	if f != nil || id == "" {
		return nil, badParam("id", "id: the task id is required")
	}
	a.db.mu.Lock()
	defer a.db.mu.Unlock()
	r := a.db.find(who, id)
	if r == nil {
		return nil, notFound(id)
	}
	if terminal[r.State] {
		return nil, &failure{http: 400, rpc: -32002, grpc: "FAILED_PRECONDITION", reason: "TASK_NOT_CANCELABLE", msg: "task " + id + " already ended: " + r.State}
	}
	a.db.update(r, func() { r.State, r.Stamp = "TASK_STATE_CANCELED", a.clock.now() })
	return render(r, -1, true), nil
}

// sendMessage runs the approvals desk: a request waits for input until a
// message says "approve" (completed, with a receipt) or "reject".
func (a *app) sendMessage(who string, in args) (any, *failure) {
	msg, ok := in["message"].(map[string]any)
	if !ok {
		return nil, badParam("message", "message: required, an object")
	}
	id, _ := msg["messageId"].(string)
	parts, _ := msg["parts"].([]any)
	role, _ := msg["role"].(string)
	switch {
	case id == "":
		return nil, badParam("message.messageId", "message.messageId: required")
	case role != "ROLE_USER":
		return nil, badParam("message.role", "message.role: must be ROLE_USER")
	case len(parts) == 0:
		return nil, badParam("message.parts", "message.parts: at least one part is required")
	}
	history := -1
	if cfg, ok := in["configuration"].(map[string]any); ok {
		h, f := historyLength(args(cfg))
		if f != nil {
			f.field = "configuration.historyLength"
			return nil, f
		}
		history = h
	}
	var text strings.Builder
	for _, p := range parts {
		if pm, ok := p.(map[string]any); ok {
			s, _ := pm["text"].(string)
			text.WriteString(s)
		}
	}
	ctx, _ := msg["contextId"].(string)
	taskID, _ := msg["taskId"].(string)
	a.db.mu.Lock()
	defer a.db.mu.Unlock()
	var r *record
	if taskID != "" {
		if r = a.db.find(who, taskID); r == nil {
			return nil, notFound(taskID)
		}
		if terminal[r.State] {
			return nil, &failure{http: 400, rpc: -32004, grpc: "FAILED_PRECONDITION", reason: "UNSUPPORTED_OPERATION", msg: "task " + taskID + " has ended and takes no more messages"}
		}
		if ctx != "" && ctx != r.Context {
			return nil, badParam("message.contextId", "message.contextId: the task belongs to context %s", r.Context)
		}
	} else {
		r = &record{ID: a.db.newID("tsk_"), Owner: who, Context: ctx}
		if r.Context == "" {
			r.Context = a.db.newID("ctx_")
		}
	}
	a.db.update(r, func() { a.answer(r, msg, id, text.String()) })
	return map[string]any{"task": render(r, history, true)}, nil
}

// answer appends the message and the agent's reply to r and settles it.
func (a *app) answer(r *record, msg map[string]any, id, text string) {
	stored := map[string]any{}
	for k, v := range msg {
		stored[k] = v
	}
	stored["taskId"], stored["contextId"] = r.ID, r.Context
	r.History = append(r.History, stored)
	lower := strings.ToLower(text)
	var answer string
	switch {
	case strings.Contains(lower, "approve"):
		r.State, answer = "TASK_STATE_COMPLETED", "Approved. Receipt attached."
		r.Artifacts = append(r.Artifacts, artifact(a.db.newID("receipt_"), "approved: "+id))
	case strings.Contains(lower, "reject"):
		r.State, answer = "TASK_STATE_REJECTED", "Rejected."
	default:
		r.State, answer = "TASK_STATE_INPUT_REQUIRED", "Waiting for approval. Reply \"approve\" or \"reject\"."
	}
	r.History = append(r.History, message(a.db.newID("msg_"), "ROLE_AGENT", r.Context, r.ID, answer))
	r.Stamp = a.clock.now()
}

// decodeArgs decodes a JSON object keeping numbers exact.
func decodeArgs(b []byte) (args, error) {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return args(m), nil
}
