package scenarios

import (
	"context"
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

// Fresh starts a control variant on data of its own: everything it seeds
// has ids (and contexts) that start with this case's run id, its walks
// filter by its own contexts, and when it ends it deletes exactly that data
// with a scoped reset. It never resets the store or touches data pagewalk
// did not create. It needs the control API.
func (e *Env) Fresh() {
	c := e.Control()
	if c == nil {
		e.Abortf("Fresh called without a control API")
	}
	e.By("this case's data: ids and contexts starting %s; nothing else on the server is touched", e.runID)
	e.cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.Reset(ctx, controlapi.ResetRequest{IDPrefix: e.runID + "-"}); err != nil {
			e.By("could not delete this case's data (ids %s-*): %v", e.runID, err)
		}
	})
}

// Context returns a context id of this case's own, for key.
func (e *Env) Context(key string) string { return e.ID("ctx-" + key) }

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
			ctx = e.Context("main")
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

// CreateSeries makes n tasks through SendMessage in context ctxID, one
// after another (black-box variants), and returns the truth (id ->
// timestamp from the reply). On a server with coarse timestamps it spaces
// them by the precision, within the --max-wait budget, so that their
// timestamps differ.
func (e *Env) CreateSeries(c *a2aclient.Client, n int, ctxID string) Truth {
	truth := Truth{}
	var last time.Time
	for i := 0; i < n; i++ {
		if i > 0 {
			e.spaceFrom(last)
		}
		r, err := c.SendMessage(e.ctx, e.ID(fmt.Sprintf("msg%03d", e.nextMsg())), e.target.BlackBoxText, ctxID, "")
		e.checkSend(err)
		if r.Err != nil || r.Problem != "" || r.Task.ID == "" {
			e.Skip("black-box variant: SendMessage did not create a task (%s %s)", r.Describe(), r.Problem)
		}
		truth[r.Task.ID] = r.Task.TS
		last = r.Task.TS
	}
	return truth
}

// nextMsg numbers the messages a case sends, so every message id is new.
func (e *Env) nextMsg() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.msgSeq++
	return e.msgSeq
}

// precision is the server's timestamp precision as far as pagewalk has
// seen it (probe set, observed tasks, else the timestamps given).
func (e *Env) precision(ts ...time.Time) time.Duration {
	d := e.target.data
	d.mu.Lock()
	p := d.probe
	o := d.observed[0]
	d.mu.Unlock()
	switch {
	case p != nil && p.Precision > 0:
		return p.Precision
	case o != nil && o.Precision > 0:
		return o.Precision
	}
	return precisionOf(ts)
}

// spaceFrom waits, on a server with coarse timestamps, until a write made
// now gets a timestamp later than last (one precision unit), within the
// --max-wait budget. On a fine-grained server it does not wait.
func (e *Env) spaceFrom(last time.Time) {
	if p := e.precision(last); p >= 10*time.Millisecond {
		e.WaitReal(p)
	}
}

// spaceAfter is spaceFrom the newest timestamp of truth: the next write is
// then strictly the newest task, not tied with the others.
func (e *Env) spaceAfter(truth Truth) {
	var newest time.Time
	var all []time.Time
	for _, ts := range truth {
		all = append(all, ts)
		if ts.After(newest) {
			newest = ts
		}
	}
	if p := e.precision(all...); p >= 10*time.Millisecond {
		e.WaitReal(p)
	}
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
