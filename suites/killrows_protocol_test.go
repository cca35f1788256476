package suites

import "slices"

// The kill rows of the protocol edge's fault modes
// (reference/faultmodes_protocol.go): the Agent Card, version negotiation,
// method names and routes, the JSON-RPC envelope, request members, media
// types and credentials. None needs the control API, so each is killed
// black-box by the same case.

// init puts the protocol rows before the first performance-only or legal
// row, so that the mutants stay together ahead of the variants in the
// matrix and its document.
func init() {
	i := slices.IndexFunc(killRows, func(r killRow) bool { return r.Legal || r.PerfOnly })
	if i < 0 {
		i = len(killRows)
	}
	killRows = slices.Insert(slices.Clip(killRows), i, protocolKillRows...)
}

// protocolRow is a row whose case kills the mutant with and without the
// control API alike.
func protocolRow(fault string, kills ...kill) killRow {
	return killRow{Fault: fault, Kills: kills, BlackBox: kills}
}

var protocolKillRows = []killRow{
	protocolRow("card-interface-missing-version", k("LT-CARD-WELLKNOWN", "LT-CARD-4")),
	protocolRow("card-dead-interface", k("LT-CARD-INTERFACES", "LT-CARD-5")),
	protocolRow("version-absent-as-1.0", k("LT-VERSION-ABSENT", "LT-VER-3")),
	protocolRow("version-unchecked", k("LT-VERSION-UNSUPPORTED", "LT-VER-3")),
	protocolRow("version-exact-match", k("LT-VERSION-FORMS", "LT-VER-4")),
	protocolRow("legacy-method-alias", k("LT-METHOD-NAME", "LT-OP-2")),
	protocolRow("rpc-params-required", k("LT-PARAMS-OMITTED", "LT-RPC-1")),
	protocolRow("rpc-unknown-method-invalid-request", k("LT-ERR-STANDARD", "LT-ERR-4")),
	protocolRow("tenant-route-missing", k("LT-TENANT-ROUTE", "LT-OP-3")),
	protocolRow("wrong-content-type", k("LT-REPLY-ENVELOPE", "LT-REST-7")),
	protocolRow("sendmessage-message-optional", k("LT-REQUIRED-FIELDS", "LT-RESP-8")),
	protocolRow("unknown-fields-rejected", k("LT-JSON-UNKNOWN", "LT-JSON-4")),
	protocolRow("numeric-string-refused", k("LT-JSON-LENIENT", "LT-JSON-5")),
	protocolRow("rest-query-double-decode", k("LT-REST-QUERY", "LT-REST-6")),
	protocolRow("anonymous-allowed", k("LT-AUTH-REQUIRED", "LT-AUTHZ-7")),
}
