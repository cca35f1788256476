package reference

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/uuid"
)

// sendMessage is the trivial agent behind SendMessage. The words of the
// user's text parts decide the outcome:
//
//	"fail"             -> TASK_STATE_FAILED
//	"input"            -> TASK_STATE_INPUT_REQUIRED
//	"work"             -> TASK_STATE_WORKING
//	anything else      -> TASK_STATE_COMPLETED, with an "echo" artifact
//
// A message with a taskId continues that (non-terminal) task; otherwise a
// new task is created. Either way the user's message and the agent's reply
// are appended to the history, and the task's status timestamp is the
// server clock's now.
func (s *Server) sendMessage(ctx context.Context, rc *reqInfo, src paramSource, raw jsonParams) (any, *Error) {
	tenant, _, e := src.str("tenant")
	if e != nil {
		return nil, e
	}
	msgRaw, ok := raw.get("message")
	if !ok {
		if msgRaw, ok = s.seams.edge.absent("message"); !ok {
			return nil, invalidParam("message", "is required")
		}
	}
	if !validJSONText(msgRaw) {
		return nil, invalidUTF8("message")
	}
	var m struct {
		MessageID string          `json:"messageId"`
		ContextID string          `json:"contextId"`
		TaskID    string          `json:"taskId"`
		Role      string          `json:"role"`
		Parts     []Part          `json:"parts"`
		Metadata  json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(msgRaw, &m); err != nil {
		return nil, invalidParam("message", "must be a Message object: %v", err)
	}
	switch {
	case m.MessageID == "":
		return nil, invalidParam("message.messageId", "is required")
	case m.Role != "ROLE_USER":
		return nil, invalidParam("message.role", "must be ROLE_USER, got %q", m.Role)
	case len(m.Parts) == 0:
		return nil, invalidParam("message.parts", "must hold at least one part")
	}
	var cfg jsonParams
	if c, ok := raw.get("configuration"); ok {
		if cfg, e = parseJSONParams(c); e != nil {
			e.Field, e.Message = "configuration", "configuration: must be a JSON object"
			return nil, e
		}
	} else {
		cfg = jsonParams{}
	}
	hl, hset, e := parseHistoryAs(cfg, s.seams.params, "configuration.historyLength")
	if e != nil {
		return nil, e
	}

	var text strings.Builder
	for _, p := range m.Parts {
		if p.Text != nil {
			text.WriteString(strings.ToLower(*p.Text))
			text.WriteByte(' ')
		}
	}
	state, reply := StateCompleted, "done"
	var arts []Artifact
	switch t := text.String(); {
	case strings.Contains(t, "fail"):
		state, reply = StateFailed, "failed as asked"
	case strings.Contains(t, "input"):
		state, reply = StateInputRequired, "more input, please"
	case strings.Contains(t, "work"):
		state, reply = StateWorking, "working on it"
	default:
		arts = []Artifact{{ArtifactID: uuid.NewString(), Name: "echo", Parts: m.Parts}}
	}
	now := s.now()
	msgs := []NewMessage{
		{MessageID: m.MessageID, Role: "ROLE_USER", Parts: m.Parts},
		{MessageID: uuid.NewString(), Role: "ROLE_AGENT", Parts: []Part{TextPart(reply)}},
	}
	var id string
	if m.TaskID != "" {
		r, err := s.store.Get(ctx, rc.principal, tenant, m.TaskID)
		if err != nil {
			return nil, asError(err)
		}
		if r.State.Terminal() {
			return nil, &Error{Kind: KindUnsupportedOperation, Field: "message.taskId",
				Message: "message.taskId: task " + m.TaskID + " is " + r.State.String() + "; a terminal task takes no more messages"}
		}
		if m.ContextID != "" && m.ContextID != r.ContextID {
			return nil, invalidParam("message.contextId", "task %s belongs to context %s, not %s", m.TaskID, r.ContextID, m.ContextID)
		}
		if err := s.store.Update(ctx, r.ID, state, now, msgs, arts); err != nil {
			return nil, asError(err)
		}
		id = r.ID
	} else {
		ctxID := m.ContextID
		if ctxID == "" {
			ctxID = uuid.NewString()
		}
		v7, err := uuid.NewV7()
		if err != nil {
			return nil, asError(err)
		}
		id = v7.String()
		if err := s.store.Create(ctx, taskRow{ID: id, Owner: rc.principal, Tenant: tenant, ContextID: ctxID, State: state, TS: now}, msgs, arts); err != nil {
			return nil, asError(err)
		}
	}
	t, err := s.getTask(ctx, rc, GetParams{Tenant: tenant, ID: id, HistoryLength: hl, HistorySet: hset})
	if err != nil {
		return nil, err
	}
	return map[string]any{"task": t}, nil
}
