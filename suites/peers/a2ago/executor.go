package main

import (
	"context"
	"iter"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// executor settles every task it is given, so that a blocking SendMessage
// returns (a2a-go answers one only on a terminal or interrupted state):
//   - a new task is emitted as SUBMITTED, then WORKING with an agent
//     message (which the SDK moves into history on the next status);
//   - if the user's text contains "input", the task stops in
//     INPUT_REQUIRED, and a follow-up message settles it again;
//   - otherwise it gets a text artifact and ends COMPLETED.
//
// Cancel ends the task CANCELED.
type executor struct{}

var _ a2asrv.AgentExecutor = executor{}

// Execute implements a2asrv.AgentExecutor.
func (executor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		}
		text := messageText(ec.Message)
		working := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("working on it"))
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, working), nil) {
			return
		}
		if strings.Contains(strings.ToLower(text), "input") {
			ask := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("please send the input"))
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, ask), nil)
			return
		}
		if !yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart("result for: "+text)), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

// Cancel implements a2asrv.AgentExecutor.
func (executor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// messageText joins the text parts of m.
func messageText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text())
	}
	return b.String()
}
