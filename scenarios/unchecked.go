package scenarios

// unchecked says, for each requirement of the catalogue that no case names,
// why: a rule for clients, the gRPC binding (not spoken yet), or a property
// the wire cannot show. docs/requirements.md lists these reasons; a test
// (TestEveryRequirementCheckedOrExplained) fails when a requirement is
// neither named by a case nor explained here, or is both.
var unchecked = map[string]string{
	// Rules for clients: a server cannot break them.
	"LT-RESP-4": "a rule for clients (\"Clients should check for an empty string\"); pagewalk's one walker (a2aclient.Walk) follows it",
	"LT-TEN-1":  "a rule for clients (set tenant exactly as the card declares it); pagewalk sends the card's tenant",
	"LT-VER-1":  "a rule for clients (send A2A-Version); pagewalk sends A2A-Version: 1.0 on every request, and LT-VERSION-ABSENT checks what a server does without it",
	"LT-CARD-6": "a rule for clients (select the first supported interface); pagewalk selects interfaces by binding and version",
	"LT-CARD-7": "an implementation note on interface URLs, not a rule; pagewalk applies it when it discovers interfaces",
	"LT-SEED-1": "the seed's advice to clients (end a walk only on nextPageToken \"\"; a short page is not the end): a server cannot break it; pagewalk's walker follows it, and LT-PAGE-SHORT checks that short pages before the end carry a token",
	"LT-SEED-8": "the seed's advice to clients (always send historyLength 0 on listings): a server cannot break it; pagewalk sends historyLength 0 on the listings it judges",
	// The gRPC binding.
	"LT-GRPC-1": "the gRPC binding: pagewalk speaks JSON-RPC and HTTP+JSON only",
	"LT-GRPC-2": "the gRPC binding: pagewalk speaks JSON-RPC and HTTP+JSON only",
	"LT-ERR-9":  "the gRPC binding: pagewalk speaks JSON-RPC and HTTP+JSON only",
	// Not a rule a server can be failed on.
	"LT-SEED-9":  "operational advice (rate limits, logs) that the wire cannot show without provoking the limit; pagewalk load reports 429s as errors",
	"LT-SEED-10": "the list of failure modes the other cases test (offset cursor, timestamp-only cursor, unsigned cursor, no catch-up): covered by LT-MOVE-*, LT-TIE-BOUNDARY and LT-TOKEN-*",
	// Checked, but not yet named by the case that checks it.
}

// Unchecked returns why requirement id is named by no case ("" when a case
// names it).
func Unchecked(id string) string { return unchecked[id] }
