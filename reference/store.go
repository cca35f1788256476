package reference

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is the reference server's SQLite task store. Tasks, their messages
// and their artifacts live in separate tables; messages are keyed by
// (task id, sequence) so that historyLength is an index seek and listings
// never read transcripts they discard.
type Store struct {
	w, r *sql.DB // writer (one connection) and readers; the same pool for :memory:
	// gen counts committed writes; totalSize cache entries are valid only for
	// the generation they were computed at.
	gen    atomic.Uint64
	counts sync.Map // count query text and arguments -> countEntry
	nCount atomic.Int64
}

type countEntry struct {
	gen uint64
	n   int64
}

const schema = `
CREATE TABLE IF NOT EXISTS tasks (
	id         TEXT    NOT NULL PRIMARY KEY,
	owner      TEXT    NOT NULL,
	tenant     TEXT    NOT NULL,
	context_id TEXT    NOT NULL,
	state      INTEGER NOT NULL,
	ts_us      INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tasks_by_owner         ON tasks (owner, tenant, ts_us DESC, id DESC);
CREATE INDEX IF NOT EXISTS tasks_by_context       ON tasks (owner, tenant, context_id, ts_us DESC, id DESC);
CREATE INDEX IF NOT EXISTS tasks_by_state         ON tasks (owner, tenant, state, ts_us DESC, id DESC);
CREATE INDEX IF NOT EXISTS tasks_by_context_state ON tasks (owner, tenant, context_id, state, ts_us DESC, id DESC);
CREATE TABLE IF NOT EXISTS messages (
	task_id    TEXT    NOT NULL,
	seq        INTEGER NOT NULL,
	message_id TEXT    NOT NULL,
	role       TEXT    NOT NULL,
	parts      TEXT    NOT NULL,
	PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS artifacts (
	task_id     TEXT    NOT NULL,
	seq         INTEGER NOT NULL,
	artifact_id TEXT    NOT NULL,
	name        TEXT    NOT NULL,
	parts       TEXT    NOT NULL,
	PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
	k TEXT NOT NULL PRIMARY KEY,
	v TEXT NOT NULL
) WITHOUT ROWID;
`

// OpenStore opens (creating if needed) the SQLite database at path, in WAL
// mode. path ":memory:" gives a private in-memory store. ctx bounds the
// schema set-up.
func OpenStore(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, paramErr("db", "empty path; give a file path or :memory:")
	}
	// temp_store(MEMORY): the scratch image has no /tmp, and large seeds spill
	// statement journals to temp files otherwise.
	pragmas := "_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(off)&_pragma=temp_store(MEMORY)"
	s := &Store{}
	if path == ":memory:" {
		db, err := sql.Open("sqlite", "file::memory:?"+pragmas)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1) // each connection would otherwise be its own database
		s.w, s.r = db, db
	} else {
		dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas + "&_pragma=journal_mode(WAL)"
		w, err := sql.Open("sqlite", dsn+"&_txlock=immediate")
		if err != nil {
			return nil, err
		}
		w.SetMaxOpenConns(1)
		r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
		if err != nil {
			w.Close()
			return nil, err
		}
		r.SetMaxOpenConns(8)
		s.w, s.r = w, r
	}
	if _, err := s.w.ExecContext(ctx, schema); err != nil {
		s.Close()
		return nil, paramErr("db", "%s: %v", path, err)
	}
	return s, nil
}

// Close closes the database; in WAL mode the last connection checkpoints.
func (s *Store) Close() error {
	var err error
	if s.r != s.w && s.r != nil {
		err = s.r.Close()
	}
	if s.w != nil {
		err = errors.Join(err, s.w.Close())
	}
	return err
}

// SeedTask describes one task to insert directly, bypassing the agent.
type SeedTask struct {
	ID        string
	Owner     string
	Tenant    string
	ContextID string
	State     State
	TS        int64 // µs
	History   int   // number of messages to generate
	Artifacts int   // number of artifacts to generate
}

// seedWriter inserts seed tasks in one transaction, seedBatch tasks at a
// time, so that a seed of any size holds one batch in memory. Rows go in as
// multi-row INSERT statements, which is what makes bulk seeding fast (one
// statement per row spends most of its time crossing into SQLite). Commit
// makes every task visible at once; rollback, or any error, leaves the
// store as it was.
type seedWriter struct {
	s     *Store
	tx    *sql.Tx
	batch []SeedTask
	blame []string // per task in batch: the field to name if its id is taken
	ins   *bulkInserter
	msgs  *bulkInserter
	arts  *bulkInserter
}

