package reference

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// protocolFaults are the fault modes of the protocol edge: the Agent Card,
// version negotiation, method names and routes, the JSON-RPC envelope and
// the members a request carries, media types and credentials. Each entry
// installs its own seam implementations (mostly of the edge seams,
// seams_edge.go), defined below it, and breaks exactly one rule.
var protocolFaults = []FaultInfo{
	// ---- The Agent Card ----
	{Name: "card-interface-missing-version", Summary: "the Agent Card's HTTP+JSON interface has no protocolVersion (the JSONRPC one has it)",
		install: func(c *config) { c.seams.reply = interfaceWithoutVersion{c.seams.reply} }},
	{Name: "card-dead-interface", Summary: "the Agent Card also declares a JSONRPC 1.0 interface at /rpc, where nothing answers",
		install: func(c *config) { c.seams.reply = deadInterface{c.seams.reply} }},

	// ---- Version negotiation ----
	{Name: "version-absent-as-1.0", Summary: "a request without A2A-Version is served as 1.0 instead of read as 0.3 and refused",
		install: func(c *config) { c.seams.edge = versionAbsentAs10{c.seams.edge} }},
	{Name: "version-unchecked", Summary: "any A2A-Version a request gives (99.0 too) is served as 1.0; an absent one is still read as 0.3 and refused",
		install: func(c *config) { c.seams.edge = versionUnchecked{c.seams.edge} }},
	{Name: "version-exact-match", Summary: "A2A-Version must be exactly 1.0: a patch number (1.0.1) is refused",
		install: func(c *config) { c.seams.edge = versionExactMatch{c.seams.edge} }},

	// ---- Method names, routes and the JSON-RPC envelope ----
	{Name: "legacy-method-alias", Summary: "the pre-1.0 JSON-RPC method name tasks/list is served as ListTasks",
		install: func(c *config) { c.seams.edge = legacyMethodAlias{c.seams.edge} }},
	{Name: "rpc-params-required", Summary: "a JSON-RPC request with no params member is refused as invalid params instead of read as params {}",
		install: func(c *config) { c.seams.edge = rpcParamsRequired{c.seams.edge} }},
	{Name: "rpc-unknown-method-invalid-request", Summary: "an unknown JSON-RPC method is answered with -32600 (Invalid Request) instead of -32601 (Method not found)",
		install: func(c *config) { c.seams.rewriter = recodeError{c.seams.rewriter, KindMethodNotFound, -32600} }},
	{Name: "tenant-route-missing", Summary: "GET /{tenant}/tasks is not routed (404), though the tenant works on the other HTTP+JSON routes and on JSON-RPC",
		install: func(c *config) { c.seams.edge = tenantListRouteMissing{c.seams.edge} }},
	{Name: "wrong-content-type", Summary: "HTTP+JSON success replies are application/json instead of application/a2a+json",
		install: func(c *config) { c.seams.reply = plainJSONResults{c.seams.reply} }},

	// ---- Request members ----
	{Name: "sendmessage-message-optional", Summary: "SendMessage without message is served: the server makes up an empty user message",
		install: func(c *config) { c.seams.edge = messageOptional{c.seams.edge} }},
	{Name: "unknown-fields-rejected", Summary: "ListTasks refuses a request field it does not know (a JSON-RPC params member or an HTTP+JSON query parameter) instead of ignoring it",
		install: func(c *config) { c.seams.edge = unknownFieldsRejected{c.seams.edge} }},
	{Name: "numeric-string-refused", Summary: "a JSON-RPC pageSize or historyLength given as a numeric string (\"2\") is refused, though ProtoJSON reads an int32 from one",
		install: func(c *config) { c.seams.edge = numericStringRefused{c.seams.edge} }},
	{Name: "rest-query-double-decode", Summary: "HTTP+JSON query values are percent-decoded twice, so an encoded % or + in a value is read as something else",
		install: func(c *config) { c.seams.edge = queryDoubleDecode{c.seams.edge} }},

	// ---- Credentials ----
	{Name: "anonymous-allowed", Summary: "a request without an Authorization header is served as the principal \"anonymous\" (who owns no tasks) instead of refused",
		install: func(c *config) { c.seams.edge = anonymousAllowed{c.seams.edge} }},
}

func init() { faultTable = append(faultTable, protocolFaults...) }

// ---- reply edges ----

// interfaceWithoutVersion leaves protocolVersion out of the card's HTTP+JSON
// interfaces.
type interfaceWithoutVersion struct{ replyEdge }

func (r interfaceWithoutVersion) card(doc map[string]any, base string) map[string]any {
	doc = r.replyEdge.card(doc, base)
	ifaces, _ := doc["supportedInterfaces"].([]map[string]any)
	for _, i := range ifaces {
		if i["protocolBinding"] == "HTTP+JSON" {
			delete(i, "protocolVersion")
		}
	}
	return doc
}

// deadInterface declares one more JSONRPC 1.0 interface, after the real
// ones, at a path the server does not serve.
type deadInterface struct{ replyEdge }

