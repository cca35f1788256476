package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

func ended(state string) bool {
	return state == "TASK_STATE_COMPLETED" || state == "TASK_STATE_FAILED" || state == "TASK_STATE_CANCELED" || state == "TASK_STATE_REJECTED"
}

func (s *service) getTask(who, id string, history int) (any, *rpcError) {
	s.repo.mu.Lock()
	defer s.repo.mu.Unlock()
	t := s.repo.mine(who, id)
	if t == nil {
		return nil, taskNotFound(id)
	}
	return t.wire(history, true), nil
}

func (s *service) cancelTask(who, id string) (any, *rpcError) {
	s.repo.mu.Lock()
	defer s.repo.mu.Unlock()
	t := s.repo.mine(who, id)
	if t == nil {
		return nil, taskNotFound(id)
	}
	if ended(t.state) {
		return nil, a2aError(-32002, "TASK_NOT_CANCELABLE", fmt.Sprintf("Task %s cannot be canceled: it is %s", id, t.state))
	}
	t.state, t.at = "TASK_STATE_CANCELED", s.clock.now()
	return t.wire(-1, true), nil
}

// sendRequest is SendMessageRequest.
type sendRequest struct {
	Message *struct {
		MessageID string            `json:"messageId"`
		Role      string            `json:"role"`
		Parts     []json.RawMessage `json:"parts"`
		ContextID string            `json:"contextId"`
		TaskID    string            `json:"taskId"`
		Metadata  json.RawMessage   `json:"metadata"`
	} `json:"message"`
	Configuration *struct {
		HistoryLength json.RawMessage `json:"historyLength"`
	} `json:"configuration"`
}

// sendMessage runs the help desk: a ticket stays open (input required)
// until a message says it is resolved.
func (s *service) sendMessage(who string, req sendRequest) (any, *rpcError) {
	m := req.Message
	switch {
	case m == nil:
		return nil, invalidParams("message", "message is required")
	case m.MessageID == "":
		return nil, invalidParams("message.messageId", "message.messageId is required")
	case m.Role != "ROLE_USER":
		return nil, invalidParams("message.role", "message.role must be ROLE_USER")
	case len(m.Parts) == 0:
		return nil, invalidParams("message.parts", "message.parts must not be empty")
	}
	history := -1
	if req.Configuration != nil {
		h, e := optionalCount("historyLength", req.Configuration.HistoryLength)
		if e != nil {
			return nil, invalidParams("configuration.historyLength", e.Message)
		}
		history = h
	}
	var text strings.Builder
	for _, p := range m.Parts {
		var tp struct {
			Text string `json:"text"`
		}
		json.Unmarshal(p, &tp)
		text.WriteString(tp.Text)
	}
	s.repo.mu.Lock()
	defer s.repo.mu.Unlock()
	var t *ticket
	if m.TaskID != "" {
		if t = s.repo.mine(who, m.TaskID); t == nil {
			return nil, taskNotFound(m.TaskID)
		}
		if ended(t.state) {
			return nil, a2aError(-32004, "UNSUPPORTED_OPERATION", "Task "+t.id+" is closed ("+t.state+")")
		}
		if m.ContextID != "" && m.ContextID != t.context {
			return nil, invalidParams("message.contextId", "message.contextId does not match the task's context")
		}
	} else {
		t = &ticket{owner: who, context: m.ContextID}
		if t.context == "" {
			t.context = fmt.Sprintf("desk-%x", s.repo.rng.Uint64())
		}
		s.repo.add(t)
	}
	in := map[string]any{"messageId": m.MessageID, "role": "ROLE_USER", "parts": m.Parts, "contextId": t.context, "taskId": t.id}
	if len(m.Metadata) > 0 {
		in["metadata"] = m.Metadata
	}
	t.history = append(t.history, in)
	answer := "Ticket noted; we will need more information. Say \"resolved\" to close it."
	t.state = "TASK_STATE_INPUT_REQUIRED"
	if strings.Contains(strings.ToLower(text.String()), "resolved") {
		answer, t.state = "Closing the ticket.", "TASK_STATE_COMPLETED"
		t.artifacts = append(t.artifacts, map[string]any{"artifactId": fmt.Sprintf("%s.resolution.%d", t.id, len(t.artifacts)), "name": "resolution",
			"parts": []any{map[string]any{"text": "resolved: " + text.String()}}})
	}
	t.history = append(t.history, msg(fmt.Sprintf("%s.%d", t.id, len(t.history)), "ROLE_AGENT", t.context, t.id, answer))
	t.at = s.clock.now()
	return map[string]any{"task": t.wire(history, true)}, nil
}
