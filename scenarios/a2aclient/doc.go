// Package a2aclient is pagewalk's raw A2A client. It keeps exactly what came over
// the wire (absent, "" and null stay distinct; unknown fields, status codes
// and error bodies are kept) because conformance verdicts depend on those
// differences, which a lenient SDK would decode away.
//
// It speaks both HTTP bindings of A2A 1.0 (JSON-RPC and HTTP+JSON), discovers
// them from the Agent Card, and drives the documented control API
// (docs/control-api.md) where a server offers it.
package a2aclient
