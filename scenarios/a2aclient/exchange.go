package a2aclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Exchange is one request and its response exactly as they crossed the wire.
// Headers are not kept, so bearer tokens never reach a transcript or report.
type Exchange struct {
	Op         string  `json:"op"`
	Binding    Binding `json:"binding"`
	Principal  string  `json:"principal,omitempty"`
	HTTPMethod string  `json:"httpMethod"`
	URL        string  `json:"url"`
	ReqBody    string  `json:"requestBody,omitempty"`
	Status     int     `json:"status"`
	// ContentType is the reply's Content-Type header ("" when absent).
	ContentType string `json:"responseContentType,omitempty"`
	// RespBody is the reply body, or its first KeptResponseBytes when it
	// was longer; RespTotal is then the full length (0 when RespBody is
	// whole).
	RespBody  string    `json:"responseBody,omitempty"`
	RespTotal int64     `json:"responseBytes,omitempty"`
	Sent      time.Time `json:"sent"`
	Received  time.Time `json:"received"`
	Err       string    `json:"transportError,omitempty"`
}

// Transcript renders the exchange as a short wire transcript for witnesses.
func (x *Exchange) Transcript() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--> %s %s", x.HTTPMethod, x.URL)
	if x.ReqBody != "" {
		fmt.Fprintf(&b, "\n    %s", abbreviate(x.ReqBody, 600))
	}
	if x.Err != "" {
		fmt.Fprintf(&b, "\n<-- transport error: %s", x.Err)
		return b.String()
	}
	fmt.Fprintf(&b, "\n<-- %d %s", x.Status, abbreviate(x.RespBody, 1200))
	if x.RespTotal > 0 {
		fmt.Fprintf(&b, "\n    (the reply was %d bytes; the first %d were kept)", x.RespTotal, len(x.RespBody))
	}
	return b.String()
}

// keepBody keeps body, or its first KeptResponseBytes (cut at a UTF-8
// boundary) and its full length: a witness needs the start of a reply, and
// the transcript of a huge one must not hold it all.
func (x *Exchange) keepBody(body []byte) {
	x.RespTotal = 0
	if len(body) > KeptResponseBytes {
		x.RespTotal = int64(len(body))
		n := KeptResponseBytes
		for n > KeptResponseBytes-utf8.UTFMax && !utf8.RuneStart(body[n]) {
			n--
		}
		body = body[:n]
	}
	x.RespBody = string(body)
}

// replyBytes is the length of the reply body.
func (x *Exchange) replyBytes() int64 { return max(x.RespTotal, int64(len(x.RespBody))) }

// replyKind names a reply in a malformed-reply message: "reply " for a
// success status, else its status and Content-Type (an HTML error page from
// a proxy reads very differently from a broken JSON-RPC server).
func (x *Exchange) replyKind() string {
	if x.Status == 0 || (x.Status >= 200 && x.Status <= 299) {
		return "reply "
	}
	ct := x.ContentType
	if ct == "" {
		ct = "no Content-Type"
	}
	return fmt.Sprintf("HTTP %d %s reply (%s) ", x.Status, http.StatusText(x.Status), ct)
}
func abbreviate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d more bytes)", len(s)-n)
}

// oneLine renders the start of body on one line, whitespace runs collapsed,
// at most n bytes and a note of the full size: a proxy's HTML error page
// then reads in a one-line summary.
func oneLine(body []byte, n int) string {
	head := body[:min(len(body), 4*n)]
	s := strings.Join(strings.Fields(string(head)), " ")
	if len(s) <= n && len(head) == len(body) {
		return s
	}
	return s[:min(len(s), n)] + fmt.Sprintf("... (%d bytes in all)", len(body))
}

// ProtoError is an A2A error decoded from either binding: a JSON-RPC error
// object, or an HTTP+JSON google.rpc.Status body.
type ProtoError struct {
	// Code is the JSON-RPC error code, or the HTTP status for HTTP+JSON.
	Code int
	// Status is the google.rpc status name (HTTP+JSON), if given.
	Status  string
	Message string
	// Fields lists the fields named by google.rpc.BadRequest violations.
	Fields []string
	// Reasons lists google.rpc.ErrorInfo reasons.
	Reasons []string
	// Envelope describes what was wrong with the error body itself, if
	// anything ("" when it was well-formed for its binding).
	Envelope string
	// UntypedDetail is true when a detail object lacks its @type key.
	UntypedDetail bool
}

