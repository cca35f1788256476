package reference

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestListWalkOrderAndTies(t *testing.T) {
	ts := newTestServer(t)
	// 3 distinct timestamps, with a 4-wide tie in the middle.
	ts.seed(task("a", "alice", 30), task("b1", "alice", 20), task("b2", "alice", 20), task("b3", "alice", 20),
		task("b4", "alice", 20), task("c", "alice", 10), task("z", "bob", 25))
	want := []string{"a", "b4", "b3", "b2", "b1", "c"}
	for size := 1; size <= 7; size++ {
		got, pages := ts.walk("alice-token", map[string]any{"pageSize": size})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pageSize %d: walk = %v, want %v", size, got, want)
		}
		if wantPages := (len(want) + size - 1) / size; pages != wantPages {
			t.Errorf("pageSize %d: %d pages, want %d", size, pages, wantPages)
		}
	}
}

func TestListResponseShape(t *testing.T) {
	ts := newTestServer(t)
	res := ts.rpc("alice-token", "ListTasks", map[string]any{}).result(t)
	// Empty result: tasks is [] (not null), nextPageToken is "" and present.
	if tasks, ok := res["tasks"].([]any); !ok || len(tasks) != 0 {
		t.Fatalf("tasks = %#v, want []", res["tasks"])
	}
	if tok, ok := res["nextPageToken"]; !ok || tok != "" {
		t.Fatalf("nextPageToken = %#v (present %v), want \"\"", tok, ok)
	}
	if res["pageSize"] != json.Number("50") || res["totalSize"] != json.Number("0") {
		t.Fatalf("pageSize/totalSize = %v/%v, want 50/0", res["pageSize"], res["totalSize"])
	}
	// The HTTP+JSON binding writes the same fields.
	r := ts.do("GET", "/tasks", "alice-token", nil)
	if r.Code != 200 || !strings.Contains(string(r.Body), `"tasks":[]`) || !strings.Contains(string(r.Body), `"nextPageToken":""`) {
		t.Fatalf("HTTP ListTasks = %s", r)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/a2a+json" {
		t.Errorf("Content-Type = %q", ct)
	}
}

func TestListPageSize(t *testing.T) {
	ts := newTestServer(t)
	ts.control("POST", "/seed", map[string]any{"generate": map[string]any{"count": 120, "owner": "alice"}})
	res := ts.rpc("alice-token", "ListTasks", map[string]any{}).result(t)
	if n := len(res["tasks"].([]any)); n != 50 || res["pageSize"] != json.Number("50") {
		t.Fatalf("default page: %d tasks, pageSize %v; want 50", n, res["pageSize"])
	}
	res = ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 100}).result(t)
	if n := len(res["tasks"].([]any)); n != 100 {
		t.Fatalf("pageSize 100: %d tasks", n)
	}
	for _, bad := range []any{0, -1, 101, 2.5, "x", true, 1e12} {
		r := ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": bad})
		if code, msg := r.rpcError(t); code != -32602 || !strings.Contains(msg, "pageSize") || r.fieldViolation() != "pageSize" {
			t.Errorf("pageSize %v: got %d %q field %q, want -32602 naming pageSize", bad, code, msg, r.fieldViolation())
		}
	}
	// ProtoJSON: an integer may come as a numeric string, and null is unset.
	for _, ok := range []any{"7", nil, 7.0} {
		r := ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": ok})
		r.result(t)
	}
	for _, bad := range []string{"0", "101", "abc", "1.5", ""} {
		r := ts.do("GET", "/tasks?pageSize="+bad, "alice-token", nil)
		if r.Code != 400 || r.fieldViolation() != "pageSize" {
			t.Errorf("HTTP pageSize=%q: %s", bad, r)
		}
	}
}

func TestListHistory(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("h", "alice", 1, "historyMessages", 5))
	get := func(params map[string]any) []string {
		res := ts.rpc("alice-token", "ListTasks", params).result(t)
		tk := res["tasks"].([]any)[0].(map[string]any)
		h, ok := tk["history"]
		if !ok {
			return nil
		}
		var out []string
		for _, m := range h.([]any) {
			out = append(out, m.(map[string]any)["messageId"].(string))
		}
		return out
	}
	if got := get(map[string]any{}); len(got) != 5 {
		t.Errorf("unset historyLength: %v, want all 5 (the server default)", got)
	}
	if got := get(map[string]any{"historyLength": 0}); got != nil {
		t.Errorf("historyLength 0: history %v, want the field omitted", got)
	}
	if got := get(map[string]any{"historyLength": 2}); !reflect.DeepEqual(got, []string{"h-m4", "h-m5"}) {
		t.Errorf("historyLength 2: %v, want the 2 most recent in order", got)
	}
	if got := get(map[string]any{"historyLength": 50}); len(got) != 5 {
		t.Errorf("historyLength 50: %v", got)
	}
	r := ts.rpc("alice-token", "ListTasks", map[string]any{"historyLength": -1})
	if code, _ := r.rpcError(t); code != -32602 || r.fieldViolation() != "historyLength" {
		t.Errorf("negative historyLength: %s", r)
	}
	// GetTask follows the same rules.
	g := ts.rpc("alice-token", "GetTask", map[string]any{"id": "h", "historyLength": 1}).result(t)
	if h := g["history"].([]any); len(h) != 1 || h[0].(map[string]any)["messageId"] != "h-m5" {
		t.Errorf("GetTask historyLength 1: %v", h)
	}
	g = ts.rpc("alice-token", "GetTask", map[string]any{"id": "h", "historyLength": 0}).result(t)
	if _, ok := g["history"]; ok {
		t.Error("GetTask historyLength 0: history present")
	}
	r = ts.do("GET", "/tasks/h?historyLength=-3", "alice-token", nil)
	if r.Code != 400 || r.fieldViolation() != "historyLength" {
		t.Errorf("HTTP GetTask negative historyLength: %s", r)
	}
	// --default-history-length changes what unset means.
	ts2 := newTestServer(t, WithDefaultHistoryLength(1))
	ts2.seed(task("h", "alice", 1, "historyMessages", 5))
	res := ts2.rpc("alice-token", "ListTasks", map[string]any{}).result(t)
	if h := res["tasks"].([]any)[0].(map[string]any)["history"].([]any); len(h) != 1 {
		t.Errorf("default history 1: got %d messages", len(h))
	}
}

