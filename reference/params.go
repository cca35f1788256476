package reference

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ListParams is a validated ListTasks request, whichever binding it came
// from.
type ListParams struct {
	Tenant           string
	ContextID        string // "" means no filter (proto3 string default)
	Status           State  // StateUnspecified means no filter
	PageSize         int
	PageSizeSet      bool
	PageToken        string
	HistoryLength    int
	HistorySet       bool
	After            int64 // µs
	AfterSet         bool
	IncludeArtifacts bool
}

// filterHash hashes the filter set a page token is bound to: contextId,
// status, statusTimestampAfter, historyLength and includeArtifacts.
func (p ListParams) filterHash() [16]byte {
	var b bytes.Buffer
	putString(&b, p.ContextID)
	putUvarint(&b, uint64(p.Status))
	if p.AfterSet {
		b.WriteByte(1)
		putVarint(&b, p.After)
	} else {
		b.WriteByte(0)
	}
	if p.HistorySet {
		b.WriteByte(1)
		putVarint(&b, int64(p.HistoryLength))
	} else {
		b.WriteByte(0)
	}
	if p.IncludeArtifacts {
		b.WriteByte(1)
	} else {
		b.WriteByte(0)
	}
	sum := sha256.Sum256(b.Bytes())
	var out [16]byte
	copy(out[:], sum[:])
	return out
}

// GetParams is a validated GetTask (or CancelTask) request.
type GetParams struct {
	Tenant        string
	ID            string
	HistoryLength int
	HistorySet    bool
}

// paramSource abstracts over a JSON-RPC params object and an HTTP query
// string, so both bindings share one validator and report the same error
// for the same input (LT-OP-8).
type paramSource interface {
	// str returns a string field; present is false when absent or null.
	str(name string) (v string, present bool, err *Error)
	integer(name string) (v int64, present bool, err *Error)
	boolean(name string) (v bool, present bool, err *Error)
	// enum returns an enum field as text: its name, or its number in
	// decimal (ProtoJSON accepts both).
	enum(name string) (v string, present bool, err *Error)
}

type jsonParams map[string]json.RawMessage

func parseJSONParams(raw json.RawMessage) (jsonParams, *Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return jsonParams{}, nil
	}
	if raw[0] != '{' {
		return nil, &Error{Kind: KindInvalidParams, Field: "params", Message: "params: must be a JSON object"}
	}
	var m jsonParams
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &Error{Kind: KindInvalidParams, Field: "params", Message: "params: " + err.Error()}
	}
	return m, nil
}

func (m jsonParams) get(name string) (json.RawMessage, bool) {
	v, ok := m[name]
	if !ok || bytes.Equal(v, []byte("null")) {
		return nil, false
	}
	return v, true
}

func (m jsonParams) str(name string) (string, bool, *Error) {
	v, ok := m.get(name)
	if !ok {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false, invalidParam(name, "must be a string, got %s", abbreviate(v))
	}
	if !validJSONText(v) {
		return "", false, invalidUTF8(name)
	}
	return s, true, nil
}

