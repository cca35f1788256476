package main

import (
	"encoding/json"
	"time"
)

// The A2A 1.0 task states, by ProtoJSON name and enum number.
var states = []string{"TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED",
	"TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"}

func terminal(state string) bool {
	switch state {
	case "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED":
		return true
	}
	return false
}

// Message is an A2A message; parts are kept as sent.
type Message struct {
	MessageID string            `json:"messageId"`
	Role      string            `json:"role"`
	Parts     []json.RawMessage `json:"parts"`
	ContextID string            `json:"contextId,omitempty"`
	TaskID    string            `json:"taskId,omitempty"`
}

// Artifact is an A2A artifact.
type Artifact struct {
	ArtifactID string            `json:"artifactId"`
	Name       string            `json:"name,omitempty"`
	Parts      []json.RawMessage `json:"parts"`
}

// TaskStatus is the status of a task on the wire.
type TaskStatus struct {
	State     string `json:"state"`
	Timestamp string `json:"timestamp"`
}

// Task is a task on the wire.
type Task struct {
	ID        string     `json:"id"`
	ContextID string     `json:"contextId"`
	Status    TaskStatus `json:"status"`
	Artifacts []Artifact `json:"artifacts,omitempty"`
	History   []Message  `json:"history,omitempty"`
}

// task is a stored task.
type task struct {
	id, owner, contextID string
	state                string
	ts                   time.Time
	history              []Message
	artifacts            []Artifact
}

// view renders t. historyLength < 0 means unset (all history); artifacts
// are included only when asked.
func (t *task) view(historyLength int, artifacts bool) Task {
	v := Task{ID: t.id, ContextID: t.contextID, Status: TaskStatus{State: t.state, Timestamp: stamp(t.ts)}}
	h := t.history
	if historyLength >= 0 && len(h) > historyLength {
		h = h[len(h)-historyLength:]
	}
	if len(h) > 0 {
		v.History = append([]Message(nil), h...)
	}
	if artifacts && len(t.artifacts) > 0 {
		v.Artifacts = append([]Artifact(nil), t.artifacts...)
	}
	return v
}

func textPart(s string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"text": s})
	return b
}
