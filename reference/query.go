package reference

import "strings"

// listQuery is one ListTasks page query: the scope, the filters and the
// position to continue from. pageSQL renders it as a keyset seek:
//
//	ts_us <= ? AND (ts_us < ? OR (ts_us = ? AND id < ?))
//
// The redundant first term gives SQLite a range bound on the index, so the
// seek is one index range scan at any depth; the OR only filters the rows
// that tie with the cursor's timestamp.
type listQuery struct {
	owner, tenant  string
	contextID      string
	state          State
	after          int64
	afterSet       bool
	afterExclusive bool
	seek           bool
	seekTS         int64
	seekID         string
	offset         int64
	limit          int
	filterKey      [16]byte

	// fault and variant switches
	unscoped       bool // no owner scope (unscoped-list fault)
	unscopedTenant bool // no tenant scope (unscoped-tenant fault)
	offsetCursor   bool
	timestampOnly  bool
	ascending      bool
	tieAscending   bool
}

// index returns the composite index that serves the query's equality
// filters with (ts_us DESC, id DESC) order.
func (q listQuery) index() string {
	switch {
	case q.contextID != "" && q.state != StateUnspecified:
		return "tasks_by_context_state"
	case q.contextID != "":
		return "tasks_by_context"
	case q.state != StateUnspecified:
		return "tasks_by_state"
	}
	return "tasks_by_owner"
}

func (q listQuery) where(withSeek bool) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString(" FROM tasks")
	faulty := q.unscoped || q.unscopedTenant || q.ascending || q.tieAscending
	if !faulty {
		// INDEXED BY pins the plan that the EXPLAIN test checks; a query the
		// index cannot serve fails loudly instead of silently sorting.
		b.WriteString(" INDEXED BY " + q.index())
	}
	switch {
	case q.unscoped:
		b.WriteString(" WHERE tenant = ?")
		args = append(args, q.tenant)
	case q.unscopedTenant:
		b.WriteString(" WHERE owner = ?")
		args = append(args, q.owner)
	default:
		b.WriteString(" WHERE owner = ? AND tenant = ?")
		args = append(args, q.owner, q.tenant)
	}
	if q.contextID != "" {
		b.WriteString(" AND context_id = ?")
		args = append(args, q.contextID)
	}
	if q.state != StateUnspecified {
		b.WriteString(" AND state = ?")
		args = append(args, int(q.state))
	}
	if q.afterSet {
		if q.afterExclusive {
			b.WriteString(" AND ts_us > ?")
		} else {
			b.WriteString(" AND ts_us >= ?")
		}
		args = append(args, q.after)
	}
	if withSeek && q.seek && !q.offsetCursor {
		switch {
		case q.timestampOnly:
			b.WriteString(" AND ts_us < ?")
			args = append(args, q.seekTS)
		case q.ascending:
			b.WriteString(" AND ts_us >= ? AND (ts_us > ? OR (ts_us = ? AND id > ?))")
			args = append(args, q.seekTS, q.seekTS, q.seekTS, q.seekID)
		case q.tieAscending:
			b.WriteString(" AND ts_us <= ? AND (ts_us < ? OR (ts_us = ? AND id > ?))")
			args = append(args, q.seekTS, q.seekTS, q.seekTS, q.seekID)
		default:
			b.WriteString(" AND ts_us <= ? AND (ts_us < ? OR (ts_us = ? AND id < ?))")
			args = append(args, q.seekTS, q.seekTS, q.seekTS, q.seekID)
		}
	}
	return b.String(), args
}

// pageSQL renders the page query, fetching limit+1 rows so that one query
// tells whether another page exists.
func (q listQuery) pageSQL() (string, []any) {
	where, args := q.where(true)
	order := " ORDER BY ts_us DESC, id DESC"
	switch {
	case q.ascending:
		order = " ORDER BY ts_us ASC, id ASC"
	case q.tieAscending:
		order = " ORDER BY ts_us DESC, id ASC"
	}
	s := "SELECT id, owner, tenant, context_id, state, ts_us" + where + order + " LIMIT ?"
	args = append(args, q.limit+1)
	if q.offsetCursor && q.offset > 0 {
		s += " OFFSET ?"
		args = append(args, q.offset)
	}
	return s, args
}

// countSQL renders the totalSize query: the filters without the seek.
func (q listQuery) countSQL() (string, []any) {
	where, args := q.where(false)
	return "SELECT COUNT(*)" + where, args
}
