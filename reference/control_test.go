package reference

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestControlSeedValidation(t *testing.T) {
	ts := newTestServer(t)
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{}`, "tasks"},
		{`{"tasks":[{"owner":"alice","state":"TASK_STATE_WORKING"}]}`, "tasks[0].id"},
		{`{"tasks":[{"id":"a","owner":"mallory","state":"TASK_STATE_WORKING"}]}`, "tasks[0].owner"},
		{`{"tasks":[{"id":"a","owner":"alice","state":"DONE"}]}`, "tasks[0].state"},
		{`{"tasks":[{"id":"a","owner":"alice","state":"TASK_STATE_WORKING","historyMessages":-1}]}`, "tasks[0].historyMessages"},
		{`{"tasks":[{"id":"a","owner":"alice","state":"TASK_STATE_WORKING","timestamp":"soon"}]}`, "tasks[0].timestamp"},
		{`{"tasks":[{"id":"a","owner":"alice","state":"TASK_STATE_WORKING"},{"id":"a","owner":"alice","state":"TASK_STATE_WORKING"}]}`, "tasks[1].id"},
		{`{"generate":{"count":0,"owner":"alice"}}`, "generate.count"},
		{`{"generate":{"count":2000000,"owner":"alice"}}`, "tasks"},
		{`{"generate":{"count":2,"owner":"alice","states":["NOPE"]}}`, "generate.states[0]"},
		{`{"tasks":[], "colour":"blue"}`, "colour"},
		{`{"tasks":"many"}`, "tasks"},
	} {
		r := ts.do("POST", "/control/seed", "ctl", c.body)
		if r.Code != 400 || r.fieldViolation() != c.field {
			t.Errorf("%s: %s, want 400 naming %s", c.body, r, c.field)
		}
	}
	got, _ := ts.walk("alice-token", nil)
	if len(got) != 0 {
		t.Errorf("rejected seeds left tasks: %v", got)
	}
}

func TestControlMoveAndClock(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("a", "alice", 30), task("b", "alice", 20), task("c", "alice", 10))
	// Move c to the front with an explicit timestamp and a new state.
	r := ts.control("POST", "/tasks/c:move", map[string]any{"state": "TASK_STATE_FAILED", "timestampMicros": ts0 + 40})
	if r.JSON["state"] != "TASK_STATE_FAILED" {
		t.Errorf("move: %s", r)
	}
	got, _ := ts.walk("alice-token", nil)
	if strings.Join(got, ",") != "c,a,b" {
		t.Errorf("after move: %v", got)
	}
	// Set the clock, then move without a timestamp: the task takes "now".
	ts.control("POST", "/clock", map[string]any{"nowMicros": ts0 + 100})
	ts.control("POST", "/tasks/b:move", map[string]any{})
	g := ts.rpc("alice-token", "GetTask", map[string]any{"id": "b"}).result(t)
	if g["status"].(map[string]any)["timestamp"] != FormatTimestamp(ts0+100) {
		t.Errorf("move at frozen clock: %v", g["status"])
	}
	// Advance.
	c := ts.control("POST", "/clock", map[string]any{"advanceMicros": 5})
	if c.JSON["nowMicros"] != json.Number(jsonInt(ts0+105)) || c.JSON["frozen"] != true {
		t.Errorf("clock after advance: %s", c)
	}
	if r := ts.do("POST", "/control/tasks/nope:move", "ctl", "{}"); r.Code != 404 {
		t.Errorf("move unknown task: %s", r)
	}
	if r := ts.do("POST", "/control/clock", "ctl", `{"advance":"soon"}`); r.Code != 400 || r.fieldViolation() != "advance" {
		t.Errorf("bad advance: %s", r)
	}
	// Run resumes real time from the frozen value.
	c = ts.control("POST", "/clock", map[string]any{"run": true})
	if c.JSON["frozen"] != false {
		t.Errorf("run: %s", c)
	}
	// A reset must say what it deletes.
	if r := ts.do("POST", "/control/reset", "ctl", "{}"); r.Code != 400 || r.fieldViolation() != "idPrefix" {
		t.Errorf("reset without a scope: %s", r)
	}
	// A scoped reset deletes only what it names.
	before, _ := ts.walk("alice-token", nil)
	ts.control("POST", "/seed", map[string]any{"tasks": []map[string]any{
		{"id": "mine-1", "owner": "alice", "state": "TASK_STATE_COMPLETED"},
		{"id": "other-1", "owner": "alice", "contextId": "ctx-scoped", "state": "TASK_STATE_COMPLETED"}}})
	if c := ts.control("POST", "/reset", map[string]any{"idPrefix": "mine-", "contextIds": []string{"ctx-scoped"}}); c.JSON["deleted"] != json.Number("2") {
		t.Errorf("scoped reset: %s", c)
	}
	if got, _ := ts.walk("alice-token", nil); len(got) != len(before) {
		t.Errorf("a scoped reset touched other tasks: %d before, %d after", len(before), len(got))
	}
	// Reset all is refused unless the server allows it, and /info says so.
	if r := ts.do("POST", "/control/reset", "ctl", `{"all":true}`); r.Code != 403 || r.fieldViolation() != "all" {
		t.Errorf("reset all without WithAllowReset: %s, want 403 naming all", r)
	}
	if got, _ := ts.walk("alice-token", nil); len(got) != len(before) {
		t.Errorf("a refused reset deleted tasks: %d left of %d", len(got), len(before))
	}
	info := ts.control("GET", "/info", nil)
	if info.JSON["tokenTtlSeconds"] != json.Number("600") || info.JSON["unscopedReset"] != nil {
		t.Errorf("info: %s", info)
	}
	allowing := newTestServer(t, WithAllowReset(true))
	allowing.seed(task("a", "alice", 1), task("b", "bob", 1))
	if c := allowing.control("POST", "/reset", map[string]any{"all": true}); c.JSON["deleted"] != json.Number("2") {
		t.Errorf("reset all with WithAllowReset: %s", c)
	}
	if got, _ := allowing.walk("alice-token", nil); len(got) != 0 {
		t.Errorf("after reset: %v", got)
	}
	if info := allowing.control("GET", "/info", nil); info.JSON["unscopedReset"] != true {
		t.Errorf("info with WithAllowReset: %s", info)
	}
	if r := ts.do("GET", "/control/nothing", "ctl", nil); r.Code != 404 {
		t.Errorf("unknown control path: %s", r)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestFaultNames(t *testing.T) {
	for _, f := range Faults() {
		s, err := New(context.Background(), WithPrincipal("a", "b"), WithFaults(f.Name))
		if err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		s.Close()
	}
	_, err := New(context.Background(), WithPrincipal("a", "b"), WithFaults("made-up"))
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Param != "fault" || !strings.Contains(pe.Msg, "made-up") {
		t.Errorf("unknown fault: %v, want a ParamError naming fault", err)
	}
}