func TestListArtifacts(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("with", "alice", 2, "artifacts", 2), task("without", "alice", 1))
	res := ts.rpc("alice-token", "ListTasks", map[string]any{}).result(t)
	for _, tk := range res["tasks"].([]any) {
		if _, ok := tk.(map[string]any)["artifacts"]; ok {
			t.Errorf("includeArtifacts unset: artifacts present on %v", tk)
		}
	}
	res = ts.rpc("alice-token", "ListTasks", map[string]any{"includeArtifacts": false}).result(t)
	if strings.Contains(fmt.Sprint(res), "artifacts") {
		t.Errorf("includeArtifacts false: %v", res)
	}
	res = ts.rpc("alice-token", "ListTasks", map[string]any{"includeArtifacts": true}).result(t)
	tasks := res["tasks"].([]any)
	if a := tasks[0].(map[string]any)["artifacts"].([]any); len(a) != 2 {
		t.Errorf("includeArtifacts true: %v", a)
	}
	if a, ok := tasks[1].(map[string]any)["artifacts"].([]any); !ok || len(a) != 0 {
		t.Errorf("includeArtifacts true, no artifacts: want [], got %#v", tasks[1].(map[string]any)["artifacts"])
	}
	r := ts.do("GET", "/tasks?includeArtifacts=yes", "alice-token", nil)
	if r.Code != 400 || r.fieldViolation() != "includeArtifacts" {
		t.Errorf("HTTP includeArtifacts=yes: %s", r)
	}
}

func TestListFilters(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(
		task("w1", "alice", 40, "state", "TASK_STATE_WORKING"),
		task("c1", "alice", 30),
		task("w2", "alice", 20, "state", "TASK_STATE_WORKING", "contextId", "ctx-2"),
		task("c2", "alice", 10, "contextId", "ctx-2"),
	)
	cases := []struct {
		params map[string]any
		want   []string
	}{
		{map[string]any{"contextId": "ctx-2"}, []string{"w2", "c2"}},
		{map[string]any{"status": "TASK_STATE_WORKING"}, []string{"w1", "w2"}},
		{map[string]any{"status": 2}, []string{"w1", "w2"}},
		{map[string]any{"status": "TASK_STATE_UNSPECIFIED"}, []string{"w1", "c1", "w2", "c2"}},
		{map[string]any{"contextId": "ctx-2", "status": "TASK_STATE_COMPLETED"}, []string{"c2"}},
		{map[string]any{"statusTimestampAfter": FormatTimestamp(ts0 + 20)}, []string{"w1", "c1", "w2"}},
		{map[string]any{"statusTimestampAfter": FormatTimestamp(ts0 + 21)}, []string{"w1", "c1"}},
		{map[string]any{"statusTimestampAfter": FormatTimestamp(ts0 + 10), "contextId": "ctx-2", "status": "TASK_STATE_WORKING"}, []string{"w2"}},
	}
	for _, c := range cases {
		for size := 1; size <= 3; size++ {
			p := map[string]any{"pageSize": size}
			for k, v := range c.params {
				p[k] = v
			}
			got, _ := ts.walk("alice-token", p)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%v: got %v, want %v", p, got, c.want)
			}
		}
		// totalSize agrees with the filtered set.
		res := ts.rpc("alice-token", "ListTasks", c.params).result(t)
		if res["totalSize"] != json.Number(fmt.Sprint(len(c.want))) {
			t.Errorf("%v: totalSize %v, want %d", c.params, res["totalSize"], len(c.want))
		}
	}
	// HTTP+JSON applies the same filters.
	r := ts.do("GET", "/tasks?contextId=ctx-2&status=TASK_STATE_WORKING", "alice-token", nil)
	if !strings.Contains(string(r.Body), `"w2"`) || strings.Contains(string(r.Body), `"w1"`) {
		t.Errorf("HTTP filters: %s", r)
	}
	// Inclusive by default; --exclusive-timestamp-after switches to >.
	ex := newTestServer(t, WithExclusiveTimestampAfter(true))
	ex.seed(task("x", "alice", 20), task("y", "alice", 10))
	got, _ := ex.walk("alice-token", map[string]any{"statusTimestampAfter": FormatTimestamp(ts0 + 10)})
	if !reflect.DeepEqual(got, []string{"x"}) {
		t.Errorf("exclusive statusTimestampAfter: %v", got)
	}
	for _, bad := range []map[string]any{
		{"status": "TASK_STATE_BOGUS"}, {"status": 99}, {"statusTimestampAfter": "yesterday"},
		{"contextId": 5}, {"includeArtifacts": "true"},
	} {
		r := ts.rpc("alice-token", "ListTasks", bad)
		var field string
		for k := range bad {
			field = k
		}
		if code, msg := r.rpcError(t); code != -32602 || !strings.Contains(msg, field) || r.fieldViolation() != field {
			t.Errorf("%v: %d %q", bad, code, msg)
		}
	}
}