func (r deadInterface) card(doc map[string]any, base string) map[string]any {
	doc = r.replyEdge.card(doc, base)
	ifaces, _ := doc["supportedInterfaces"].([]map[string]any)
	doc["supportedInterfaces"] = append(ifaces, map[string]any{"url": base + "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": SupportedVersion})
	return doc
}

// plainJSONResults labels HTTP+JSON success replies application/json.
type plainJSONResults struct{ replyEdge }

func (r plainJSONResults) resultType(binding string) string {
	if binding == "http" {
		return "application/json"
	}
	return r.replyEdge.resultType(binding)
}

// ---- request edges ----

// versionAbsentAs10 serves a request without A2A-Version as 1.0.
type versionAbsentAs10 struct{ requestEdge }

func (e versionAbsentAs10) version(v string) *Error {
	if v == "" {
		return nil
	}
	return e.requestEdge.version(v)
}

// versionUnchecked serves any version a request gives.
type versionUnchecked struct{ requestEdge }

func (e versionUnchecked) version(v string) *Error {
	if v != "" {
		return nil
	}
	return e.requestEdge.version(v)
}

// versionExactMatch compares the whole version, patch number included.
type versionExactMatch struct{ requestEdge }

func (e versionExactMatch) version(v string) *Error {
	if v != "" && v != SupportedVersion {
		return versionError(v)
	}
	return e.requestEdge.version(v)
}

// legacyMethodAlias serves the pre-1.0 method name tasks/list as ListTasks.
type legacyMethodAlias struct{ requestEdge }

func (e legacyMethodAlias) method(name string) string {
	if name == "tasks/list" {
		return "ListTasks"
	}
	return e.requestEdge.method(name)
}

// rpcParamsRequired refuses a JSON-RPC request without params.
type rpcParamsRequired struct{ requestEdge }

func (e rpcParamsRequired) rpcParams(op string, raw json.RawMessage) *Error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return &Error{Kind: KindInvalidParams, Field: "params", Message: "params: is required"}
	}
	return e.requestEdge.rpcParams(op, raw)
}

// tenantListRouteMissing does not route GET /{tenant}/tasks.
type tenantListRouteMissing struct{ requestEdge }

func (e tenantListRouteMissing) route(rt restRoute) bool {
	if rt.op == "ListTasks" && rt.hasTenant {
		return false
	}
	return e.requestEdge.route(rt)
}

// messageOptional makes up an empty user message for a SendMessage that
// has none.
type messageOptional struct{ requestEdge }

func (e messageOptional) absent(member string) (json.RawMessage, bool) {
	if member == "message" {
		m, _ := json.Marshal(map[string]any{"messageId": uuid.NewString(), "role": "ROLE_USER", "parts": []Part{TextPart("")}})
		return m, true
	}
	return e.requestEdge.absent(member)
}

// listTasksFields are the fields of ListTasksRequest (proto).
var listTasksFields = []string{"tenant", "contextId", "status", "pageSize", "pageToken", "historyLength", "statusTimestampAfter", "includeArtifacts"}

// unknownFieldsRejected refuses a ListTasks field it does not know.
type unknownFieldsRejected struct{ requestEdge }

func (e unknownFieldsRejected) fields(op string, names []string) *Error {
	if op == "ListTasks" {
		for _, n := range names {
			if !slices.Contains(listTasksFields, n) {
				return invalidParam(n, "unknown field; ListTasks takes %s", strings.Join(listTasksFields, ", "))
			}
		}
	}
	return e.requestEdge.fields(op, names)
}

// numericStringRefused refuses pageSize and historyLength given as JSON
// strings.
type numericStringRefused struct{ requestEdge }

func (e numericStringRefused) rpcParams(op string, raw json.RawMessage) *Error {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		for _, name := range []string{"pageSize", "historyLength"} {
			if v := bytes.TrimSpace(m[name]); len(v) > 0 && v[0] == '"' {
				return invalidParam(name, "must be a JSON number, got %s", abbreviate(v))
			}
		}
	}
	return e.requestEdge.rpcParams(op, raw)
}

// queryDoubleDecode percent-decodes every query value a second time.
type queryDoubleDecode struct{ requestEdge }

func (e queryDoubleDecode) query(raw string) (url.Values, *Error) {
	q, err := e.requestEdge.query(raw)
	if err != nil {
		return nil, err
	}
	for name, vs := range q {
		for i, v := range vs {
			d, uerr := url.QueryUnescape(v)
			if uerr != nil {
				return nil, invalidParam(name, "bad percent-escape in the value: %v", uerr)
			}
			vs[i] = d
		}
	}
	return q, nil
}

// anonymousAllowed serves a request without credentials as "anonymous".
type anonymousAllowed struct{ requestEdge }

func (e anonymousAllowed) authenticate(authorization string, principals map[string]string) (string, *Error) {
	if authorization == "" {
		return "anonymous", nil
	}
	return e.requestEdge.authenticate(authorization, principals)
}
