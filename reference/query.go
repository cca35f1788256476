package reference

import "strings"

// scope is the set of task rows a request may read, as an SQL condition.
type scope struct {
	cond string
	args []any
	// indexed is true when cond pins owner and tenant, so the (owner,
	// tenant, ...) indexes can serve the listing.
	indexed bool
}

// ownerScope is the rows of one owner in one tenant: the clean scope of
// every read (LT-AUTHZ-*).
func ownerScope(owner, tenant string) scope {
	return scope{cond: "owner = ? AND tenant = ?", args: []any{owner, tenant}, indexed: true}
}

// anyScope is every row (the control API's view).
var anyScope = scope{cond: "1"}

// listQuery is the listing one ListTasks walk pages through: the scope and
// the filters, without a position. A pager turns it into page queries with
// pageSQL.
type listQuery struct {
	scope     scope
	contextID string // "" means no filter
	state     State  // StateUnspecified means no filter
	after     int64  // statusTimestampAfter, µs
	afterSet  bool
	afterOp   string // ">=" (the proto's inclusive rule) or ">"
	join      filterJoin
}

// filterJoin is how the filters of one listing combine.
type filterJoin string

const (
	// allFilters: a task must match every filter given (the clean rule).
	allFilters filterJoin = "AND"
	// anyFilter: a task matching any one filter given is listed.
	anyFilter filterJoin = "OR"
)

// pageSpec is one page query over a listing: a seek condition (with its
// arguments) that starts the page after the previous one, the order, and
// the limit and offset. An empty order leaves the rows unordered, a
// negative limit reads every row.
type pageSpec struct {
	seek    string
	args    []any
	order   string
	limit   int
	offset  int64
	indexed bool // pin the composite index that serves (ts_us DESC, id DESC)
}

// index returns the composite index that serves the query's equality
// filters with (ts_us DESC, id DESC) order.
func (q listQuery) index() string {
	switch {
	case q.join == anyFilter:
		// Filters joined by OR pin no column beyond the scope.
		return "tasks_by_owner"
	case q.contextID != "" && q.state != StateUnspecified:
		return "tasks_by_context_state"
	case q.contextID != "":
		return "tasks_by_context"
	case q.state != StateUnspecified:
		return "tasks_by_state"
	}
	return "tasks_by_owner"
}

func (q listQuery) where(indexed bool) (string, []any) {
	var b strings.Builder
	args := append([]any(nil), q.scope.args...)
	b.WriteString(" FROM tasks")
	if indexed && q.scope.indexed {
		// INDEXED BY pins the plan that the EXPLAIN test checks; a query the
		// index cannot serve fails loudly instead of silently sorting.
		b.WriteString(" INDEXED BY " + q.index())
	}
	b.WriteString(" WHERE " + q.scope.cond)
	var conds []string
	if q.contextID != "" {
		conds = append(conds, "context_id = ?")
		args = append(args, q.contextID)
	}
	if q.state != StateUnspecified {
		conds = append(conds, "state = ?")
		args = append(args, int(q.state))
	}
	if q.afterSet {
		conds = append(conds, "ts_us "+q.afterOp+" ?")
		args = append(args, q.after)
	}
	switch {
	case len(conds) == 0:
	case q.join == anyFilter:
		b.WriteString(" AND (" + strings.Join(conds, " OR ") + ")")
	default:
		for _, c := range conds {
			b.WriteString(" AND " + c)
		}
	}
	return b.String(), args
}

// pageSQL renders one page query of the listing.
func (q listQuery) pageSQL(p pageSpec) (string, []any) {
	where, args := q.where(p.indexed)
	var b strings.Builder
	b.WriteString("SELECT id, owner, tenant, context_id, state, ts_us")
	b.WriteString(where)
	if p.seek != "" {
		b.WriteString(" AND " + p.seek)
		args = append(args, p.args...)
	}
	if p.order != "" {
		b.WriteString(" ORDER BY " + p.order)
	}
	if p.limit >= 0 {
		b.WriteString(" LIMIT ?")
		args = append(args, p.limit)
	}
	if p.offset > 0 {
		if p.limit < 0 {
			b.WriteString(" LIMIT -1")
		}
		b.WriteString(" OFFSET ?")
		args = append(args, p.offset)
	}
	return b.String(), args
}

// countSQL renders the totalSize query: every row of the listing.
func (q listQuery) countSQL() (string, []any) {
	where, args := q.where(true)
	return "SELECT COUNT(*)" + where, args
}
