// Package reference is pagewalk's reference A2A 1.0 server.
//
// It serves ListTasks, GetTask, CancelTask and SendMessage over both HTTP
// bindings (JSON-RPC 2.0 and HTTP+JSON), pages by keyset on (status
// timestamp, task id), and issues HMAC-signed page tokens bound to the
// principal, the tenant and the filter set. Tasks, their messages and their
// artifacts are rows in SQLite (modernc.org/sqlite, pure Go).
//
// A test-only control API (off unless a control token is configured) seeds
// tasks, moves them, drives the server clock and resets the store. Fault
// modes (see Fault) turn the server into known-broken variants, which the
// kill matrix uses to prove that every conformance check can fail. A fault
// plugs into the server through its seams (seams.go: the token codec, the
// pager, the access, parameter and key policies and the response
// rewriter); the request path holds no fault branches, and the server New
// builds without faults is the clean reference.
//
// The harness packages (scenarios, loadgen) never import this package: they
// judge servers only over the wire.
package reference