func TestListTotalSizeCarriedInToken(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("a", "alice", 3), task("b", "alice", 2), task("c", "alice", 1))
	res := ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1}).result(t)
	if res["totalSize"] != json.Number("3") {
		t.Fatalf("totalSize %v", res["totalSize"])
	}
	ts.seed(task("d", "alice", 0))
	res = ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": res["nextPageToken"]}).result(t)
	if res["totalSize"] != json.Number("3") {
		t.Errorf("second page totalSize %v: want 3, the value computed once for the walk", res["totalSize"])
	}
	res = ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1}).result(t)
	if res["totalSize"] != json.Number("4") {
		t.Errorf("new walk totalSize %v: want 4 after the insert", res["totalSize"])
	}
}

func TestListScoping(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("a1", "alice", 2), task("b1", "bob", 1), task("t1", "alice", 3, "tenant", "acme"))
	got, _ := ts.walk("bob-token", map[string]any{})
	if !reflect.DeepEqual(got, []string{"b1"}) {
		t.Errorf("bob lists %v", got)
	}
	got, _ = ts.walk("alice-token", map[string]any{})
	if !reflect.DeepEqual(got, []string{"a1"}) {
		t.Errorf("alice, default tenant, lists %v", got)
	}
	got, _ = ts.walk("alice-token", map[string]any{"tenant": "acme"})
	if !reflect.DeepEqual(got, []string{"t1"}) {
		t.Errorf("alice, tenant acme, lists %v", got)
	}
	r := ts.do("GET", "/acme/tasks", "alice-token", nil)
	if !strings.Contains(string(r.Body), `"t1"`) || strings.Contains(string(r.Body), `"a1"`) {
		t.Errorf("GET /acme/tasks: %s", r)
	}
	r = ts.do("GET", "/acme/tasks/t1", "alice-token", nil)
	if r.Code != 200 {
		t.Errorf("GET /acme/tasks/t1: %s", r)
	}
	// Another principal's task, or the right task under the wrong tenant, is
	// simply not found: its existence is not revealed.
	for _, c := range []struct {
		token, method string
		params        map[string]any
	}{
		{"bob-token", "GetTask", map[string]any{"id": "a1"}},
		{"bob-token", "CancelTask", map[string]any{"id": "a1"}},
		{"alice-token", "GetTask", map[string]any{"id": "t1"}},
		{"alice-token", "GetTask", map[string]any{"id": "nope"}},
	} {
		r := ts.rpc(c.token, c.method, c.params)
		if code, _ := r.rpcError(t); code != -32001 {
			t.Errorf("%s %v as %s: code %d, want -32001 TaskNotFound", c.method, c.params, c.token, code)
		}
	}
	if r := ts.do("GET", "/tasks/a1", "bob-token", nil); r.Code != 404 || !strings.Contains(string(r.Body), "TASK_NOT_FOUND") {
		t.Errorf("HTTP GetTask cross-principal: %s", r)
	}
	if r := ts.do("POST", "/tasks/a1:cancel", "bob-token", "{}"); r.Code != 404 {
		t.Errorf("HTTP CancelTask cross-principal: %s", r)
	}
}

func TestListSortedAcrossManyPages(t *testing.T) {
	ts := newTestServer(t)
	ts.control("POST", "/seed", map[string]any{"generate": map[string]any{"count": 537, "owner": "alice", "stepMicros": 0, "startMicros": ts0}})
	ts.control("POST", "/seed", map[string]any{"generate": map[string]any{"count": 300, "owner": "alice", "idPrefix": "x-", "startMicros": ts0 - 5, "stepMicros": -1}})
	got, _ := ts.walk("alice-token", map[string]any{"pageSize": 7, "historyLength": 0})
	if len(got) != 837 {
		t.Fatalf("walked %d tasks, want 837", len(got))
	}
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Fatalf("%s served twice", id)
		}
		seen[id] = true
	}
	tied := got[:537]
	if !slices.IsSortedFunc(tied, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Error("tied tasks are not in id-descending order")
	}
}
