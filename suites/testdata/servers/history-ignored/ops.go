package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// listResponse is a ListTasksResponse.
type listResponse struct {
	Tasks         []Task `json:"tasks"`
	NextPageToken string `json:"nextPageToken"`
	PageSize      int    `json:"pageSize"`
	TotalSize     int    `json:"totalSize"`
}

func (s *server) listTasks(who string, src source) (any, *apiError) {
	q, tok, key, err := parseList(src)
	if err != nil {
		return nil, err
	}
	if tok != "" {
		if q.cursor, err = s.tokens.open(tok, who, key); err != nil {
			return nil, err
		}
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	page, more, total := s.store.list(who, q)
	resp := listResponse{Tasks: make([]Task, 0, len(page)), PageSize: q.pageSize, TotalSize: total}
	for _, t := range page {
		resp.Tasks = append(resp.Tasks, t.view(q.history, q.artifacts))
	}
	if more {
		last := page[len(page)-1]
		resp.NextPageToken = s.tokens.issue(who, key, cursor{TS: last.ts, ID: last.id})
	}
	return resp, nil
}

func (s *server) getTask(who, id string, src source) (any, *apiError) {
	h, err := historyParam(src)
	if err != nil {
		return nil, err
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	t := s.store.get(who, id)
	if t == nil {
		return nil, errTaskNotFound(id)
	}
	return t.view(h, true), nil
}

func (s *server) cancelTask(who, id string) (any, *apiError) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	t := s.store.get(who, id)
	if t == nil {
		return nil, errTaskNotFound(id)
	}
	if terminal(t.state) {
		return nil, errNotCancelable(id, t.state)
	}
	t.state, t.ts = "TASK_STATE_CANCELED", s.clock.now()
	return t.view(-1, true), nil
}

// sendMessage runs the note-taking agent: every message is noted and the
// task waits for more input, until a message says "finish", which
// completes it with the notes as an artifact.
func (s *server) sendMessage(who string, params jsonSource) (any, *apiError) {
	raw, ok := params.get("message")
	if !ok {
		return nil, invalid("message", "message is required")
	}
	var m Message
	if json.Unmarshal(raw, &m) != nil {
		return nil, invalid("message", "message must be a Message object")
	}
	switch {
	case m.MessageID == "":
		return nil, invalid("message.messageId", "message.messageId is required")
	case m.Role != "ROLE_USER":
		return nil, invalid("message.role", "message.role must be ROLE_USER, got %q", m.Role)
	case len(m.Parts) == 0:
		return nil, invalid("message.parts", "message.parts must hold at least one part")
	}
	h := -1
	if c, ok := params.get("configuration"); ok {
		var cfg jsonSource
		if json.Unmarshal(c, &cfg) != nil {
			return nil, invalid("configuration", "configuration must be an object")
		}
		n, err := historyParam(cfg)
		if err != nil {
			err.field = "configuration.historyLength"
			return nil, err
		}
		h = n
	}
	text := ""
	for _, p := range m.Parts {
		var tp struct{ Text string }
		json.Unmarshal(p, &tp)
		text += tp.Text
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	var t *task
	if m.TaskID != "" {
		if t = s.store.get(who, m.TaskID); t == nil {
			return nil, errTaskNotFound(m.TaskID)
		}
		if terminal(t.state) {
			return nil, errUnsupported("task %q is %s and accepts no more messages", t.id, t.state)
		}
		if m.ContextID != "" && m.ContextID != t.contextID {
			return nil, invalid("message.contextId", "message.contextId %q is not the task's context %q", m.ContextID, t.contextID)
		}
	} else {
		t = &task{id: s.store.newID(), owner: who, contextID: m.ContextID}
		if t.contextID == "" {
			t.contextID = s.store.newID()
		}
		s.store.add(t)
	}
	m.TaskID, m.ContextID = t.id, t.contextID
	t.history = append(t.history, m)
	reply := Message{MessageID: s.store.newID(), Role: "ROLE_AGENT", TaskID: t.id, ContextID: t.contextID}
	if strings.Contains(strings.ToLower(text), "finish") {
		reply.Parts = []json.RawMessage{textPart("Done. Your notes are attached.")}
		var notes bytes.Buffer
		for _, hm := range t.history {
			if hm.Role == "ROLE_USER" {
				fmt.Fprintf(&notes, "- %s\n", hm.MessageID)
			}
		}
		t.artifacts = append(t.artifacts, Artifact{ArtifactID: s.store.newID(), Name: "notes.md", Parts: []json.RawMessage{textPart(notes.String())}})
		t.state = "TASK_STATE_COMPLETED"
	} else {
		reply.Parts = []json.RawMessage{textPart("Noted. Anything else? Say \"finish\" when done.")}
		t.state = "TASK_STATE_INPUT_REQUIRED"
	}
	t.history = append(t.history, reply)
	t.ts = s.clock.now()
	return map[string]any{"task": t.view(h, true)}, nil
}
