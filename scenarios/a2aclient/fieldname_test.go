package a2aclient

import (
	"slices"
	"testing"
)

func TestFieldWords(t *testing.T) {
	for field, want := range map[string][]string{
		"pageSize":             {"page", "size"},
		"statusTimestampAfter": {"status", "timestamp", "after"},
		"page_size":            {"page", "size"},
		"taskID":               {"task", "id"},
		"HTTPStatus":           {"http", "status"},
		"id":                   {"id"},
		"":                     nil,
	} {
		if got := fieldWords(field); !slices.Equal(got, want) {
			t.Errorf("fieldWords(%q) = %q, want %q", field, got, want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		text, field string
		want        bool
	}{
		// The JSON name, as before.
		{"pageSize: must be between 1 and 100", "pageSize", true},
		{`invalid pageToken "zz"`, "pageToken", true},
		// The field's words (a2a-go v2.3.1's message names pageSize so).
		{"failed to list tasks: page size must be between 1 and 100 inclusive, got -1: invalid request", "pageSize", true},
		{"Page Size out of range", "pageSize", true},
		{"PAGESIZE too large", "pageSize", true},
		{"page_size must be positive", "pageSize", true},
		{"page-size must be positive", "pageSize", true},
		{"json: cannot unmarshal string into Go struct field ListTasksRequest.PageSize of type int", "pageSize", true},
		{"params.pageSize: out of range", "pageSize", true},
		{"status timestamp after is not a timestamp", "statusTimestampAfter", true},
		{"history length must be non-negative", "historyLength", true},
		{"bad status_timestamp_after", "statusTimestampAfter", true},
		{"invalid page token", "pageToken", true},
		// Messages that do not name it.
		{"failed to list tasks: parse error", "pageToken", false},
		{"invalid request", "pageSize", false},
		{"page must be positive", "pageSize", false},
		{"size too large", "pageSize", false},
		{"maxPageSize exceeded", "pageSize", false},
		{"max_page_size exceeded", "pageSize", false},
		{"pageSizes must be listed", "pageSize", false},
		{"size page", "pageSize", false},
		{`parsing time "2026-13-45T99:00:00Z": month out of range`, "statusTimestampAfter", false},
		{"status timestamp is required", "statusTimestampAfter", false},
		{"anything", "", false},
	} {
		if got := Names(c.text, c.field); got != c.want {
			t.Errorf("Names(%q, %q) = %v, want %v", c.text, c.field, got, c.want)
		}
	}
}

func TestNamesFieldInViolations(t *testing.T) {
	e := &ProtoError{Message: "invalid", Fields: []string{"params.page_size"}}
	if !e.NamesField("pageSize") {
		t.Error("a BadRequest violation on params.page_size names pageSize")
	}
	if e.NamesField("pageToken") {
		t.Error("a violation on page_size does not name pageToken")
	}
}
