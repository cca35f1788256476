package reference

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"testing"
)

// listFaultTasks are alice's tasks for the page-shape and filter faults:
// five in ctx-1, newest first a..e, two of them working, and two in ctx-2.
func listFaultTasks() []map[string]any {
	return []map[string]any{
		task("a", "alice", 70), task("b", "alice", 60, "state", "TASK_STATE_WORKING"), task("c", "alice", 50),
		task("d", "alice", 40, "state", "TASK_STATE_WORKING"), task("e", "alice", 30),
		task("x", "alice", 20, "contextId", "ctx-2", "state", "TASK_STATE_WORKING"), task("y", "alice", 10, "contextId", "ctx-2"),
	}
}

func newListFaultServer(t *testing.T, fault Fault) *testServer {
	t.Helper()
	s := newTestServer(t, WithFaults(fault))
	s.seed(listFaultTasks()...)
	return s
}

func TestOverlongPagesServeOneMore(t *testing.T) {
	s := newListFaultServer(t, "overlong-pages")
	res := s.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 2}).result(t)
	if got := ids(res); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("pageSize 2 served %v, want a, b, c (one too many)", got)
	}
	all, _ := s.walk("alice-token", map[string]any{"pageSize": 2})
	if want := []string{"a", "b", "c", "d", "e", "x", "y"}; !reflect.DeepEqual(all, want) {
		t.Errorf("the walk served %v, want %v: only the page length is wrong", all, want)
	}
}

func TestPageOverlapRepeatsTheLastTask(t *testing.T) {
	s := newListFaultServer(t, "page-overlap")
	all, _ := s.walk("alice-token", map[string]any{"pageSize": 3})
	if want := []string{"a", "b", "c", "c", "d", "e", "e", "x", "y"}; !reflect.DeepEqual(all, want) {
		t.Errorf("the walk served %v, want %v", all, want)
	}
	if all, _ := s.walk("alice-token", map[string]any{"pageSize": 1}); len(all) != 7 {
		t.Errorf("pages of one task served %v, want each task once", all)
	}
}

func TestNoTotalSizeLeavesItOut(t *testing.T) {
	s := newListFaultServer(t, "no-total-size")
	res := s.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 2}).result(t)
	if _, ok := res["totalSize"]; ok {
		t.Errorf("totalSize is present: %v", res)
	}
	for _, k := range []string{"tasks", "nextPageToken", "pageSize"} {
		if _, ok := res[k]; !ok {
			t.Errorf("%s is missing too: %v", k, res)
		}
	}
}

func TestUnknownTokenRestartsTheWalk(t *testing.T) {
	s := newListFaultServer(t, "unknown-token-restarts")
	res := s.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 2, "pageToken": "not-a-token"}).result(t)
	if got := ids(res); !reflect.DeepEqual(got, []string{"a", "b"}) || res["totalSize"] != json.Number("7") {
		t.Errorf("a made-up token served %v (totalSize %v), want the first page a, b of 7", got, res["totalSize"])
	}
	// A token of the server's format with its signature broken is still
	// refused.
	tok := s.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 2}).result(t)["nextPageToken"].(string)
	// Flip a bit of the decoded signature and re-encode, so the token
	// still parses (flipping a base64 character could leave the alphabet
	// and make it no token at all).
	raw, err := decodeB64(tok)
	if err != nil {
		t.Fatalf("the server's own token does not decode: %v", err)
	}
	raw[len(raw)-1] ^= 1
	if _, ok := s.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 2, "pageToken": tokenB64.EncodeToString(raw)}).JSON["error"]; !ok {
		t.Errorf("a token with a broken signature was accepted")
	}
}

func TestFiltersOrListsAnyMatch(t *testing.T) {
	s := newListFaultServer(t, "filters-or")
	all, _ := s.walk("alice-token", map[string]any{"contextId": "ctx-2", "status": "TASK_STATE_WORKING"})
	if want := []string{"b", "d", "x", "y"}; !reflect.DeepEqual(all, want) {
		t.Errorf("contextId ctx-2 with status WORKING served %v, want %v (either filter)", all, want)
	}
	res := s.rpc("alice-token", "ListTasks", map[string]any{"contextId": "ctx-2", "status": "TASK_STATE_WORKING"}).result(t)
	if res["totalSize"] != json.Number("4") {
		t.Errorf("totalSize %v, want 4: the count follows the same rule", res["totalSize"])
	}
	if all, _ := s.walk("alice-token", map[string]any{"contextId": "ctx-2"}); !reflect.DeepEqual(all, []string{"x", "y"}) {
		t.Errorf("contextId alone served %v, want x, y", all)
	}
}

func TestStatusUnvalidatedMatchesNothing(t *testing.T) {
	s := newListFaultServer(t, "status-unvalidated")
	for _, st := range []any{"TASK_STATE_BOGUS", "done", 99} {
		res := s.rpc("alice-token", "ListTasks", map[string]any{"status": st}).result(t)
		if got := ids(res); len(got) != 0 {
			t.Errorf("status %v served %v, want nothing", st, got)
		}
	}
	if all, _ := s.walk("alice-token", map[string]any{"status": "TASK_STATE_WORKING"}); !reflect.DeepEqual(all, []string{"b", "d", "x"}) {
		t.Errorf("a valid status served %v, want b, d, x", all)
	}
}

