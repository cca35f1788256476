package reference

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkParamError fails unless e names its parameter: a field, and a
// message that starts with it.
func checkParamError(t *testing.T, e *Error) {
	t.Helper()
	if e.Field == "" || !strings.HasPrefix(e.Message, e.Field+": ") {
		t.Fatalf("an error that does not name its parameter: %+v", e)
	}
	if e.Kind != KindInvalidParams {
		t.Fatalf("a parameter error of kind %v: %+v", e.Kind, e)
	}
}

// checkList checks what the parser accepted: the proto's ranges, and
// parameters that are UTF-8 text.
func checkList(t *testing.T, p ListParams) {
	t.Helper()
	if p.PageSize < MinPageSize || p.PageSize > MaxPageSize {
		t.Fatalf("accepted pageSize %d", p.PageSize)
	}
	if p.HistoryLength < 0 || (!p.HistorySet && p.HistoryLength != 0) {
		t.Fatalf("accepted historyLength %d (set %v)", p.HistoryLength, p.HistorySet)
	}
	for name, v := range map[string]string{"tenant": p.Tenant, "contextId": p.ContextID, "pageToken": p.PageToken} {
		if !utf8.ValidString(v) {
			t.Fatalf("accepted %s %q, which is not UTF-8", name, v)
		}
	}
	if p.Status < StateUnspecified || p.Status > StateAuthRequired {
		t.Fatalf("accepted status %d", p.Status)
	}
}

// listAsJSON and listAsQuery write accepted parameters back in each
// binding's form.
func listAsJSON(p ListParams) []byte {
	m := map[string]any{"tenant": p.Tenant, "contextId": p.ContextID, "pageToken": p.PageToken, "includeArtifacts": p.IncludeArtifacts}
	if p.Status != StateUnspecified {
		m["status"] = p.Status.String()
	}
	if p.PageSizeSet {
		m["pageSize"] = p.PageSize
	}
	if p.HistorySet {
		m["historyLength"] = p.HistoryLength
	}
	if p.AfterSet {
		m["statusTimestampAfter"] = FormatTimestamp(p.After)
	}
	b, _ := json.Marshal(m)
	return b
}

func listAsQuery(p ListParams) string {
	q := url.Values{"tenant": {p.Tenant}, "contextId": {p.ContextID}, "pageToken": {p.PageToken},
		"includeArtifacts": {strconv.FormatBool(p.IncludeArtifacts)}}
	if p.Status != StateUnspecified {
		q.Set("status", p.Status.String())
	}
	if p.PageSizeSet {
		q.Set("pageSize", strconv.Itoa(p.PageSize))
	}
	if p.HistorySet {
		q.Set("historyLength", strconv.Itoa(p.HistoryLength))
	}
	if p.AfterSet {
		q.Set("statusTimestampAfter", FormatTimestamp(p.After))
	}
	return q.Encode()
}

// checkBothBindings: parameters one binding accepted, written in either
// binding's form, parse to the same request (LT-OP-8).
func checkBothBindings(t *testing.T, p ListParams) {
	t.Helper()
	jp, e := parseJSONParams(listAsJSON(p))
	if e != nil {
		t.Fatalf("JSON form of %+v: %v", p, e)
	}
	fromJSON, e := parseList(jp, strictParams{})
	if e != nil || fromJSON != p {
		t.Fatalf("JSON form of %+v parses to %+v, %v", p, fromJSON, e)
	}
	qv, e := parseQuery(listAsQuery(p))
	if e != nil {
		t.Fatalf("query form of %+v: %v", p, e)
	}
	fromQuery, e := parseList(queryParams(qv), strictParams{})
	if e != nil || fromQuery != p {
		t.Fatalf("query form of %+v parses to %+v, %v", p, fromQuery, e)
	}
}

// FuzzJSONRPCParams fuzzes the JSON-RPC binding's parameter parser with
// arbitrary params: it never panics, every refusal is invalid params naming
// its parameter, what it accepts is in range and UTF-8, and accepted
// parameters mean the same on both bindings.
func FuzzJSONRPCParams(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"pageSize":5,"status":"TASK_STATE_WORKING","historyLength":0}`,
		`{"pageSize":"7","status":3,"statusTimestampAfter":"2026-01-01T00:00:00.5Z","includeArtifacts":true}`,
		`{"contextId":"\ud83d\ude00","tenant":"t","pageToken":"AQ"}`, `{"pageSize":1e2}`, `{"historyLength":-1}`,
		`{"contextId":"\ud800"}`, "{\"contextId\":\"\xff\"}", `{"id":"a","historyLength":2}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		jp, e := parseJSONParams(json.RawMessage(params))
		if e != nil {
			checkParamError(t, e)
			return
		}
		if g, e := parseGet(jp, strictParams{}, true); e != nil {
			checkParamError(t, e)
		} else if g.ID == "" || !utf8.ValidString(g.ID) || g.HistoryLength < 0 {
			t.Fatalf("GetTask accepted %+v", g)
		}
		p, e := parseList(jp, strictParams{})
		if e != nil {
			checkParamError(t, e)
			return
		}
		checkList(t, p)
		checkBothBindings(t, p)
	})
}

// FuzzQueryParams fuzzes the HTTP+JSON binding's parameter parser with
// arbitrary query strings, with the same properties as FuzzJSONRPCParams.
func FuzzQueryParams(f *testing.F) {
	for _, s := range []string{
		"", "pageSize=2&historyLength=1&status=TASK_STATE_COMPLETED", "pageToken=%ZZ&includeArtifacts=maybe",
		"contextId=%ff", "pageSize=1&pageSize=2", "a;b=c", "statusTimestampAfter=2026-01-01T00%3A00%3A00Z",
		"status=3&tenant=x&contextId=%F0%9F%98%80", "pageSize=+5", "historyLength=-0", "=&&=x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		qv, e := parseQuery(raw)
		if e != nil {
			checkParamError(t, e)
			return
		}
		if g, e := parseGet(withValues{queryParams(qv), map[string]string{"id": "x"}}, strictParams{}, true); e != nil {
			checkParamError(t, e)
		} else if g.ID != "x" || g.HistoryLength < 0 {
			t.Fatalf("GetTask accepted %+v", g)
		}
		p, e := parseList(queryParams(qv), strictParams{})
		if e != nil {
			checkParamError(t, e)
			return
		}
		checkList(t, p)
		checkBothBindings(t, p)
	})
}
