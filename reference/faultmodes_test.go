package reference

import (
	"reflect"
	"testing"
)

// TestStoreScanListsLikeTheCleanServer: the store-scan fault is a
// performance defect only, so every walk it serves, for every page size and
// filter, must be exactly the clean server's walk.
func TestStoreScanListsLikeTheCleanServer(t *testing.T) {
	clean := newTestServer(t)
	scan := newTestServer(t, WithFaults("store-scan"))
	tasks := []map[string]any{
		task("a", "alice", 50), task("b1", "alice", 40), task("b2", "alice", 40), task("b3", "alice", 40),
		task("c", "alice", 30, "contextId", "ctx-2"), task("d1", "alice", 20, "state", "TASK_STATE_WORKING"),
		task("d2", "alice", 20, "state", "TASK_STATE_WORKING", "contextId", "ctx-2"), task("e", "alice", 10),
		task("x", "bob", 45), task("t", "alice", 35, "tenant", "acme"),
	}
	clean.seed(tasks...)
	scan.seed(tasks...)
	for _, filter := range []map[string]any{
		{}, {"contextId": "ctx-2"}, {"status": "TASK_STATE_WORKING"}, {"statusTimestampAfter": FormatTimestamp(ts0 + 20)},
		{"tenant": "acme"}, {"contextId": "nope"},
	} {
		for size := 1; size <= 9; size++ {
			p := map[string]any{"pageSize": size}
			for k, v := range filter {
				p[k] = v
			}
			want, wantPages := clean.walk("alice-token", p)
			got, gotPages := scan.walk("alice-token", p)
			if !reflect.DeepEqual(got, want) || gotPages != wantPages {
				t.Errorf("%v: store-scan walked %v in %d pages, the clean server %v in %d", p, got, gotPages, want, wantPages)
			}
		}
		w := clean.rpc("alice-token", "ListTasks", filter).result(t)["totalSize"]
		if g := scan.rpc("alice-token", "ListTasks", filter).result(t)["totalSize"]; g != w {
			t.Errorf("%v: totalSize %v, want %v", filter, g, w)
		}
	}
}