const seedBatch = 100

// beginSeed starts a seed transaction.
func (s *Store) beginSeed(ctx context.Context) (*seedWriter, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &seedWriter{s: s, tx: tx, batch: make([]SeedTask, 0, seedBatch), blame: make([]string, 0, seedBatch),
		ins: newBulkInserter(tx, "tasks", 6), msgs: newBulkInserter(tx, "messages", 5), arts: newBulkInserter(tx, "artifacts", 5)}, nil
}

// add queues t; blame is the request field to name if t's id is taken
// (tasks[3].id, generate.idPrefix).
func (w *seedWriter) add(ctx context.Context, t SeedTask, blame string) error {
	w.batch = append(w.batch, t)
	w.blame = append(w.blame, blame)
	if len(w.batch) < seedBatch {
		return nil
	}
	return w.flush(ctx)
}

// flush writes the queued tasks, then their messages and artifacts, so a
// taken id is reported by the tasks table, where it can be named.
func (w *seedWriter) flush(ctx context.Context) error {
	defer func() { w.batch, w.blame = w.batch[:0], w.blame[:0] }()
	for _, t := range w.batch {
		if err := w.ins.add(ctx, t.ID, t.Owner, t.Tenant, t.ContextID, int(t.State), t.TS); err != nil {
			return w.conflict(ctx, err)
		}
	}
	if err := w.ins.flush(ctx); err != nil {
		return w.conflict(ctx, err)
	}
	for _, t := range w.batch {
		for j := 1; j <= t.History; j++ {
			role := "ROLE_USER"
			if j%2 == 0 {
				role = "ROLE_AGENT"
			}
			parts := fmt.Sprintf(`[{"text":"message %d of %s"}]`, j, jsonEscape(t.ID))
			if err := w.msgs.add(ctx, t.ID, j, fmt.Sprintf("%s-m%d", t.ID, j), role, parts); err != nil {
				return err
			}
		}
		for j := 1; j <= t.Artifacts; j++ {
			parts := fmt.Sprintf(`[{"text":"artifact %d of %s"}]`, j, jsonEscape(t.ID))
			if err := w.arts.add(ctx, t.ID, j, fmt.Sprintf("%s-a%d", t.ID, j), fmt.Sprintf("artifact-%d", j), parts); err != nil {
				return err
			}
		}
	}
	if err := w.msgs.flush(ctx); err != nil {
		return err
	}
	return w.arts.flush(ctx)
}

// conflict turns a failed insert of the batch into an error naming the
// task whose id is taken, when that is what failed.
func (w *seedWriter) conflict(ctx context.Context, err error) error {
	if !strings.Contains(err.Error(), "UNIQUE") && !strings.Contains(err.Error(), "PRIMARY KEY") {
		return err
	}
	inBatch := map[string]bool{}
	for i, t := range w.batch {
		if inBatch[t.ID] {
			return invalidParam(w.blame[i], "%q appears twice in this request", t.ID)
		}
		inBatch[t.ID] = true
		var one int
		switch e := w.tx.QueryRowContext(ctx, "SELECT 1 FROM tasks WHERE id = ?", t.ID).Scan(&one); {
		case e == nil:
			return invalidParam(w.blame[i], "a task with id %q already exists (in the store or earlier in this request); seed ids must be new", t.ID)
		case !errors.Is(e, sql.ErrNoRows):
			return e
		}
	}
	return invalidParam("tasks", "a task id is taken; seed ids must be new (%v)", err)
}

// commit writes what is queued and commits the transaction.
func (w *seedWriter) commit(ctx context.Context) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	if err := w.tx.Commit(); err != nil {
		return err
	}
	w.s.gen.Add(1)
	return nil
}

// rollback abandons the transaction; after commit it does nothing.
func (w *seedWriter) rollback() { w.tx.Rollback() }

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// bulkInserter batches rows into multi-row INSERT statements of up to
// bulkRows rows, reusing one prepared statement for full batches.
type bulkInserter struct {
	tx    *sql.Tx
	table string
	cols  int
	args  []any
	full  *sql.Stmt
}

