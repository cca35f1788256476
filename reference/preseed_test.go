package reference

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// preseedRows reads owner's preseeded tasks, newest first, as the clean
// listing orders them, with their history and artifact counts.
func preseedRows(t *testing.T, s *Server, owner string) (rows []taskRow, history, artifacts map[string]int) {
	t.Helper()
	q, err := s.store.r.Query(`SELECT id, context_id, state, ts_us FROM tasks WHERE owner = ? ORDER BY ts_us DESC, id DESC`, owner)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for q.Next() {
		var r taskRow
		if err := q.Scan(&r.ID, &r.ContextID, &r.State, &r.TS); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	count := func(table string) map[string]int {
		m := map[string]int{}
		q, err := s.store.r.Query(`SELECT task_id, COUNT(*) FROM ` + table + ` GROUP BY task_id`)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		for q.Next() {
			var id string
			var n int
			q.Scan(&id, &n)
			m[id] = n
		}
		return m
	}
	return rows, count("messages"), count("artifacts")
}

// TestPreseedLayout checks the data serve --preseed promises for each
// principal: N tasks, every state, several contexts, tie groups at second
// and microsecond precision that straddle the boundaries of the common page
// sizes, ids unrelated to time order, history and artifacts on some tasks.
func TestPreseedLayout(t *testing.T) {
	const n = 2000
	s := mustNew(t, WithPrincipal("alice", "alice-token"), WithPrincipal("bob", "bob-token"), WithPreseed(n, 7))
	for _, owner := range []string{"alice", "bob"} {
		rows, history, artifacts := preseedRows(t, s, owner)
		if len(rows) != n {
			t.Fatalf("%s: %d tasks, want %d", owner, len(rows), n)
		}
		states, contexts := map[State]int{}, map[string]int{}
		ids := make([]string, len(rows))
		withHistory, withArtifacts := 0, 0
		for i, r := range rows {
			states[r.State]++
			contexts[r.ContextID]++
			ids[i] = r.ID
			if !strings.HasPrefix(r.ID, "pre-"+owner+"-") {
				t.Fatalf("%s: id %s", owner, r.ID)
			}
			if history[r.ID] >= 2 {
				withHistory++
			}
			if artifacts[r.ID] > 0 {
				withArtifacts++
			}
		}
		if len(states) != 8 {
			t.Errorf("%s: states %v, want all 8", owner, states)
		}
		if len(contexts) < 3 {
			t.Errorf("%s: contexts %v, want several", owner, contexts)
		}
		if withHistory < n/10 || withArtifacts < n/10 {
			t.Errorf("%s: %d tasks with history, %d with artifacts", owner, withHistory, withArtifacts)
		}
		if slices.IsSorted(ids) || slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(b, a) }) {
			t.Errorf("%s: ids are in time order", owner)
		}
		// Tie groups: widths, precisions, and boundaries they straddle.
		var secondTies, microTies, widest int
		for i := 0; i < len(rows); {
			j := i
			for j < len(rows) && rows[j].TS == rows[i].TS {
				j++
			}
			if w := j - i; w > 1 {
				widest = max(widest, w)
				if rows[i].TS%1_000_000 == 0 {
					secondTies++
				} else {
					microTies++
				}
			}
			i = j
		}
		if secondTies < 10 || microTies < 10 || widest < 31 {
			t.Errorf("%s: %d tie groups at second precision, %d at microsecond precision, widest %d", owner, secondTies, microTies, widest)
		}
		for _, size := range []int{2, 3, 5, 7, 10, 20, 25, 50, 100} {
			straddled := 0
			for b := size; b < len(rows); b += size {
				if rows[b-1].TS == rows[b].TS {
					straddled++
				}
			}
			if straddled < 2 {
				t.Errorf("%s: only %d tie groups straddle a boundary of %d-task pages", owner, straddled, size)
			}
		}
	}
}

// TestPreseedIsDeterministic: the same count and seed give the same data,
// another seed other data, and a restart on the same store keeps it.
func TestPreseedIsDeterministic(t *testing.T) {
	ctx := context.Background()
	a := mustNew(t, WithPrincipal("alice", "alice-token"), WithPreseed(300, 42))
	b := mustNew(t, WithPrincipal("alice", "alice-token"), WithPreseed(300, 42))
	c := mustNew(t, WithPrincipal("alice", "alice-token"), WithPreseed(300, 43))
	ra, ha, aa := preseedRows(t, a, "alice")
	rb, hb, ab := preseedRows(t, b, "alice")
	rc, _, _ := preseedRows(t, c, "alice")
	if !reflect.DeepEqual(ra, rb) || !reflect.DeepEqual(ha, hb) || !reflect.DeepEqual(aa, ab) {
		t.Error("the same preseed gave different data")
	}
	if reflect.DeepEqual(ra, rc) {
		t.Error("another seed gave the same data")
	}
	db := filepath.Join(t.TempDir(), "pre.db")
	opts := []Option{WithDB(db), WithPrincipal("alice", "alice-token"), WithPreseed(300, 42)}
	s1, err := New(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s1.Close()
	s2, err := New(ctx, opts...)
	if err != nil {
		t.Fatalf("restart with the same preseed: %v", err)
	}
	if r2, _, _ := preseedRows(t, s2, "alice"); !reflect.DeepEqual(r2, ra) {
		t.Error("a restart changed the preseeded data")
	}
	s2.Close()
	_, err = New(ctx, WithDB(db), WithPrincipal("alice", "alice-token"), WithPreseed(301, 42))
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Param != "preseed" {
		t.Errorf("another preseed on the same store: %v, want a ParamError naming preseed", err)
	}
}

// TestPreseedWithoutControlAPI: a preseeded server without a control token
// serves its data black-box, offers no control API and does not declare it.
func TestPreseedWithoutControlAPI(t *testing.T) {
	ts := &testServer{t, mustNew(t, WithPrincipal("alice", "alice-token"), WithPreseed(120, 1))}
	got, pages := ts.walk("alice-token", map[string]any{"pageSize": 25})
	if len(got) != 120 || pages != 5 {
		t.Errorf("walked %d tasks in %d pages", len(got), pages)
	}
	if strings.Contains(string(ts.do("GET", "/.well-known/agent-card.json", "", nil).Body), ControlExtensionURI) {
		t.Error("the Agent Card declares the control API")
	}
	if r := ts.do("GET", "/control/info", "ctl", nil); r.Code == 200 {
		t.Errorf("the control API answers: %s", r)
	}
}
