package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// tasksPerContext is how many preseeded tasks share one contextId.
const tasksPerContext = 10

// seed creates n tasks for each principal through the SDK's own request
// handler, as a client call would (the Authorization header goes through
// the same interceptor), so that a black-box walk of a principal's
// existing tasks has data. It touches no SDK internals.
//
// Task i of a principal is in context "seed-<name>-<i/10>" and ends:
//   - i%10 == 3: CANCELED (asked for input, then canceled);
//   - i%10 == 7: COMPLETED after a follow-up (a longer history);
//   - i%5 == 1:  INPUT_REQUIRED;
//   - otherwise: COMPLETED with an artifact.
//
// Principals take turns, so their tasks' timestamps interleave. The
// cancellations come in a second pass, after every task was created.
func seed(ctx context.Context, h a2asrv.RequestHandler, tokens map[string]string, n int) error {
	order := make([]string, 0, len(tokens))
	for tok := range tokens {
		order = append(order, tok)
	}
	slices.Sort(order)
	type pending struct {
		ctx  context.Context
		name string
		id   a2a.TaskID
	}
	var cancels []pending
	for i := range n {
		for _, tok := range order {
			ctx := callerContext(ctx, tok)
			task, err := seedOne(ctx, h, tokens[tok], i)
			if err != nil {
				return fmt.Errorf("task %d of %s: %w", i, tokens[tok], err)
			}
			if i%10 == 3 {
				cancels = append(cancels, pending{ctx, tokens[tok], task.ID})
			}
		}
	}
	for _, c := range cancels {
		if err := cancelSettled(c.ctx, h, c.id); err != nil {
			return fmt.Errorf("cancel task %s of %s: %w", c.id, c.name, err)
		}
	}
	return nil
}

// callerContext is ctx as the SDK's transports build it for a request
// that carries the bearer token tok.
func callerContext(ctx context.Context, tok string) context.Context {
	ctx, _ = a2asrv.NewCallContext(ctx, a2asrv.NewServiceParams(map[string][]string{"Authorization": {"Bearer " + tok}}))
	return ctx
}

// seedOne creates task i for the principal name, as the caller in ctx.
func seedOne(ctx context.Context, h a2asrv.RequestHandler, name string, i int) (*a2a.Task, error) {
	contextID := fmt.Sprintf("seed-%s-%d", name, i/tasksPerContext)
	text := fmt.Sprintf("seed task %d", i)
	if i%5 == 1 || i%10 == 3 || i%10 == 7 {
		text += ": wait for input"
	}
	task, err := send(ctx, h, contextID, "", text)
	if err != nil || i%10 != 7 {
		return task, err
	}
	// SendMessage waits for the previous execution of the task to end
	// before it starts the next, so a follow-up right away is safe.
	return send(ctx, h, contextID, task.ID, "here is what you asked for")
}

// cancelSettled cancels an INPUT_REQUIRED task. a2a-go v2.3.1's CancelTask,
// unlike SendMessage, does not wait for an execution that has settled but
// is still being torn down: it sends the cancellation into that execution,
// which has already resolved to INPUT_REQUIRED, and answers
// ErrTaskNotCancelable (see the TODO in internal/taskexec/local_manager.go,
// handleCancelWithConcurrentRun). So a refusal while the task is still
// INPUT_REQUIRED is retried, a bounded number of times.
func cancelSettled(ctx context.Context, h a2asrv.RequestHandler, id a2a.TaskID) error {
	const attempts = 200
	var err error
	for range attempts {
		if _, err = h.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
			return err
		}
		task, gerr := h.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if gerr != nil || task.Status.State != a2a.TaskStateInputRequired {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("still refused after %d attempts: %w", attempts, err)
}

// send sends one blocking message and returns the task it created or
// continued.
func send(ctx context.Context, h a2asrv.RequestHandler, contextID string, taskID a2a.TaskID, text string) (*a2a.Task, error) {
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	msg.ContextID = contextID
	msg.TaskID = taskID
	res, err := h.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
	if err != nil {
		return nil, err
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		return nil, fmt.Errorf("SendMessage returned %T, want a task", res)
	}
	return task, nil
}
