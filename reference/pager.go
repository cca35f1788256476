package reference

import (
	"bytes"
	"context"
	"encoding/binary"
)

// keysetPager is the clean seek strategy: newest first, ties broken by id
// descending, and each page starts strictly after the (status timestamp,
// id) of the last row served:
//
//	ts_us <= ? AND (ts_us < ? OR (ts_us = ? AND id < ?))
//
// The redundant first term gives SQLite a range bound on the index, so the
// seek is one index range scan at any depth; the OR only filters the rows
// that tie with the cursor's timestamp. Its cursor is that (timestamp, id)
// pair.
type keysetPager struct{}

const (
	keysetOrder = "ts_us DESC, id DESC"
	keysetSeek  = "ts_us <= ? AND (ts_us < ? OR (ts_us = ? AND id < ?))"
)

func (keysetPager) page(ctx context.Context, st *Store, q listQuery, cursor string, limit int) ([]taskRow, string, error) {
	spec := pageSpec{order: keysetOrder, limit: limit + 1, indexed: true}
	if cursor != "" {
		ts, id, ok := decodeKeyset(cursor)
		if !ok {
			return nil, "", errMalformed
		}
		spec.seek, spec.args = keysetSeek, []any{ts, ts, ts, id}
	}
	rows, err := st.List(ctx, q, spec)
	if err != nil {
		return nil, "", err
	}
	rows, more := trimPage(rows, limit)
	if !more {
		return rows, "", nil
	}
	return rows, keysetCursor(rows[len(rows)-1]), nil
}

// trimPage cuts rows (fetched with one row to spare) to limit and says
// whether another page follows. A page without rows has no next page: there
// is no row to continue after.
func trimPage(rows []taskRow, limit int) ([]taskRow, bool) {
	if limit < 0 {
		limit = 0
	}
	if len(rows) <= limit {
		return rows, false
	}
	rows = rows[:limit]
	return rows, len(rows) > 0
}

// keysetCursor encodes the position after row r: its status timestamp and
// id.
func keysetCursor(r taskRow) string {
	var b bytes.Buffer
	putVarint(&b, r.TS)
	b.WriteString(r.ID)
	return b.String()
}

// decodeKeyset reads a cursor written by keysetCursor.
func decodeKeyset(c string) (ts int64, id string, ok bool) {
	ts, n := binary.Varint([]byte(c))
	if n <= 0 {
		return 0, "", false
	}
	return ts, c[n:], true
}