func TestStatusFilterIgnored(t *testing.T) {
	s := newListFaultServer(t, "status-filter-ignored")
	for _, path := range []string{"jsonrpc", "http"} {
		var got []string
		if path == "jsonrpc" {
			got, _ = s.walk("alice-token", map[string]any{"status": "TASK_STATE_WORKING"})
		} else {
			r := s.do("GET", "/tasks?status=TASK_STATE_WORKING", "alice-token", nil)
			got = ids(r.JSON)
		}
		if len(got) != 7 {
			t.Errorf("%s: status WORKING served %v, want all 7 tasks", path, got)
		}
	}
}

func TestPageSizeEchoCount(t *testing.T) {
	s := newListFaultServer(t, "pagesize-echo-count")
	res := s.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 5, "contextId": "ctx-2"}).result(t)
	if res["pageSize"] != json.Number("2") {
		t.Errorf("pageSize %v, want 2 (the tasks served)", res["pageSize"])
	}
}

func TestListCompletesWorking(t *testing.T) {
	s := newListFaultServer(t, "list-completes-working")
	states := func() map[string]string {
		res := s.rpc("alice-token", "ListTasks", map[string]any{"contextId": "ctx-1"}).result(t)
		out := map[string]string{}
		for _, v := range res["tasks"].([]any) {
			m := v.(map[string]any)
			out[m["id"].(string)] = m["status"].(map[string]any)["state"].(string) + " " + m["status"].(map[string]any)["timestamp"].(string)
		}
		return out
	}
	first, second := states(), states()
	if first["b"] != "TASK_STATE_WORKING "+FormatTimestamp(ts0+60) || second["b"] != "TASK_STATE_COMPLETED "+FormatTimestamp(ts0+60) {
		t.Errorf("task b read %q then %q, want working then completed at the same timestamp", first["b"], second["b"])
	}
	third := s.rpc("alice-token", "ListTasks", map[string]any{"contextId": "ctx-2"}).result(t)
	if st := third["tasks"].([]any)[0].(map[string]any)["status"].(map[string]any)["state"]; st != "TASK_STATE_WORKING" {
		t.Errorf("task x, never listed before, is %v", st)
	}
}

func TestTaskStateShortNames(t *testing.T) {
	s := newListFaultServer(t, "task-state-short-names")
	g := s.rpc("alice-token", "GetTask", map[string]any{"id": "b"}).result(t)
	if st := g["status"].(map[string]any)["state"]; st != "working" {
		t.Errorf("GetTask state %v, want working", st)
	}
	res := s.rpc("alice-token", "ListTasks", map[string]any{"contextId": "ctx-1"}).result(t)
	if st := res["tasks"].([]any)[1].(map[string]any)["status"].(map[string]any)["state"]; st != "TASK_STATE_WORKING" {
		t.Errorf("ListTasks state %v, want the enum name (only single-task replies are broken)", st)
	}
	send := s.rpc("alice-token", "SendMessage", map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "please ask for input"}}}}).result(t)
	if st := send["task"].(map[string]any)["status"].(map[string]any)["state"]; st != "input-required" {
		t.Errorf("SendMessage state %v, want input-required", st)
	}
}

func TestTimestampCentiseconds(t *testing.T) {
	s := newListFaultServer(t, "timestamp-centiseconds")
	two := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{2}Z$`)
	res := s.rpc("alice-token", "ListTasks", map[string]any{}).result(t)
	var stamps []string
	for _, v := range res["tasks"].([]any) {
		stamps = append(stamps, v.(map[string]any)["status"].(map[string]any)["timestamp"].(string))
	}
	g := s.rpc("alice-token", "GetTask", map[string]any{"id": "a"}).result(t)
	stamps = append(stamps, g["status"].(map[string]any)["timestamp"].(string))
	for _, ts := range stamps {
		if !two.MatchString(ts) {
			t.Errorf("timestamp %q does not have 2 fractional digits", ts)
		}
	}
	if all, _ := s.walk("alice-token", map[string]any{"pageSize": 2}); !slices.Equal(all, []string{"a", "b", "c", "d", "e", "x", "y"}) {
		t.Errorf("the walk served %v", all)
	}
	if got := centiseconds("2026-10-02T09:14:03.118999Z"); got != "2026-10-02T09:14:03.11Z" {
		t.Errorf("centiseconds: %s", got)
	}
}

func TestTieOrderFlipsWithPageSizeParity(t *testing.T) {
	s := newTestServer(t, WithFaults("tie-order-flips"))
	s.seed(task("n", "alice", 90), task("t1", "alice", 50), task("t2", "alice", 50), task("t3", "alice", 50), task("o", "alice", 10))
	for size, want := range map[int][]string{
		1: {"n", "t3", "t2", "t1", "o"}, 3: {"n", "t3", "t2", "t1", "o"},
		2: {"n", "t1", "t2", "t3", "o"}, 4: {"n", "t1", "t2", "t3", "o"},
	} {
		if all, _ := s.walk("alice-token", map[string]any{"pageSize": size}); !slices.Equal(all, want) {
			t.Errorf("pageSize %d served %v, want %v", size, all, want)
		}
	}
}
