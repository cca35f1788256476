package reference

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrorKind names a class of protocol error. Each kind has one JSON-RPC code,
// one HTTP status and one google.rpc status name, so that both bindings
// report the same failure the same way (LT-OP-8).
type ErrorKind int

// The error kinds the reference server returns.
const (
	KindInternal ErrorKind = iota
	KindParse
	KindInvalidRequest
	KindMethodNotFound
	KindInvalidParams
	KindTaskNotFound
	KindTaskNotCancelable
	KindUnsupportedOperation
	KindVersionNotSupported
	KindUnauthenticated
	KindRateLimited
	// KindPermissionDenied is a control API refusal of an operation the
	// server was not started to allow.
	KindPermissionDenied
)

type kindInfo struct {
	rpcCode    int
	httpStatus int
	status     string // google.rpc.Code name
	reason     string // google.rpc.ErrorInfo reason; "" for JSON-RPC standard errors
}

var kinds = map[ErrorKind]kindInfo{
	KindInternal:             {-32603, http.StatusInternalServerError, "INTERNAL", ""},
	KindParse:                {-32700, http.StatusBadRequest, "INVALID_ARGUMENT", ""},
	KindInvalidRequest:       {-32600, http.StatusBadRequest, "INVALID_ARGUMENT", ""},
	KindMethodNotFound:       {-32601, http.StatusNotFound, "UNIMPLEMENTED", ""},
	KindInvalidParams:        {-32602, http.StatusBadRequest, "INVALID_ARGUMENT", ""},
	KindTaskNotFound:         {-32001, http.StatusNotFound, "NOT_FOUND", "TASK_NOT_FOUND"},
	KindTaskNotCancelable:    {-32002, http.StatusBadRequest, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"},
	KindUnsupportedOperation: {-32004, http.StatusBadRequest, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"},
	KindVersionNotSupported:  {-32009, http.StatusBadRequest, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"},
	// The spec assigns no JSON-RPC code to authentication failures (LT-AUTHZ-7:
	// "JSON-RPC custom error"); -32000 is the first implementation-defined
	// server error code not taken by A2A's -32001..-32099 range.
	KindUnauthenticated: {-32000, http.StatusUnauthorized, "UNAUTHENTICATED", "UNAUTHENTICATED"},
	KindRateLimited:     {-32000, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "RATE_LIMITED"},
	// Only the control API (HTTP) returns it.
	KindPermissionDenied: {-32000, http.StatusForbidden, "PERMISSION_DENIED", ""},
}

// TokenErrorKind classifies a rejected page token, for the message and the
// request log.
type TokenErrorKind string

// The ways a page token can be rejected.
const (
	TokenMalformed TokenErrorKind = "malformed"
	TokenSignature TokenErrorKind = "bad-signature"
	TokenExpired   TokenErrorKind = "expired"
	TokenBinding   TokenErrorKind = "wrong-binding"
)

// Error is a protocol error with enough detail for either binding to render
// it: the kind, the parameter at fault (for invalid params) and a message
// that names that parameter.
type Error struct {
	Kind       ErrorKind
	Field      string
	Message    string
	Token      TokenErrorKind
	RetryAfter time.Duration
	// Code overrides the JSON-RPC code (used only by the error-code fault
	// modes: wrong-error-code, rpc-unknown-method-invalid-request).
	Code int
	// cause is the hidden underlying error of an internal error, for the log.
	cause error
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// RPCCode returns the JSON-RPC error code for e.
func (e *Error) RPCCode() int {
	if e.Code != 0 {
		return e.Code
	}
	return kinds[e.Kind].rpcCode
}

// HTTPStatus returns the HTTP status code for e.
func (e *Error) HTTPStatus() int { return kinds[e.Kind].httpStatus }

// Status returns the google.rpc.Code name for e.
func (e *Error) Status() string { return kinds[e.Kind].status }

// Details returns the google.rpc detail objects for e: a BadRequest naming
// the field for invalid params, an ErrorInfo for A2A-specific errors.
func (e *Error) Details() []map[string]any {
	var out []map[string]any
	if e.Field != "" {
		out = append(out, map[string]any{
			"@type": "type.googleapis.com/google.rpc.BadRequest",
			"fieldViolations": []map[string]string{{
				"field":       e.Field,
				"description": e.Message,
			}},
		})
	}
	if r := kinds[e.Kind].reason; r != "" || e.Token != "" {
		info := map[string]any{
			"@type":  "type.googleapis.com/google.rpc.ErrorInfo",
			"domain": "a2a-protocol.org",
		}
		if r != "" {
			info["reason"] = r
		}
		if e.Token != "" {
			info["reason"] = "INVALID_PAGE_TOKEN"
			info["metadata"] = map[string]string{"tokenError": string(e.Token)}
		}
		out = append(out, info)
	}
	return out
}

// invalidParam returns an invalid-params error naming field.
func invalidParam(field, format string, args ...any) *Error {
	return &Error{Kind: KindInvalidParams, Field: field, Message: field + ": " + fmt.Sprintf(format, args...)}
}

// asError converts any error into an *Error, hiding internal details.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: KindInternal, Message: "internal error", cause: err}
}

// ParamError is bad input for a named parameter of the library: an Option,
// New or Listen. The library names the parameter ("addr", "token-ttl"); a
// command line shows it as its flag (--addr).
type ParamError struct {
	Param string
	Msg   string
}

// Error renders "param: message".
func (e *ParamError) Error() string { return e.Param + ": " + e.Msg }

func paramErr(param, format string, args ...any) error {
	return &ParamError{Param: param, Msg: fmt.Sprintf(format, args...)}
}
