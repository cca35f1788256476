package scenarios

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/pagewalk/pagewalk/docs/controlapi"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// T0 is the instant the control variants freeze the server clock at; seeded
// timestamps count back from it.
var T0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// At returns T0 minus n seconds.
func At(n int) time.Time { return T0.Add(-time.Duration(n) * time.Second) }

// Fresh empties the store and freezes the server clock at T0, so the
// scenario starts from a known state. It needs the control API.
func (e *Env) Fresh() {
	c := e.Control()
	if c == nil {
		e.Abortf("Fresh called without a control API")
	}
	e.By("reset the store and freeze the server clock at %s", T0.Format(time.RFC3339))
	_, err := c.Reset(e.ctx, controlapi.ResetRequest{All: true})
	e.Check(err, "control reset")
	e.Check(c.SetClock(e.ctx, T0), "control clock")
}

// Owner returns principal i's name.
func (e *Env) Owner(i int) string {
	if i >= len(e.target.Principals) {
		e.Skip("needs principal #%d", i+1)
	}
	return e.target.Principals[i].Name
}

// Task describes a task to seed: Owner is a principal index and Key is
// turned into a run-unique id.
type Task struct {
	Key       string
	Owner     int
	TS        time.Time
	ContextID string
	State     string
	Tenant    string
	History   int
	Artifacts int
}

// Seed inserts tasks through the control API and returns the truth for
// principal 0 in the scenario's tenant (id -> timestamp), and the ids by
// key.
func (e *Env) Seed(tasks []Task) (Truth, map[string]string) {
	truth, ids := Truth{}, map[string]string{}
	var st []a2aclient.SeedTask
	for _, t := range tasks {
		id := e.ID(t.Key)
		ids[t.Key] = id
		state, ctx := t.State, t.ContextID
		if state == "" {
			state = "TASK_STATE_COMPLETED"
		}
		if ctx == "" {
			ctx = e.ID("ctx")
		}
		tenant := t.Tenant
		if tenant == "" {
			tenant = e.target.Tenant
		}
		st = append(st, a2aclient.SeedTask{ID: id, Owner: e.Owner(t.Owner), Tenant: tenant, ContextID: ctx, State: state,
			TimestampMicros: a2aclient.Ptr(t.TS.UnixMicro()), HistoryMessages: t.History, Artifacts: t.Artifacts})
		if t.Owner == 0 && tenant == e.target.Tenant {
			truth[id] = t.TS
		}
	}
	for i := 0; i < len(st); i += 20000 {
		e.Check(e.Control().Seed(e.ctx, st[i:min(i+20000, len(st))]), "control seed")
	}
	return truth, ids
}

// Series returns n tasks for owner with distinct timestamps one second
// apart, newest first, starting at At(start).
func Series(prefix string, owner, start, n int) []Task {
	out := make([]Task, n)
	for i := range out {
		out[i] = Task{Key: fmt.Sprintf("%s%03d", prefix, i), Owner: owner, TS: At(start + i)}
	}
	return out
}

// Create makes n tasks through SendMessage in context ctxID (black-box
// variants) and returns the truth (id -> timestamp from the reply).
func (e *Env) Create(c *a2aclient.Client, n int, ctxID string) Truth {
	truth := Truth{}
	for i := 0; i < n; i++ {
		r, err := c.SendMessage(e.ctx, e.ID(fmt.Sprintf("msg%03d", i)), e.target.BlackBoxText, ctxID, "")
		e.checkSend(err)
		if r.Err != nil || r.Problem != "" || r.Task.ID == "" {
			e.Skip("black-box variant: SendMessage did not create a task (%s %s)", r.Describe(), r.Problem)
		}
		truth[r.Task.ID] = r.Task.TS
	}
	return truth
}

// untied returns the part of truth whose timestamps are unique, so that
// checks of the MUST rules do not depend on a tie-break the spec leaves
// open.
func untied(t Truth) Truth {
	count := map[time.Time]int{}
	for _, ts := range t {
		count[ts]++
	}
	out := Truth{}
	for id, ts := range t {
		if count[ts] == 1 {
			out[id] = ts
		}
	}
	return out
}

// checkSend aborts on a failed SendMessage, but skips with the reason when
// the call timed out: a blocking SendMessage returns only once the task is
// terminal or interrupted, so an agent that keeps probe tasks WORKING never
// answers it. Black-box variants need an agent that settles them (see
// README, "Black-box variants").
func (e *Env) checkSend(err error) {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		e.Skip("black-box variant: a blocking SendMessage did not return (%v); the agent must settle probe tasks in an interrupted (e.g. INPUT_REQUIRED) or terminal state", err)
	}
	e.Check(err, "SendMessage")
}
