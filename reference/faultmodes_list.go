package reference

import (
	"context"
	"strings"
	"time"
)

// The seams of the faults of the "Page shape, filters and task rendering"
// section of faultTable: each breaks one rule of how a ListTasks page is
// cut and shaped, how its filters are read, or how a task is written.

// ---- pagers ----

// overlongPager serves one task more than the page size asked for; its
// walks are otherwise complete and in order.
type overlongPager struct{ pager }

func (p overlongPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	if limit > 0 {
		limit++
	}
	return p.pager.page(ctx, st, q, cursor, limit)
}

// overlapPager is the keyset pager whose next page starts at the last task
// served instead of after it, so each page repeats the previous page's last
// task. A page of one task continues after it (else the walk would never
// move).
type overlapPager struct{}

func (overlapPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	rows, next, err := keysetPager{}.page(ctx, st, q, cursor, limit)
	if err == nil && next != "" && len(rows) >= 2 {
		next = keysetCursor(rows[len(rows)-2])
	}
	return rows, next, err
}

// parityTiePager breaks ties among equal status timestamps by id
// descending when the page size is odd and by id ascending when it is even.
// Each walk is complete and consistent, but two walks with page sizes of
// different parity serve tied tasks in opposite orders.
type parityTiePager struct{}

// idAscendingTies is the keyset pager with ties broken by id ascending.
var idAscendingTies = reorderedPager{order: "ts_us DESC, id ASC", seek: "ts_us <= ? AND (ts_us < ? OR (ts_us = ? AND id > ?))"}

func (parityTiePager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	if limit%2 == 0 {
		return idAscendingTies.page(ctx, st, q, cursor, limit)
	}
	return keysetPager{}.page(ctx, st, q, cursor, limit)
}

// completingPager marks every TASK_STATE_WORKING task a page serves as
// TASK_STATE_COMPLETED, keeping its status timestamp: the page shows the
// task working, the next read shows it completed.
type completingPager struct{ pager }

func (p completingPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	rows, next, err := p.pager.page(ctx, st, q, cursor, limit)
	if err != nil {
		return rows, next, err
	}
	for _, r := range rows {
		if r.State == StateWorking {
			if err := st.Update(ctx, r.ID, StateCompleted, r.TS, nil, nil); err != nil {
				return nil, "", err
			}
		}
	}
	return rows, next, nil
}

// ---- parameter policies ----

// unknownTokenRestarts drops a pageToken that is not a token of the
// reference format at all, so the request lists from the top as if none
// had been given. (A well-formed token with a bad signature is still
// refused.)
type unknownTokenRestarts struct{ paramPolicy }

func (p unknownTokenRestarts) listFilters(binding string, lp *ListParams) {
	p.paramPolicy.listFilters(binding, lp)
	if _, _, _, ok := splitToken(lp.PageToken); lp.PageToken != "" && !ok {
		lp.PageToken = ""
	}
}

// filtersOr lists the tasks that match any one of the filters given.
type filtersOr struct{ paramPolicy }

func (filtersOr) join() filterJoin { return anyFilter }

// unmatchedState is the state an unvalidated status names when it names
// none: no task is in it.
const unmatchedState State = -1

// statusUnvalidated accepts any status; one that names no TaskState
// filters by a state no task is in.
type statusUnvalidated struct{ paramPolicy }

func (p statusUnvalidated) status(v string) (State, string) {
	if st, problem := p.paramPolicy.status(v); problem == "" {
		return st, ""
	}
	return unmatchedState, ""
}

// statusFilterIgnored drops the status filter on both bindings.
type statusFilterIgnored struct{ paramPolicy }

func (p statusFilterIgnored) listFilters(binding string, lp *ListParams) {
	p.paramPolicy.listFilters(binding, lp)
	lp.Status = StateUnspecified
}

// ---- response rewriters ----

// totalSizeOmitted leaves totalSize out of every ListTasks reply.
type totalSizeOmitted struct{ responseRewriter }

func (r totalSizeOmitted) list(resp *ListTasksResponse) any {
	m := wireMap(r.responseRewriter.list(resp))
	delete(m, "totalSize")
	return m
}

// pageSizeEchoCount answers with pageSize the number of tasks served
// instead of the page size used.
type pageSizeEchoCount struct{ responseRewriter }

func (r pageSizeEchoCount) list(resp *ListTasksResponse) any {
	resp.PageSize = len(resp.Tasks)
	return r.responseRewriter.list(resp)
}

// stateShortNames writes the status.state of a task replied alone
// (GetTask, SendMessage, CancelTask) in the pre-1.0 short form
// ("completed", "input-required") instead of its TaskState enum name.
type stateShortNames struct{ responseRewriter }

func (r stateShortNames) task(t Task) Task {
	t = r.responseRewriter.task(t)
	t.Status.State = strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(t.Status.State, "TASK_STATE_"), "_", "-"))
	return t
}

// timestampCentiseconds writes every status timestamp with two fractional
// digits (truncated to centiseconds).
type timestampCentiseconds struct{ responseRewriter }

func (r timestampCentiseconds) list(resp *ListTasksResponse) any {
	for i := range resp.Tasks {
		resp.Tasks[i].Status.Timestamp = centiseconds(resp.Tasks[i].Status.Timestamp)
	}
	return r.responseRewriter.list(resp)
}

func (r timestampCentiseconds) task(t Task) Task {
	t = r.responseRewriter.task(t)
	t.Status.Timestamp = centiseconds(t.Status.Timestamp)
	return t
}

// centiseconds rewrites a timestamp written by FormatTimestamp with two
// fractional digits.
func centiseconds(ts string) string {
	us, err := ParseTimestamp(ts)
	if err != nil {
		return ts
	}
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.00Z")
}
