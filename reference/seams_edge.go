package reference

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// The protocol edge: the two seams between HTTP and an operation. The
// request edge decides how a request reaches an operation (credentials,
// version negotiation, routes and method names, the query string, the
// members a request carries); the reply edge decides what the server
// writes around a result (its media type) and the Agent Card. Like the
// other seams (seams.go), the clean implementations are what the
// zero-option server uses, and a fault mode (faultmodes_protocol.go) swaps
// in a broken one; http.go and card.go only call them.

// requestEdge decides how a request reaches an operation.
type requestEdge interface {
	// authenticate returns the principal whose credentials the
	// Authorization header ("" when absent) carries, or why the request
	// is refused.
	authenticate(authorization string, principals map[string]string) (string, *Error)
	// version judges the requested A2A-Version value (trimmed; "" when the
	// request gives none): nil serves the request as 1.0.
	version(v string) *Error
	// route reports whether the server serves a parsed HTTP+JSON route;
	// false answers 404 like a path with no operation.
	route(rt restRoute) bool
	// method returns the operation a JSON-RPC method name invokes (a name
	// the server does not know is returned as is, and is not found).
	method(name string) string
	// query parses a raw query string (the HTTP+JSON parameters, or the
	// A2A-Version request parameter).
	query(raw string) (url.Values, *Error)
	// rpcParams judges a JSON-RPC request's params member as sent (nil
	// when absent) before the operation reads it.
	rpcParams(op string, raw json.RawMessage) *Error
	// fields judges the names of a request's fields (JSON-RPC params
	// members, HTTP+JSON query parameters) before the operation reads
	// them.
	fields(op string, names []string) *Error
	// absent returns the value a REQUIRED request member takes when the
	// request omits it (ok false: none, the request is refused).
	absent(member string) (v json.RawMessage, ok bool)
}

// replyEdge decides what the server writes around a result.
type replyEdge interface {
	// resultType is the Content-Type of a success reply on binding
	// ("jsonrpc" or "http").
	resultType(binding string) string
	// card adjusts the Agent Card document served at base.
	card(doc map[string]any, base string) map[string]any
}

// ---- the clean implementations ----

// strictEdge is the clean request edge: bearer credentials of a known
// principal, A2A-Version Major.Minor 1.0 (an absent value is 0.3), the
// spec's routes and method names, the query string decoded once, unknown
// fields ignored and every REQUIRED member required.
type strictEdge struct{}

func (strictEdge) authenticate(authorization string, principals map[string]string) (string, *Error) {
	tok, ok := bearerToken(authorization)
	if !ok {
		return "", &Error{Kind: KindUnauthenticated, Message: "Authorization: a bearer token is required (Authorization: Bearer TOKEN)"}
	}
	name, ok := principals[tok]
	if !ok {
		return "", &Error{Kind: KindUnauthenticated, Message: "Authorization: unknown bearer token"}
	}
	return name, nil
}

// version applies LT-VER-*: an empty value means 0.3, which this server
// does not support; patch numbers are ignored.
func (strictEdge) version(v string) *Error {
	given := v
	if v == "" {
		v, given = "0.3", "no A2A-Version (which means 0.3)"
	}
	parts := strings.Split(v, ".")
	if len(parts) >= 2 && len(parts) <= 3 {
		v = parts[0] + "." + parts[1]
	}
	if v == SupportedVersion {
		return nil
	}
	return versionError(given)
}

// versionError is the answer to a version the server does not speak.
func versionError(given string) *Error {
	return &Error{Kind: KindVersionNotSupported,
		Message: fmt.Sprintf("A2A-Version: this server supports %s only; got %s. Send the header A2A-Version: %s", SupportedVersion, given, SupportedVersion)}
}

func (strictEdge) route(restRoute) bool                     { return true }
func (strictEdge) method(name string) string                { return name }
func (strictEdge) query(raw string) (url.Values, *Error)    { return parseQuery(raw) }
func (strictEdge) rpcParams(string, json.RawMessage) *Error { return nil }
func (strictEdge) fields(string, []string) *Error           { return nil }
func (strictEdge) absent(string) (json.RawMessage, bool)    { return nil, false }

// plainReplies is the clean reply edge: application/json on JSON-RPC,
// application/a2a+json on HTTP+JSON, and the card as built.
type plainReplies struct{}

func (plainReplies) resultType(binding string) string {
	if binding == "http" {
		return "application/a2a+json"
	}
	return "application/json"
}

func (plainReplies) card(doc map[string]any, _ string) map[string]any { return doc }