// Error renders the code, status and message.
func (e *ProtoError) Error() string {
	s := fmt.Sprintf("error %d", e.Code)
	if e.Status != "" {
		s += " " + e.Status
	}
	return s + ": " + e.Message
}

// NamesField reports whether the error names field in a BadRequest
// violation or in its message: by its JSON name, or by its words in any of
// the usual spellings ("page size", "page_size", "PageSize"), as Names
// decides. A message naming only part of it ("page") or a longer name
// ("maxPageSize") does not name it.
func (e *ProtoError) NamesField(field string) bool {
	for _, f := range e.Fields {
		if f == field || Names(f, field) {
			return true
		}
	}
	return Names(e.Message, field)
}

// Fields is a decoded JSON object that remembers which members were present
// and which were null.
type Fields map[string]json.RawMessage

// Has reports whether name is present (null counts as present).
func (f Fields) Has(name string) bool { _, ok := f[name]; return ok }

// IsNull reports whether name is present and null.
func (f Fields) IsNull(name string) bool {
	v, ok := f[name]
	return ok && bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// String returns a string member; ok is false if absent, null or not a
// string.
func (f Fields) String(name string) (string, bool) {
	var s string
	v, present := f[name]
	if !present || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// Int returns an integer member (a JSON number, or a numeric string as
// ProtoJSON allows); ok is false otherwise.
func (f Fields) Int(name string) (int, bool) {
	v, present := f[name]
	if !present {
		return 0, false
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return 0, false
		}
		n = json.Number(s)
	}
	i, err := n.Int64()
	return int(i), err == nil
}

func decodeFields(b []byte) (Fields, error) {
	var f Fields
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	if f == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	return f, nil
}

// parseJSONRPCError decodes a JSON-RPC error object.
func parseJSONRPCError(raw json.RawMessage) *ProtoError {
	var e struct {
		Code    *int            `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	pe := &ProtoError{}
	if err := json.Unmarshal(raw, &e); err != nil {
		pe.Envelope = "error member is not an object: " + err.Error()
		return pe
	}
	if e.Code == nil {
		pe.Envelope = "error.code missing"
	} else {
		pe.Code = *e.Code
	}
	if e.Message == nil {
		pe.Envelope = "error.message missing"
	} else {
		pe.Message = *e.Message
	}
	if len(e.Data) > 0 && !bytes.Equal(e.Data, []byte("null")) {
		var details []map[string]json.RawMessage
		if json.Unmarshal(e.Data, &details) != nil {
			pe.Envelope = "error.data is not an array of objects"
		} else {
			readDetails(pe, details)
		}
	}
	return pe
}

// parseStatusError decodes an HTTP+JSON google.rpc.Status error body.
func parseStatusError(status int, body []byte) *ProtoError {
	pe := &ProtoError{Code: status}
	var doc struct {
		Error *struct {
			Code    *int                         `json:"code"`
			Status  string                       `json:"status"`
			Message *string                      `json:"message"`
			Details []map[string]json.RawMessage `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.Error == nil {
		pe.Envelope = "body is not a google.rpc.Status object {\"error\":{\"code\",\"status\",\"message\",\"details\"}}"
		pe.Message = oneLine(body, 200)
		return pe
	}
	e := doc.Error
	if e.Message != nil {
		pe.Message = *e.Message
	}
	pe.Status = e.Status
	switch {
	case e.Code == nil:
		pe.Envelope = "error.code missing"
	case *e.Code != status:
		pe.Envelope = fmt.Sprintf("error.code %d differs from the HTTP status %d", *e.Code, status)
	}
	readDetails(pe, e.Details)
	return pe
}

func readDetails(pe *ProtoError, details []map[string]json.RawMessage) {
	for _, d := range details {
		var typ string
		if json.Unmarshal(d["@type"], &typ) != nil || typ == "" {
			pe.UntypedDetail = true
			continue
		}
		switch typ {
		case "type.googleapis.com/google.rpc.BadRequest":
			var v []struct {
				Field string `json:"field"`
			}
			json.Unmarshal(d["fieldViolations"], &v)
			for _, f := range v {
				pe.Fields = append(pe.Fields, f.Field)
			}
		case "type.googleapis.com/google.rpc.ErrorInfo":
			var r string
			json.Unmarshal(d["reason"], &r)
			pe.Reasons = append(pe.Reasons, r)
		}
	}
}