func (m jsonParams) integer(name string) (int64, bool, *Error) {
	v, ok := m.get(name)
	if !ok {
		return 0, false, nil
	}
	// ProtoJSON accepts an int32 as a JSON number or a numeric string.
	text := string(v)
	if len(v) > 0 && v[0] == '"' {
		if err := json.Unmarshal(v, &text); err != nil {
			return 0, false, invalidParam(name, "must be an integer, got %s", abbreviate(v))
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(text, 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
			return 0, false, invalidParam(name, "must be an integer, got %s", abbreviate(v))
		}
		n = int64(f)
	}
	if n > math.MaxInt32 || n < math.MinInt32 {
		return 0, false, invalidParam(name, "must fit in a 32-bit integer, got %s", abbreviate(v))
	}
	return n, true, nil
}

func (m jsonParams) boolean(name string) (bool, bool, *Error) {
	v, ok := m.get(name)
	if !ok {
		return false, false, nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		return false, false, invalidParam(name, "must be true or false, got %s", abbreviate(v))
	}
	return b, true, nil
}

func (m jsonParams) enum(name string) (string, bool, *Error) {
	v, ok := m.get(name)
	if !ok || v[0] == '"' {
		return m.str(name)
	}
	n, set, e := m.integer(name)
	if e != nil {
		return "", false, invalidParam(name, "must be an enum name or number, got %s", abbreviate(v))
	}
	return strconv.FormatInt(n, 10), set, nil
}

type queryParams url.Values

func (q queryParams) one(name string) (string, bool, *Error) {
	vs, ok := q[name]
	if !ok {
		return "", false, nil
	}
	if len(vs) > 1 {
		return "", false, invalidParam(name, "given %d times; give it at most once", len(vs))
	}
	if !utf8.ValidString(vs[0]) {
		return "", false, invalidUTF8(name)
	}
	return vs[0], true, nil
}

func (q queryParams) str(name string) (string, bool, *Error) { return q.one(name) }

func (q queryParams) enum(name string) (string, bool, *Error) { return q.one(name) }

func (q queryParams) integer(name string) (int64, bool, *Error) {
	s, ok, e := q.one(name)
	if !ok || e != nil {
		return 0, false, e
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false, invalidParam(name, "must be a 32-bit integer, got %q", abbreviateStr(s))
	}
	return n, true, nil
}

func (q queryParams) boolean(name string) (bool, bool, *Error) {
	s, ok, e := q.one(name)
	if !ok || e != nil {
		return false, false, e
	}
	switch s {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, invalidParam(name, "must be true or false, got %q", abbreviateStr(s))
}

// Page-size bounds from the ListTasksRequest proto comment (LT-REQ-4).
const (
	DefaultPageSize = 50
	MinPageSize     = 1
	MaxPageSize     = 100
)

// parseList validates a ListTasks request. The range rules of pageSize and
// historyLength, and the values status takes, come from pol.
func parseList(src paramSource, pol paramPolicy) (ListParams, *Error) {
	var p ListParams
	var e *Error
	if p.Tenant, _, e = src.str("tenant"); e != nil {
		return p, e
	}
	if p.ContextID, _, e = src.str("contextId"); e != nil {
		return p, e
	}
	if e = parseStatus(src, pol, &p); e != nil {
		return p, e
	}
	n, set, e := src.integer("pageSize")
	if e != nil {
		return p, e
	}
	var problem string
	if p.PageSize, problem = pol.pageSize(n, set); problem != "" {
		return p, invalidParam("pageSize", "%s", problem)
	}
	p.PageSizeSet = set
	if p.PageToken, _, e = src.str("pageToken"); e != nil {
		return p, e
	}
	if p.HistoryLength, p.HistorySet, e = parseHistoryAs(src, pol, "historyLength"); e != nil {
		return p, e
	}
	ts, set, e := src.str("statusTimestampAfter")
	if e != nil {
		return p, e
	}
	if set {
		us, err := ParseTimestamp(ts)
		if err != nil {
			return p, invalidParam("statusTimestampAfter", "must be an RFC 3339 timestamp such as 2026-10-02T09:14:03.118Z, got %q", abbreviateStr(ts))
		}
		p.After, p.AfterSet = us, true
	}
	if p.IncludeArtifacts, _, e = src.boolean("includeArtifacts"); e != nil {
		return p, e
	}
	return p, nil
}

func parseStatus(src paramSource, pol paramPolicy, p *ListParams) *Error {
	s, set, e := src.enum("status")
	if e != nil || !set {
		return e
	}
	st, problem := pol.status(s)
	if problem != "" {
		return invalidParam("status", "%s", problem)
	}
	p.Status = st
	return nil
}

// parseHistoryAs reads historyLength from src and reports errors under
// field (for example configuration.historyLength).
func parseHistoryAs(src paramSource, pol paramPolicy, field string) (int, bool, *Error) {
	n, set, e := src.integer("historyLength")
	if e != nil {
		return 0, false, invalidParam(field, "%s", strings.TrimPrefix(e.Message, "historyLength: "))
	}
	length, isSet, problem := pol.historyLength(n, set)
	if problem != "" {
		return 0, false, invalidParam(field, "%s", problem)
	}
	return length, isSet, nil
}

// parseGet validates a GetTask or CancelTask request; id comes from the
// path for HTTP+JSON and from params for JSON-RPC.
func parseGet(src paramSource, pol paramPolicy, withHistory bool) (GetParams, *Error) {
	var p GetParams
	var e *Error
	var set bool
	if p.Tenant, _, e = src.str("tenant"); e != nil {
		return p, e
	}
	if p.ID, set, e = src.str("id"); e != nil {
		return p, e
	}
	if !set || p.ID == "" {
		return p, invalidParam("id", "is required")
	}
	if withHistory {
		if p.HistoryLength, p.HistorySet, e = parseHistoryAs(src, pol, "historyLength"); e != nil {
			return p, e
		}
	}
	return p, nil
}

func abbreviate(v json.RawMessage) string { return abbreviateStr(string(v)) }

func abbreviateStr(s string) string {
	if len(s) > 64 {
		return s[:61] + "..."
	}
	return s
}

// withValues overlays fixed values (path parameters: tenant, id) on a
// parameter source.
type withValues struct {
	paramSource
	vals map[string]string
}

func (w withValues) str(name string) (string, bool, *Error) {
	if v, ok := w.vals[name]; ok {
		if !utf8.ValidString(v) {
			return "", false, invalidUTF8(name)
		}
		return v, true, nil
	}
	return w.paramSource.str(name)
}

// invalidUTF8 is the error for a string parameter that is not UTF-8 text.
func invalidUTF8(name string) *Error {
	return invalidParam(name, "must be valid UTF-8 text")
}

// validJSONText reports whether raw JSON text is valid UTF-8 and escapes
// no lone UTF-16 surrogate (encoding/json would quietly turn either into
// U+FFFD, changing the value the client sent).
func validJSONText(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	// Backslashes occur in JSON only inside strings, as escapes.
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+1 < len(raw) && raw[i+1] != 'u' {
			i++
			continue
		}
		r, ok := hex4(raw, i+2)
		if !ok {
			return true // not JSON: the decoder reports it
		}
		i += 5
		switch {
		case r >= 0xD800 && r < 0xDC00: // a high surrogate needs a low one next
			lo, ok := hex4(raw, i+3)
			if i+2 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' || !ok || lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 6
		case r >= 0xDC00 && r <= 0xDFFF:
			return false
		}
	}
	return true
}

// hex4 reads four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(raw) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	return rune(n), err == nil
}

// parseQuery parses a raw query string like url.ParseQuery, but refuses
// what url.ParseQuery drops silently: a pair with a bad percent-escape, or
// a semicolon separator. The error names the parameter.
func parseQuery(raw string) (url.Values, *Error) {
	v := url.Values{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		rawKey, rawVal, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(rawKey)
		if err != nil {
			return nil, invalidParam(abbreviateStr(rawKey), "not a valid query parameter name: %v", err)
		}
		name := key
		if name == "" {
			name = "query" // a pair without a name: "=x"
		}
		if strings.Contains(pair, ";") {
			return nil, invalidParam(name, "a semicolon is not a query separator; use &")
		}
		val, err := url.QueryUnescape(rawVal)
		if err != nil {
			return nil, invalidParam(name, "bad percent-escape in the value: %v", err)
		}
		v[key] = append(v[key], val)
	}
	return v, nil
}
