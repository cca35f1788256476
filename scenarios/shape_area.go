package scenarios

import (
	"encoding/json"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "shape": the Task object outside listings (SendMessage and GetTask
// replies; LT-WALK-SHAPE judges the tasks of ListTasks), and what the
// response's pageSize says.

// TaskObject is a task as one reply carried it.
type TaskObject struct {
	// Where names the reply, e.g. "GetTask".
	Where string
	Reply *a2aclient.Response
	// Raw is the task object (nil when the reply has none).
	Raw json.RawMessage
	// WantID, if set, is the id the request named.
	WantID string
}

var _ = Register(Scenario{
	ID: "LT-TASK-SHAPE", Area: "shape", Level: MUST, Checker: "CheckTaskShape",
	Title: "Tasks from SendMessage and GetTask carry id and status.state (a TaskState name); status.timestamp, when present, is UTC with Z",
	Reqs:  R("LT-TASK-1", "LT-TASK-2", "LT-TASK-3", "LT-RESP-7", "LT-JSON-2"),
	Quote: `Task: id REQUIRED, status REQUIRED; TaskStatus: state REQUIRED, timestamp "ISO 8601 Timestamp when the status was recorded" (§4.1.1, §4.1.2); REQUIRED fields "MUST be present and set in valid messages" (§5.7)`,
	Run: func(e *Env) {
		ctx := e.ID("ctx")
		e.By("create a task with SendMessage in context %s and read it back with GetTask", ctx)
		r, err := e.A().SendMessage(e.ctx, e.ID("shape-msg"), e.target.BlackBoxText, ctx, "")
		e.checkSend(err)
		raw, ok := json.RawMessage(nil), false
		if r.Err == nil && r.Result != nil {
			raw, ok = r.Result["task"]
		}
		if !ok {
			e.Skip("SendMessage did not answer with a task (%s %s); this case needs a task it creates itself", r.Describe(), r.Problem)
		}
		objs := []TaskObject{{Where: "SendMessage", Reply: r.Response, Raw: raw}}
		if r.Task.ID != "" {
			g, err := e.A().GetTask(e.ctx, r.Task.ID, a2aclient.Ptr(0))
			e.Check(err, "GetTask")
			if g.Err != nil {
				e.Skip("GetTask of the task SendMessage just created failed (%s); LT-HISTORY-GET and LT-SCOPE-GET use GetTask too", g.Describe())
			}
			body, _ := json.Marshal(g.Result)
			objs = append(objs, TaskObject{Where: "GetTask", Reply: g.Response, Raw: body, WantID: r.Task.ID})
		}
		e.Report(CheckTaskShape(objs)...)
	},
})

// CheckTaskShape judges tasks returned outside listings (LT-TASK-SHAPE): a
// missing id, status or status.state breaks the MUST that REQUIRED fields
// are present (Fail); a state that is not a TaskState name breaks the MUST
// that enums use their ProtoJSON names (Fail), and TASK_STATE_UNSPECIFIED
// is a name but no state a task can be in (Non-strict); a timestamp with an
// offset other than Z breaks §5.6.1's MUST (Fail).
func CheckTaskShape(objs []TaskObject) []Finding {
	var fs []Finding
	for _, o := range objs {
		if o.Reply == nil || o.Reply.X == nil {
			continue
		}
		w := o.Reply.X.Transcript()
		var f map[string]json.RawMessage
		if json.Unmarshal(o.Raw, &f) != nil || f == nil {
			fs = append(fs, Breach(R("LT-RESP-7", "LT-TASK-1"), "%s: the reply holds no Task object", o.Where).WithWitness(w))
			continue
		}
		var id string
		if json.Unmarshal(f["id"], &id) != nil || id == "" {
			fs = append(fs, Breach(R("LT-RESP-7", "LT-TASK-1"), "%s: the task has no id; Task.id is REQUIRED", o.Where).WithWitness(w))
		} else if o.WantID != "" && id != o.WantID {
			fs = append(fs, Breach(R("LT-TASK-1"), "%s for task %s returned task %s", o.Where, o.WantID, id).WithWitness(w))
		}
		var st map[string]json.RawMessage
		if json.Unmarshal(f["status"], &st) != nil || st == nil {
			fs = append(fs, Breach(R("LT-RESP-7", "LT-TASK-1", "LT-TASK-2"), "%s: task %s has no status object; Task.status is REQUIRED", o.Where, id).WithWitness(w))
			continue
		}
		var state string
		switch {
		case json.Unmarshal(st["state"], &state) != nil || state == "":
			fs = append(fs, Breach(R("LT-RESP-7", "LT-TASK-2"), "%s: task %s has no status.state (%s); it is REQUIRED", o.Where, id, rawText(st["state"])).WithWitness(w))
		case state == "TASK_STATE_UNSPECIFIED":
			fs = append(fs, Breach(R("LT-TASK-3", "LT-TASK-2"), "%s: task %s is in TASK_STATE_UNSPECIFIED (\"unknown or indeterminate\"), which names no lifecycle state", o.Where, id).WithWitness(w))
		case !taskStates[state]:
			fs = append(fs, Breach(R("LT-JSON-1", "LT-TASK-3"), "%s: task %s has status.state %q, not a TaskState name (enums \"MUST be represented according to the ProtoJSON specification\")", o.Where, id, state).WithWitness(w))
		}
		if v, ok := st["timestamp"]; ok {
			var ts string
			if json.Unmarshal(v, &ts) != nil || !rfc3339UTC.MatchString(ts) {
				fs = append(fs, Breach(R("LT-JSON-2", "LT-TASK-2"), "%s: task %s has status.timestamp %s; timestamps MUST be ISO 8601 in UTC with no offset other than Z", o.Where, id, rawText(v)).WithWitness(w))
			}
		}
		for _, m := range []string{"artifacts", "history"} {
			if v, ok := f[m]; ok {
				var arr []json.RawMessage
				if json.Unmarshal(v, &arr) != nil {
					fs = append(fs, Breach(R("LT-TASK-1"), "%s: task %s has %s %s, not an array", o.Where, id, m, rawText(v)).WithWitness(w))
				}
			}
		}
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-PAGESIZE-ECHO", Area: "shape", Level: Hardened, Checker: "CheckPageSizeEcho",
	Title: "The response's pageSize is the page size used (the request's), not the number of tasks served",
	Reqs:  R("LT-SEED-5", "LT-RESP-5"),
	Quote: `Seed: "the response echoes the effective pageSize"; proto: pageSize "The page size used for this response." (its meaning is disputed: the TCK asserts the count served, A4)`,
	Run: func(e *Env) {
		ctx := e.ID("nothing-here")
		const size = 7
		e.By("ListTasks with pageSize %d for a context nobody used (%s)", size, ctx)
		p, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(size), HistoryLength: a2aclient.Ptr(0)})
		e.Check(err, "ListTasks")
		switch {
		case p.Err != nil || p.Malformed != "":
			e.Skip("the listing failed (%s); LT-WALK-EMPTY judges it", p.Describe())
		case p.PageSize == nil:
			e.Skip("the reply has no integer pageSize; LT-WALK-SHAPE judges that")
		case len(p.Tasks) == size:
			e.Skip("the listing held %d tasks, as many as requested, so the echo cannot be told from the count", size)
		}
		e.Report(CheckPageSizeEcho(p, size)...)
	},
})

// CheckPageSizeEcho judges the response's pageSize on a page that holds
// fewer tasks than requested (LT-PAGESIZE-ECHO): the seed echoes the
// effective page size; anything else is Hardened (its meaning is disputed,
// A4, which never raises a class).
func CheckPageSizeEcho(p *a2aclient.Page, requested int) []Finding {
	if p == nil || p.PageSize == nil || p.X == nil {
		return nil
	}
	if got := *p.PageSize; got != requested {
		what := ""
		if got == len(p.Tasks) {
			what = " (the number of tasks served)"
		}
		return []Finding{Breach(R("LT-SEED-5", "LT-RESP-5"), "pageSize %d was requested and the response says pageSize %d%s; the seed's practice echoes the effective page size", requested, got, what).
			Ambiguous("A4").WithWitness(p.X.Transcript())}
	}
	return nil
}
