package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// JSONRPCErrorPrefix starts Result.Error for a JSON-RPC reply that carried
// an error member (HTTP 200, so vegeta saw success). Classify writes it
// so that result files keep the error after bodies are dropped.
const JSONRPCErrorPrefix = "jsonrpc error "

// JSONRPCMalformed is Result.Error for a JSON-RPC reply with neither a
// result nor an error member, or that is not a JSON object.
const JSONRPCMalformed = "jsonrpc malformed reply"

// Classify inspects the body of a JSON-RPC result with an HTTP success
// status and, when the reply carries an error member, sets res.Error to
// "jsonrpc error CODE: MESSAGE" (or JSONRPCMalformed). It reads only as
// far as the top-level "result" or "error" member. HTTP+JSON replies are
// judged by their status alone, as vegeta does.
func Classify(res *vegeta.Result, b a2aclient.Binding) {
	if b != a2aclient.JSONRPC || res.Code < 200 || res.Code > 299 || res.Error != "" {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(res.Body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		res.Error = JSONRPCMalformed
		return
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			break
		}
		switch kt {
		case "result":
			return
		case "error":
			var e struct {
				Code    *int   `json:"code"`
				Message string `json:"message"`
			}
			if err := dec.Decode(&e); err != nil || e.Code == nil {
				res.Error = JSONRPCErrorPrefix + "?: unparseable error member"
				return
			}
			msg := strings.Join(strings.Fields(e.Message), " ")
			if len(msg) > 120 {
				msg = msg[:120] + "..."
			}
			res.Error = fmt.Sprintf("%s%d: %s", JSONRPCErrorPrefix, *e.Code, msg)
			return
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				res.Error = JSONRPCMalformed
				return
			}
		}
	}
	res.Error = JSONRPCMalformed
}

// ErrorKind returns a short, stable kind for a failed result, or "" for a
// success: "http 503" for an HTTP error status, "jsonrpc -32602" for a
// JSON-RPC error, "jsonrpc malformed", or "transport: timeout" (also
// "refused", "reset", "eof", "other") when no response came back.
func ErrorKind(res *vegeta.Result) string {
	switch {
	case res.Code == 0:
		return "transport: " + transportKind(res.Error)
	case res.Code < 200 || res.Code > 299:
		return "http " + strconv.Itoa(int(res.Code))
	case strings.HasPrefix(res.Error, JSONRPCErrorPrefix):
		code, _, _ := strings.Cut(strings.TrimPrefix(res.Error, JSONRPCErrorPrefix), ":")
		return "jsonrpc " + code
	case res.Error == JSONRPCMalformed:
		return "jsonrpc malformed"
	case res.Error != "":
		return "other"
	}
	return ""
}

func transportKind(e string) string {
	l := strings.ToLower(e)
	switch {
	case strings.Contains(l, "timeout") || strings.Contains(l, "deadline exceeded"):
		return "timeout"
	case strings.Contains(l, "connection refused"):
		return "refused"
	case strings.Contains(l, "connection reset") || strings.Contains(l, "broken pipe"):
		return "reset"
	case strings.Contains(l, "eof"):
		return "eof"
	case strings.Contains(l, "context canceled"):
		return "canceled"
	}
	return "other"
}
