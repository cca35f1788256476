package reference

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// State is an A2A TaskState, stored as a small integer and rendered as its
// ProtoJSON enum name.
type State int

// The TaskState values of A2A 1.0, numbered as in the proto.
const (
	StateUnspecified State = iota
	StateSubmitted
	StateWorking
	StateCompleted
	StateFailed
	StateCanceled
	StateInputRequired
	StateRejected
	StateAuthRequired
)

var stateNames = [...]string{
	"TASK_STATE_UNSPECIFIED",
	"TASK_STATE_SUBMITTED",
	"TASK_STATE_WORKING",
	"TASK_STATE_COMPLETED",
	"TASK_STATE_FAILED",
	"TASK_STATE_CANCELED",
	"TASK_STATE_INPUT_REQUIRED",
	"TASK_STATE_REJECTED",
	"TASK_STATE_AUTH_REQUIRED",
}

// String returns the ProtoJSON name of s.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("TASK_STATE(%d)", int(s))
	}
	return stateNames[s]
}

// Terminal reports whether s is a terminal state (completed, failed,
// canceled or rejected).
func (s State) Terminal() bool {
	switch s {
	case StateCompleted, StateFailed, StateCanceled, StateRejected:
		return true
	}
	return false
}

// ParseState parses a TaskState given as its ProtoJSON name or as its
// number, as ProtoJSON parsers accept both.
func ParseState(v string) (State, bool) {
	for i, n := range stateNames {
		if v == n {
			return State(i), true
		}
	}
	if n, err := strconv.Atoi(v); err == nil && strconv.Itoa(n) == v && n >= 0 && n < len(stateNames) {
		return State(n), true
	}
	return 0, false
}

// StateNames lists the valid TaskState names, for error messages.
func StateNames() string { return strings.Join(stateNames[:], ", ") }

// Part is one A2A message or artifact part. Only text and data parts are
// produced by the reference agent.
type Part struct {
	Text      *string         `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
}

// TextPart returns a text Part.
func TextPart(s string) Part { return Part{Text: &s} }

// Message is an A2A Message in its ProtoJSON form.
type Message struct {
	MessageID string          `json:"messageId"`
	ContextID string          `json:"contextId,omitempty"`
	TaskID    string          `json:"taskId,omitempty"`
	Role      string          `json:"role"`
	Parts     []Part          `json:"parts"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// Artifact is an A2A Artifact in its ProtoJSON form.
type Artifact struct {
	ArtifactID string `json:"artifactId"`
	Name       string `json:"name,omitempty"`
	Parts      []Part `json:"parts"`
}

// TaskStatus is an A2A TaskStatus in its ProtoJSON form.
type TaskStatus struct {
	State     string   `json:"state"`
	Message   *Message `json:"message,omitempty"`
	Timestamp string   `json:"timestamp,omitempty"`
}

// Task is an A2A Task as it goes on the wire. History and Artifacts are
// pointers so that "omitted" and "empty array" stay distinct: LT-ART-1 needs
// the field absent, LT-ART-3 allows an empty array when asked for.
type Task struct {
	ID        string      `json:"id"`
	ContextID string      `json:"contextId"`
	Status    TaskStatus  `json:"status"`
	Artifacts *[]Artifact `json:"artifacts,omitempty"`
	History   *[]Message  `json:"history,omitempty"`
}

// ListTasksResponse is the ProtoJSON body of a ListTasks result. Every field
// is always written: nextPageToken is "" on the last page (LT-RESP-2,
// LT-RESP-3) and tasks is [] when nothing matches.
type ListTasksResponse struct {
	Tasks         []Task `json:"tasks"`
	NextPageToken string `json:"nextPageToken"`
	PageSize      int    `json:"pageSize"`
	TotalSize     int    `json:"totalSize"`
}

// FormatTimestamp renders microseconds since the Unix epoch as an RFC 3339
// UTC timestamp with exactly six fractional digits and a Z suffix.
func FormatTimestamp(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// ParseTimestamp parses an RFC 3339 timestamp into microseconds since the
// epoch. Sub-microsecond precision is rounded up, so that an inclusive
// ">=" comparison never admits a task older than the given instant.
func ParseTimestamp(s string) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, err
	}
	us := t.UnixMicro()
	if t.Nanosecond()%1000 != 0 {
		us++
	}
	return us, nil
}