const bulkRows = 100

var tableCols = map[string]string{
	"tasks":     "(id, owner, tenant, context_id, state, ts_us)",
	"messages":  "(task_id, seq, message_id, role, parts)",
	"artifacts": "(task_id, seq, artifact_id, name, parts)",
}

func newBulkInserter(tx *sql.Tx, table string, cols int) *bulkInserter {
	return &bulkInserter{tx: tx, table: table, cols: cols, args: make([]any, 0, cols*bulkRows)}
}

func (b *bulkInserter) stmtText(rows int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", b.cols), ",") + ")"
	return "INSERT INTO " + b.table + " " + tableCols[b.table] + " VALUES " +
		strings.TrimSuffix(strings.Repeat(one+",", rows), ",")
}

func (b *bulkInserter) add(ctx context.Context, vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < b.cols*bulkRows {
		return nil
	}
	if b.full == nil {
		st, err := b.tx.PrepareContext(ctx, b.stmtText(bulkRows))
		if err != nil {
			return err
		}
		b.full = st
	}
	_, err := b.full.ExecContext(ctx, b.args...)
	b.args = b.args[:0]
	return err
}

func (b *bulkInserter) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, b.stmtText(len(b.args)/b.cols), b.args...)
	b.args = b.args[:0]
	return err
}

// taskRow is one row of the tasks table.
type taskRow struct {
	ID, Owner, Tenant, ContextID string
	State                        State
	TS                           int64
}

// NewMessage is a message to append to a task.
type NewMessage struct {
	MessageID string
	Role      string
	Parts     []Part
}

// Create inserts a new task with its first messages and artifacts, in one
// transaction.
func (s *Store) Create(ctx context.Context, t taskRow, msgs []NewMessage, arts []Artifact) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tasks (id, owner, tenant, context_id, state, ts_us) VALUES (?, ?, ?, ?, ?, ?)`,
			t.ID, t.Owner, t.Tenant, t.ContextID, int(t.State), t.TS); err != nil {
			return err
		}
		return appendRows(ctx, tx, t.ID, msgs, arts)
	})
}

// Update sets a task's state and timestamp and appends messages and
// artifacts, in one transaction.
func (s *Store) Update(ctx context.Context, id string, state State, ts int64, msgs []NewMessage, arts []Artifact) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET state = ?, ts_us = ? WHERE id = ?`, int(state), ts, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return &Error{Kind: KindTaskNotFound, Field: "id", Message: "id: task " + id + " not found"}
		}
		return appendRows(ctx, tx, id, msgs, arts)
	})
}

func appendRows(ctx context.Context, tx *sql.Tx, id string, msgs []NewMessage, arts []Artifact) error {
	for _, m := range msgs {
		parts, err := json.Marshal(m.Parts)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages (task_id, seq, message_id, role, parts)
			VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE task_id = ?), ?, ?, ?)`,
			id, id, m.MessageID, m.Role, string(parts)); err != nil {
			return err
		}
	}
	for _, a := range arts {
		parts, err := json.Marshal(a.Parts)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO artifacts (task_id, seq, artifact_id, name, parts)
			VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM artifacts WHERE task_id = ?), ?, ?, ?)`,
			id, id, a.ArtifactID, a.Name, string(parts)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.gen.Add(1)
	return nil
}

// Get returns one task row. The owner and tenant scope is part of the
// query, so a task outside it is simply not found (LT-AUTHZ-5, LT-AUTHZ-6).
// An empty owner means no scope at all (the control API's view).
func (s *Store) Get(ctx context.Context, owner, tenant, id string) (taskRow, error) {
	sc := anyScope
	if owner != "" {
		sc = ownerScope(owner, tenant)
	}
	return s.get(ctx, sc, id)
}

// get returns the task row id if it is in scope sc.
func (s *Store) get(ctx context.Context, sc scope, id string) (taskRow, error) {
	q := `SELECT id, owner, tenant, context_id, state, ts_us FROM tasks WHERE id = ? AND ` + sc.cond
	args := append([]any{id}, sc.args...)
	var t taskRow
	err := s.r.QueryRowContext(ctx, q, args...).Scan(&t.ID, &t.Owner, &t.Tenant, &t.ContextID, &t.State, &t.TS)
	if errors.Is(err, sql.ErrNoRows) {
		return t, &Error{Kind: KindTaskNotFound, Field: "id", Message: "id: task " + id + " not found"}
	}
	return t, err
}

