package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// restSend serves POST /api/message:send: the reminders agent keeps a
// reminder waiting for input until a message says it is done.
func (s *server) restSend(caller string, _ url.Values, body []byte, _ string) (any, *apiErr) {
	var req struct {
		Message *struct {
			MessageID string            `json:"messageId"`
			Role      string            `json:"role"`
			Parts     []json.RawMessage `json:"parts"`
			ContextID string            `json:"contextId"`
			TaskID    string            `json:"taskId"`
		} `json:"message"`
		Configuration struct {
			HistoryLength *int `json:"historyLength"`
		} `json:"configuration"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, badField("message", "the request is not a SendMessageRequest: %v", err)
	}
	m := req.Message
	switch {
	case m == nil:
		return nil, badField("message", "required")
	case m.MessageID == "":
		return nil, badField("message.messageId", "required")
	case m.Role != "ROLE_USER":
		return nil, badField("message.role", "must be ROLE_USER, got %q", m.Role)
	case len(m.Parts) == 0:
		return nil, badField("message.parts", "at least one part is required")
	}
	hist := -1
	if h := req.Configuration.HistoryLength; h != nil {
		if *h < 0 {
			return nil, badField("configuration.historyLength", "must not be negative")
		}
		hist = *h
	}
	text := ""
	for _, p := range m.Parts {
		var tp struct{ Text string }
		json.Unmarshal(p, &tp)
		text += tp.Text
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	var t Task
	if m.TaskID != "" {
		old, e := s.find(caller, m.TaskID)
		if e != nil {
			return nil, e
		}
		if closed(old.State) {
			return nil, &apiErr{Status: 400, Code: "FAILED_PRECONDITION", RPC: -32004, Reason: "UNSUPPORTED_OPERATION", Message: "task " + old.ID() + " is " + old.State + " and takes no more messages"}
		}
		if m.ContextID != "" && m.ContextID != old.Context {
			return nil, badField("message.contextId", "the task is in context %q", old.Context)
		}
		t = *old
		t.History = append([]json.RawMessage(nil), old.History...)
	} else {
		s.store.last++
		t = Task{Num: s.store.last, Owner: caller, Context: m.ContextID}
		if t.Context == "" {
			t.Context = fmt.Sprintf("%s/reminders-%d", caller, t.Num)
		}
	}
	in, _ := json.Marshal(map[string]any{"messageId": m.MessageID, "role": "ROLE_USER", "parts": m.Parts, "contextId": t.Context, "taskId": t.ID()})
	t.History = append(t.History, in)
	reply := "When should I remind you? Say \"done\" when it is dealt with."
	t.State = "TASK_STATE_INPUT_REQUIRED"
	if strings.Contains(strings.ToLower(text), "done") {
		reply, t.State = "Marked as done.", "TASK_STATE_COMPLETED"
		t.Artifacts = append(append([]json.RawMessage(nil), t.Artifacts...), artifact(fmt.Sprintf("%s-a%d", t.ID(), len(t.Artifacts)), "done: "+text))
	}
	t.History = append(t.History, message(fmt.Sprintf("%s-m%d", t.ID(), len(t.History)), "ROLE_AGENT", t.Context, t.ID(), reply))
	t.Micros = s.store.now()
	if err := s.store.save(&t); err != nil {
		return nil, &apiErr{Status: 500, Code: "INTERNAL", RPC: -32603, Message: err.Error()}
	}
	return map[string]any{"task": wire(&t, hist, true)}, nil
}
