package reference

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestStoreWALMode(t *testing.T) {
	st, err := OpenStore(context.Background(), filepath.Join(t.TempDir(), "wal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mode string
	if err := st.r.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
}

// TestQueryPlans asserts that every page query, unfiltered and for each
// filter and combination, is one index range scan with no temp B-tree sort,
// and that the seek bounds the scan (so later pages cost the same as the
// first).
func TestQueryPlans(t *testing.T) {
	st, err := OpenStore(context.Background(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	filters := []struct {
		name  string
		apply func(*listQuery)
		index string
	}{
		{"none", func(*listQuery) {}, "tasks_by_owner"},
		{"contextId", func(q *listQuery) { q.contextID = "c" }, "tasks_by_context"},
		{"status", func(q *listQuery) { q.state = StateWorking }, "tasks_by_state"},
		{"statusTimestampAfter", func(q *listQuery) { q.afterSet, q.after = true, 5 }, "tasks_by_owner"},
		{"contextId+status", func(q *listQuery) { q.contextID, q.state = "c", StateWorking }, "tasks_by_context_state"},
		{"contextId+after", func(q *listQuery) { q.contextID, q.afterSet, q.after = "c", true, 5 }, "tasks_by_context"},
		{"status+after", func(q *listQuery) { q.state, q.afterSet, q.after = StateWorking, true, 5 }, "tasks_by_state"},
		{"all", func(q *listQuery) { q.contextID, q.state, q.afterSet, q.after = "c", StateWorking, true, 5 }, "tasks_by_context_state"},
	}
	plan := func(sqlText string, args []any) string {
		rows, err := st.r.Query("EXPLAIN QUERY PLAN "+sqlText, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			out = append(out, detail)
		}
		return strings.Join(out, "; ")
	}
	for _, f := range filters {
		for _, seek := range []bool{false, true} {
			q := listQuery{scope: ownerScope("alice", ""), afterOp: ">="}
			f.apply(&q)
			spec := pageSpec{order: keysetOrder, limit: 101, indexed: true}
			if seek {
				spec.seek, spec.args = keysetSeek, []any{100, 100, 100, "x"}
			}
			sqlText, args := q.pageSQL(spec)
			p := plan(sqlText, args)
			t.Logf("%s seek=%v: %s", f.name, seek, p)
			if strings.Contains(p, "TEMP B-TREE") || !strings.HasPrefix(p, "SEARCH tasks USING") || !strings.Contains(p, "INDEX "+f.index+" (") {
				t.Errorf("%s seek=%v: plan %q, want a SEARCH on %s with no temp B-tree", f.name, seek, p, f.index)
			}
			if seek && !strings.Contains(p, "ts_us<?") {
				t.Errorf("%s: the seek does not bound the index range: %q", f.name, p)
			}
			c, cargs := q.countSQL()
			if p := plan(c, cargs); !strings.Contains(p, "COVERING INDEX "+f.index) {
				t.Errorf("%s count: plan %q", f.name, p)
			}
		}
	}
}

func TestSeedIsAtomic(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("exists", "alice", 1))
	// A batch whose last task collides writes nothing at all.
	r := ts.do("POST", "/control/seed", "ctl", map[string]any{"tasks": []any{
		task("n1", "alice", 2, "historyMessages", 3), task("n2", "alice", 3), task("exists", "alice", 4)}})
	if r.Code != 400 || !strings.Contains(string(r.Body), "already exists") {
		t.Fatalf("colliding seed: %s", r)
	}
	got, _ := ts.walk("alice-token", map[string]any{})
	if fmt.Sprint(got) != "[exists]" {
		t.Errorf("after a failed seed the store holds %v", got)
	}
	var n int
	ts.s.store.r.QueryRow("SELECT COUNT(*) FROM messages").Scan(&n)
	if n != 0 {
		t.Errorf("%d orphan messages after a failed seed", n)
	}
}

func TestMessagesLiveInTheirOwnTable(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("m", "alice", 1, "historyMessages", 4, "artifacts", 2))
	var msgs, arts int
	ts.s.store.r.QueryRow("SELECT COUNT(*) FROM messages WHERE task_id = 'm'").Scan(&msgs)
	ts.s.store.r.QueryRow("SELECT COUNT(*) FROM artifacts WHERE task_id = 'm'").Scan(&arts)
	if msgs != 4 || arts != 2 {
		t.Errorf("messages %d, artifacts %d", msgs, arts)
	}
	var cols []string
	rows, _ := ts.s.store.r.QueryContext(context.Background(), "SELECT name FROM pragma_table_info('tasks')")
	for rows.Next() {
		var c string
		rows.Scan(&c)
		cols = append(cols, c)
	}
	rows.Close()
	if strings.Contains(strings.Join(cols, ","), "history") {
		t.Errorf("tasks table has a history column: %v", cols)
	}
}