// Messages returns the last limit messages of a task in chronological
// order; limit < 0 means all of them.
func (s *Store) Messages(ctx context.Context, taskID, contextID string, limit int) ([]Message, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT message_id, role, parts FROM messages WHERE task_id = ? ORDER BY seq DESC LIMIT ?`, taskID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var parts string
		if err := rows.Scan(&m.MessageID, &m.Role, &parts); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(parts), &m.Parts); err != nil {
			return nil, err
		}
		m.TaskID, m.ContextID = taskID, contextID
		out = append(out, m)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, rows.Err()
}

// Artifacts returns all artifacts of a task, oldest first.
func (s *Store) Artifacts(ctx context.Context, taskID string) ([]Artifact, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT artifact_id, name, parts FROM artifacts WHERE task_id = ? ORDER BY seq`, taskID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Artifact{}
	for rows.Next() {
		var a Artifact
		var parts string
		if err := rows.Scan(&a.ArtifactID, &a.Name, &parts); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(parts), &a.Parts); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Reset deletes every task, message and artifact, and returns how many
// tasks there were.
func (s *Store) Reset(ctx context.Context) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM tasks")
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		for _, t := range []string{"messages", "artifacts"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
				return err
			}
		}
		return nil
	})
	s.counts.Clear()
	return int(n), err
}

// DeleteScoped deletes the tasks whose id starts with idPrefix (if not
// empty) or whose context is one of contextIDs, with their messages and
// artifacts, and returns how many tasks it deleted.
func (s *Store) DeleteScoped(ctx context.Context, idPrefix string, contextIDs []string) (int, error) {
	var conds []string
	var args []any
	if idPrefix != "" {
		// substr, not LIKE: ids may hold % and _.
		conds = append(conds, "substr(id, 1, ?) = ?")
		args = append(args, len(idPrefix), idPrefix)
	}
	if len(contextIDs) > 0 {
		conds = append(conds, "context_id IN ("+strings.TrimSuffix(strings.Repeat("?,", len(contextIDs)), ",")+")")
		for _, c := range contextIDs {
			args = append(args, c)
		}
	}
	if len(conds) == 0 {
		return 0, nil
	}
	where := strings.Join(conds, " OR ")
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		for _, t := range []string{"messages", "artifacts"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE task_id IN (SELECT id FROM tasks WHERE "+where+")", args...); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM tasks WHERE "+where, args...)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	s.counts.Clear()
	return int(n), err
}

// GetMeta reads a value from the meta table; ok is false when absent.
func (s *Store) GetMeta(ctx context.Context, k string) (v string, ok bool, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT v FROM meta WHERE k = ?`, k).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, err
}

// SetMeta writes a value to the meta table.
func (s *Store) SetMeta(ctx context.Context, k, v string) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, k, v)
	return err
}

// Count returns how many rows the listing q holds. Results are cached per
// query until the next write, so a walk's first page costs one index count
// only when something changed.
func (s *Store) Count(ctx context.Context, q listQuery) (int64, error) {
	sqlText, args := q.countSQL()
	key := fmt.Sprintf("%s %#v", sqlText, args)
	gen := s.gen.Load()
	if e, ok := s.counts.Load(key); ok && e.(countEntry).gen == gen {
		return e.(countEntry).n, nil
	}
	var n int64
	if err := s.r.QueryRowContext(ctx, sqlText, args...).Scan(&n); err != nil {
		return 0, err
	}
	if s.nCount.Add(1) > 10000 { // bound the cache
		s.counts.Clear()
		s.nCount.Store(0)
	}
	s.counts.Store(key, countEntry{gen, n})
	return n, nil
}

// List runs one page query of the listing q.
func (s *Store) List(ctx context.Context, q listQuery, p pageSpec) ([]taskRow, error) {
	sqlText, args := q.pageSQL(p)
	rows, err := s.r.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]taskRow, 0, min(max(p.limit, 0), 1024))
	for rows.Next() {
		var t taskRow
		if err := rows.Scan(&t.ID, &t.Owner, &t.Tenant, &t.ContextID, &t.State, &t.TS); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
