package suites

// The kill rows of the protocol edge's fault modes
// (reference/faultmodes_protocol.go): the Agent Card, version negotiation,
// method names and routes, the JSON-RPC envelope, request members, media
// types and credentials. None needs the control API, so each is killed
// black-box by the same case.

func init() { killRows = append(killRows, protocolKillRows...) }

// both is a row whose case kills the mutant with and without the control
// API alike.
func both(fault string, kills ...kill) killRow {
	return killRow{Fault: fault, Kills: kills, BlackBox: kills}
}

var protocolKillRows = []killRow{
	both("card-interface-missing-version", k("LT-CARD-WELLKNOWN", "LT-CARD-4")),
	both("card-dead-interface", k("LT-CARD-INTERFACES", "LT-CARD-5")),
	both("version-absent-as-1.0", k("LT-VERSION-ABSENT", "LT-VER-3")),
	both("version-unchecked", k("LT-VERSION-UNSUPPORTED", "LT-VER-3")),
	both("version-exact-match", k("LT-VERSION-FORMS", "LT-VER-4")),
	both("legacy-method-alias", k("LT-METHOD-NAME", "LT-OP-2")),
	both("rpc-params-required", k("LT-PARAMS-OMITTED", "LT-RPC-1")),
	both("rpc-unknown-method-invalid-request", k("LT-ERR-STANDARD", "LT-ERR-4")),
	both("tenant-route-missing", k("LT-TENANT-ROUTE", "LT-OP-3")),
	both("wrong-content-type", k("LT-REPLY-ENVELOPE", "LT-REST-7")),
	both("sendmessage-message-optional", k("LT-REQUIRED-FIELDS", "LT-RESP-8")),
	both("unknown-fields-rejected", k("LT-JSON-UNKNOWN", "LT-JSON-4")),
	both("numeric-string-refused", k("LT-JSON-LENIENT", "LT-JSON-5")),
	both("rest-query-double-decode", k("LT-REST-QUERY", "LT-REST-6")),
	both("anonymous-allowed", k("LT-AUTH-REQUIRED", "LT-AUTHZ-7")),
}
