// Package scenarios holds pagewalk's conformance scenarios for A2A 1.0
// ListTasks pagination, and the engine that runs them against any A2A
// endpoint over the wire.
//
// Each scenario is a Go value with a stable string ID, the requirement IDs
// it checks (from a2a-listtasks-requirements.md), its level (MUST, SHOULD
// or hardened), the spec sentence it rests on and the capabilities it
// needs. Scenarios live one file per spec area; each gathers a transcript
// over the wire and hands it to a pure checker function, so every checker
// is unit-tested with hand-built failing transcripts.
//
// Verdicts follow the spec's words: breaking a MUST is a Fail, breaking a
// SHOULD (or a normative sentence without an RFC 2119 keyword, or a
// normative example) is Non-strict, and the seed article's practices where
// the spec is silent are Hardened findings, judged only under the hardened
// profile. Behaviour the spec leaves open is recorded as Info.
//
// This package never imports the reference server.
package scenarios
