package scenarios

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "json": the JSON mapping (ProtoJSON, ADR-001) as a server reads and
// writes it: unknown fields, the lenient forms ProtoJSON parsers accept,
// timestamp precision, and the HTTP+JSON query-string form of ListTasks.

// sameIDs reports whether two id lists hold the same set.
func sameIDs(a, b []string) bool {
	x, y := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	return strings.Join(x, "\x00") == strings.Join(y, "\x00")
}

// UnknownProbe is a walk with an unknown request field and the same walk
// without it.
type UnknownProbe struct {
	Field       string
	Plain, With History
}

var _ = Register(Scenario{
	ID: "LT-JSON-UNKNOWN", Area: "json", Level: SHOULD, Checker: "CheckUnknownField",
	Title: "An unknown request field (JSON-RPC param or HTTP+JSON query parameter) is ignored: the listing is served as without it",
	Reqs:  R("LT-JSON-4"),
	Quote: `"Implementations SHOULD ignore unrecognized fields in messages, allowing for forward compatibility as the protocol evolves." (§5.7)`,
	Run: func(e *Env) {
		ctx := e.ID("ctx")
		e.By("create 3 tasks with SendMessage in context %s", ctx)
		made := e.createTasks(e.A(), 3, ctx, "unknown")
		e.requireIsolated(e.A(), ctx, createdIDs(made))
		req := a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(2), HistoryLength: a2aclient.Ptr(0)}
		e.By("walk context %s with pageSize 2", ctx)
		plain := e.Walk(e.A(), req, 20, nil)
		const field = "pagewalkUnknownField"
		req.Extra = map[string]any{field: "ignore-me"}
		e.By("the same walk with the unknown field %s", field)
		with := e.Walk(e.A(), req, 20, nil)
		e.Report(CheckUnknownField(UnknownProbe{Field: field, Plain: plain, With: with})...)
	},
})

// walkIDs returns the ids a walk served, in order.
func walkIDs(h History) []string {
	var out []string
	for _, p := range h.Pages {
		out = append(out, p.IDs()...)
	}
	return out
}

// CheckUnknownField judges a walk sent with an unknown field
// (LT-JSON-UNKNOWN): refusing it, or serving another set of tasks, breaks
// the SHOULD to ignore it (Non-strict). ProtoJSON parsers reject unknown
// fields by default; the A2A text overrides that. A walk that ends early
// for another reason is judged by the walk cases.
func CheckUnknownField(p UnknownProbe) []Finding {
	if len(p.With.Pages) == 0 {
		return nil
	}
	if first := p.With.Pages[0]; first.Page != nil && first.X != nil && (first.Err != nil || first.Malformed != "") {
		return []Finding{Breach(R("LT-JSON-4"), "ListTasks with the unknown field %s was refused (%s); implementations \"SHOULD ignore unrecognized fields\"", p.Field, first.Describe()).WithWitness(first.X.Transcript())}
	}
	if end := p.Plain.End + p.With.End; end != "" {
		return []Finding{Observe(R("LT-JSON-4"), "a walk ended early (%s; judged by the walk cases), so only that the field %s was accepted was judged, not the set served", end, p.Field)}
	}
	if a, b := walkIDs(p.Plain), walkIDs(p.With); !sameIDs(a, b) {
		return []Finding{Breach(R("LT-JSON-4"), "the walk with the unknown field %s served %v, without it %v; an unrecognized field should be ignored", p.Field, b, a).
			WithWitness(p.Plain.Witness(1) + "\n" + p.With.Witness(1))}
	}
	return nil
}

// stateNumbers are the TaskState enum numbers (proto).
var stateNumbers = map[string]int{"TASK_STATE_UNSPECIFIED": 0, "TASK_STATE_SUBMITTED": 1, "TASK_STATE_WORKING": 2, "TASK_STATE_COMPLETED": 3,
	"TASK_STATE_FAILED": 4, "TASK_STATE_CANCELED": 5, "TASK_STATE_INPUT_REQUIRED": 6, "TASK_STATE_REJECTED": 7, "TASK_STATE_AUTH_REQUIRED": 8}

// LenientProbe is a listing of the case's tasks with one field in a form
// ProtoJSON parsers accept but A2A clients do not send.
type LenientProbe struct {
	// Form is "numeric-string" (pageSize "2"), "enum-number" (status as
	// its number) or "snake-case" (page_size).
	Form, What string
	Reply      *a2aclient.Page
	// Want is the set the listing must hold when the field is applied (nil:
	// any); Unfiltered is the set it holds when the field is ignored: all
	// the case's tasks (others are not counted).
	Want, Unfiltered []string
	// MaxTasks, if above 0, is the page size the field asks for.
	MaxTasks int
	// Control, if set, is the same listing with the field in the form
	// pagewalk's client sends (pageSize as a number, status by its name).
	// When that is not applied either, the field itself does not work:
	// its own case judges that (LT-PAGE-SHORT, LT-FILTER-STATUS,
	// LT-FILTER-COMBINED), and this probe cannot tell whether the lenient
	// form is read.
	Control *a2aclient.Page
}

// applied says whether a listing of the probe's field holds what the field
// asks for (counting only the case's tasks).
func (p LenientProbe) applied(got []string) bool {
	return (p.MaxTasks == 0 || len(got) <= p.MaxTasks) && (p.Want == nil || sameIDs(got, p.Want))
}

var _ = Register(Scenario{
	ID: "LT-JSON-LENIENT", Area: "json", Level: SHOULD, Checker: "CheckLenient", CrossBinding: true,
	Title: "JSON-RPC params in the lenient ProtoJSON forms: an int32 as a numeric string is applied; enum numbers and snake_case names are the server's choice but never silently ignored",
	Reqs:  R("LT-JSON-5", "LT-JSON-1", "LT-JSON-4"),
	Quote: `ProtoJSON is the normative JSON mapping (ADR-001: "Implementations must follow ProtoJSON specification strictly"), whose parsers accept an int32 as a number or a string, enum names or numbers, and the proto field name; yet "All JSON serializations ... MUST use camelCase" and enums "MUST be represented ... as their string names" (§5.5)`,
	Run: func(e *Env) {
		c := e.Client(a2aclient.JSONRPC, 0)
		ctx := e.ID("ctx")
		e.By("create 3 tasks with SendMessage in context %s", ctx)
		made := e.createTasks(c, 3, ctx, "lenient")
		all := createdIDs(made)
		e.requireIsolated(c, ctx, all)
		base := func(extra map[string]any) a2aclient.ListRequest {
			return a2aclient.ListRequest{ContextID: &ctx, HistoryLength: a2aclient.Ptr(0), Extra: extra}
		}
		list := func(what string, extra map[string]any) *a2aclient.Page {
			e.By("ListTasks by contextId with %s", what)
			p, err := c.ListTasks(e.ctx, base(extra))
			e.Check(err, "ListTasks")
			return p
		}
		var ps []LenientProbe
		ps = append(ps, LenientProbe{Form: "numeric-string", What: `"pageSize": "2"`, Reply: list(`"pageSize": "2"`, map[string]any{"pageSize": "2"}), Want: nil, Unfiltered: all, MaxTasks: 2,
			Control: list(`"pageSize": 2 (pagewalk's own form)`, map[string]any{"pageSize": 2})})
		ps = append(ps, LenientProbe{Form: "snake-case", What: `"page_size": 2`, Reply: list(`"page_size": 2`, map[string]any{"page_size": 2}), Unfiltered: all, MaxTasks: 2})
		// A state none of the created tasks is in, as its number: applied,
		// the listing is empty; ignored, it holds them all.
		states := map[string]bool{}
		for _, m := range made {
			states[m.State] = true
		}
		for _, st := range []string{"TASK_STATE_REJECTED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED"} {
			if !states[st] {
				n := stateNumbers[st]
				what := fmt.Sprintf(`"status": %d (%s)`, n, st)
				ps = append(ps, LenientProbe{Form: "enum-number", What: what, Reply: list(what, map[string]any{"status": n}), Want: []string{}, Unfiltered: all,
					Control: list(fmt.Sprintf(`"status": %q (pagewalk's own form)`, st), map[string]any{"status": st})})
				break
			}
		}
		e.Report(CheckLenient(ps)...)
	},
})

// CheckLenient judges the lenient ProtoJSON forms (LT-JSON-LENIENT). An
// int32 sent as a numeric string is plain ProtoJSON, which the A2A text
// does not restrict: refusing or ignoring it departs from ADR-001
// (Non-strict). Enum numbers and snake_case names are forms §5.5 tells
// clients not to send, so a server may accept or refuse them (Info). A
// snake_case name a server does not know is an unrecognized field, which
// it should ignore (§5.7: Info). But an enum number for the known field
// status that is neither applied nor refused leaves the caller an
// unfiltered list: Non-strict.
func CheckLenient(ps []LenientProbe) []Finding {
	var fs []Finding
	for _, p := range ps {
		r := p.Reply
		if r == nil || r.Response == nil || r.X == nil {
			continue
		}
		w := r.X.Transcript()
		if r.Err != nil || r.Malformed != "" {
			if p.Form == "numeric-string" {
				fs = append(fs, Breach(R("LT-JSON-5"), "%s was refused (%s); ProtoJSON, the normative JSON mapping (ADR-001), accepts an int32 as a numeric string", p.What, r.Describe()).WithWitness(w))
			} else {
				fs = append(fs, Observe(R("LT-JSON-5", "LT-JSON-1"), "%s was refused (%s); §5.5 tells clients not to send this form, so refusing it is the server's choice", p.What, r.Describe()))
			}
			continue
		}
		got := onlyOurs(r.IDs(), p.Unfiltered)
		applied := p.applied(got)
		if c := p.Control; !applied && c != nil && c.Response != nil && c.X != nil && c.Err == nil && c.Malformed == "" {
			if cgot := onlyOurs(c.IDs(), p.Unfiltered); !p.applied(cgot) {
				fs = append(fs, Observe(R("LT-JSON-5"), "%s: not judged: the same field in pagewalk's own form was not applied either (%d of the case's tasks served), so the field itself does not work (its own case judges that) and whether this form is read cannot be told", p.What, len(cgot)).
					WithWitness(c.X.Transcript()))
				continue
			}
		}
		// Pages may be short, so a field that is ignored need not show
		// every task; a filter that must empty the listing is ignored as
		// soon as one of the case's tasks shows.
		ignored := !applied && (sameIDs(got, p.Unfiltered) || p.Form == "enum-number")
		switch {
		case applied:
			if p.Form != "numeric-string" {
				fs = append(fs, Observe(R("LT-JSON-5"), "%s was accepted and applied (%d tasks)", p.What, len(got)))
			}
		case p.Form == "numeric-string":
			fs = append(fs, Breach(R("LT-JSON-5", "LT-REQ-4"), "%s was accepted but not applied: %d tasks served; ProtoJSON reads an int32 from a numeric string", p.What, len(got)).WithWitness(w))
		case p.Form == "snake-case" && ignored:
			fs = append(fs, Observe(R("LT-JSON-4", "LT-JSON-5"), "%s was ignored as an unrecognized field (%d tasks served); ProtoJSON parsers would read the proto name, but §5.5 has clients send camelCase", p.What, len(got)))
		case p.Form == "enum-number" && ignored:
			fs = append(fs, Breach(R("LT-JSON-5", "LT-ERR-1"), "%s was accepted but not applied: the listing holds %d of the case's tasks, none of which is in that state, so the caller gets an unfiltered list; a server must apply the value (ProtoJSON reads enum numbers) or refuse it", p.What, len(got)).WithWitness(w))
		default:
			fs = append(fs, Breach(R("LT-JSON-5"), "%s was accepted but the listing holds %v, neither the filtered set %v nor the unfiltered one", p.What, got, p.Want).WithWitness(w))
		}
	}
	return fs
}

// fraction matches the fractional seconds of an RFC 3339 UTC timestamp.
var fraction = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d+))?Z$`)

// Stamp is one status.timestamp as a reply carried it.
type Stamp struct{ Where, Value string }

var _ = Register(Scenario{
	ID: "LT-JSON-TIMESTAMP", Area: "json", Level: SHOULD, Checker: "CheckTimestampPrecision",
	Title: "Status timestamps carry milliseconds (or 6 or 9 fractional digits, as ProtoJSON writes), or whole seconds where finer precision is not available",
	Reqs:  R("LT-JSON-3", "LT-JSON-5", "LT-TASK-2"),
	Quote: `"Millisecond precision SHOULD be used where available"; "Pattern: YYYY-MM-DDTHH:mm:ss.sssZ"; "When millisecond precision is not available, the fractional seconds portion MAY be omitted or zero-filled" (§5.6.1)`,
	Run: func(e *Env) {
		ctx := e.ID("ctx")
		e.By("create 2 tasks with SendMessage in context %s, read one back, and list the principal's tasks", ctx)
		made := e.createTasks(e.A(), 2, ctx, "ts")
		var stamps []Stamp
		for _, m := range made {
			stamps = append(stamps, Stamp{Where: "SendMessage task " + m.ID, Value: m.Reply.Task.Timestamp})
		}
		g, err := e.A().GetTask(e.ctx, made[0].ID, a2aclient.Ptr(0))
		e.Check(err, "GetTask")
		if g.Err == nil {
			stamps = append(stamps, Stamp{Where: "GetTask " + made[0].ID, Value: g.Task.Timestamp})
		}
		p, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{PageSize: a2aclient.Ptr(20), HistoryLength: a2aclient.Ptr(0)})
		e.Check(err, "ListTasks")
		for _, t := range p.Tasks {
			stamps = append(stamps, Stamp{Where: "ListTasks task " + t.ID, Value: t.Timestamp})
		}
		// Every timestamp the observe walk saw: a writer that trims
		// trailing zeros shows it only on some values, so judge many.
		if o, why := e.Observe(0); why == "" {
			for _, t := range o.Tasks {
				stamps = append(stamps, Stamp{Where: "existing task " + t.ID, Value: t.Timestamp})
			}
			e.Note("judged on %d timestamps, %d of them of existing tasks", len(stamps), len(o.Tasks))
		}
		n := 0
		for _, s := range stamps {
			if s.Value != "" {
				n++
			}
		}
		if n == 0 {
			e.Skip("no task carried a status.timestamp (it is optional), so precision cannot be judged")
		}
		e.Report(CheckTimestampPrecision(stamps)...)
	},
})

// CheckTimestampPrecision judges the fractional digits of status
// timestamps (LT-JSON-TIMESTAMP). §5.6.1's pattern has milliseconds, and
// ProtoJSON writes 0, 3, 6 or 9 digits; any other count (e.g. ".12Z") is
// neither (Non-strict, ambiguity A17). Timestamps that are all whole
// seconds may mean no finer precision is available (MAY), and more than
// milliseconds is what ProtoJSON writes: both are recorded. The lexical
// form itself (UTC, "Z") is LT-JSON-2, judged by LT-WALK-SHAPE and
// LT-TASK-SHAPE.
func CheckTimestampPrecision(stamps []Stamp) []Finding {
	var fs []Finding
	digits := map[int]int{}
	for _, s := range stamps {
		m := fraction.FindStringSubmatch(s.Value)
		if m == nil {
			continue
		}
		d := len(m[1])
		digits[d]++
		if d != 0 && d != 3 && d != 6 && d != 9 {
			fs = append(fs, Breach(R("LT-JSON-3", "LT-JSON-5"), "%s has status.timestamp %q with %d fractional digits; §5.6.1's pattern is YYYY-MM-DDTHH:mm:ss.sssZ (milliseconds), and ProtoJSON writes 0, 3, 6 or 9 digits", s.Where, s.Value, d).
				Ambiguous("A17").Of("digits", s.Where).WithWitness(s.Where+": "+s.Value))
		}
	}
	var kinds []string
	for d, n := range digits {
		kinds = append(kinds, fmt.Sprintf("%d with %d digits", n, d))
	}
	sort.Strings(kinds)
	switch {
	case len(digits) == 1 && digits[0] > 0:
		fs = append(fs, Observe(R("LT-JSON-3"), "all %d status timestamps are whole seconds: either the server records no finer precision (the fraction \"MAY be omitted\") or it drops the milliseconds it has (SHOULD keep them)", digits[0]))
	case digits[6] > 0 || digits[9] > 0:
		fs = append(fs, Observe(R("LT-JSON-3", "LT-JSON-5"), "status timestamps are finer than milliseconds (%s), as ProtoJSON writes them (A17)", strings.Join(kinds, ", ")))
	}
	return fs
}

// QueryProbe is one HTTP+JSON listing written by hand (its pages, each
// request carrying the previous page's token), and what it must hold.
type QueryProbe struct {
	What string
	// Reqs are the requirements the encoding rests on (the first is the
	// one broken when it is refused or not applied).
	Reqs  []string
	Pages []*Wire
	// Want, if not nil, is the exact set of the case's tasks the listing
	// must hold (tasks the case did not create are ignored).
	Want []string
	// Ours are all tasks the case created (to tell them from others).
	Ours []string
	// Control, if set, is the same filter sent in the form its own case
	// sends it (pagewalk's client form), listing Want too. When neither
	// listing is Want, the filter itself does not work: that is Owner's
	// finding (one defect, one finding), and this probe records as Info
	// that it could not judge the encoding.
	Control []*Wire
	// Owner is the case that judges the filter Control exercises.
	Owner string
	// Peer, if set, is the same request sent by JSON-RPC. When it lists
	// exactly what the GET listed, this encoding is read as JSON-RPC reads
	// the field: the listing differs from Want for a reason that is no
	// query encoding's (filters combined wrongly, states changed by a
	// read), which PeerOwner's cases judge; this probe records as Info
	// that it could not judge the encoding.
	Peer      []*Wire
	PeerOwner string
}

// servedOf is what a probe's pages served of the case's tasks (ours), or
// the reply that refused it.
func servedOf(pages []*Wire, ours []string) (got []string, refused *Wire) {
	for _, r := range pages {
		if r == nil || r.Response == nil || r.X == nil {
			continue
		}
		pg := r.Page()
		if pg.Err != nil || pg.Malformed != "" {
			return nil, r
		}
		got = append(got, onlyOurs(pg.IDs(), ours)...)
	}
	return dedupe(got), nil // a repeated task is the walk cases' finding
}

// rfc3986 percent-encodes a query value per RFC 3986: every byte except
// the unreserved characters, so a space is %20 and "+" is %2B (Go's
// url.QueryEscape writes a space as "+", which only form decoding reads
// as a space).
func rfc3986(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// queryURL renders base with the given name=value pairs, values
// percent-encoded per RFC 3986.
func queryURL(base string, pairs ...string) string {
	var q []string
	for i := 0; i+1 < len(pairs); i += 2 {
		q = append(q, pairs[i]+"="+rfc3986(pairs[i+1]))
	}
	return base + "?" + strings.Join(q, "&")
}

// getAll sends a hand-encoded GET /tasks and follows nextPageToken (at
// most 20 pages), so that short pages, which are legal, never look like a
// filter's effect.
func (e *Env) getAll(c *a2aclient.Client, what string, pairs ...string) []*Wire {
	base := c.Iface.URL + "/tasks"
	if t := tenantOf(c); t != "" {
		base = c.Iface.URL + "/" + url.PathEscape(t) + "/tasks"
	}
	var out []*Wire
	seen := map[string]bool{}
	tok := ""
	for n := 1; n <= 20; n++ {
		ps := pairs
		if tok != "" {
			ps = append(append([]string(nil), pairs...), "pageToken", tok)
		}
		u := queryURL(base, ps...)
		e.By("GET %s (%s, page %d)", u, what, n)
		w := e.send(c, "", listOnce(), WithURL(func(string) string { return u }))
		out = append(out, w)
		p := w.Page()
		if p.Err != nil || p.Malformed != "" || p.NextPageToken == "" || seen[p.NextPageToken] {
			break
		}
		seen[p.NextPageToken], tok = true, p.NextPageToken
	}
	return out
}

var _ = Register(Scenario{
	ID: "LT-REST-QUERY", Area: "json", Level: MUST, Checker: "CheckRestQuery", CrossBinding: true,
	Title: "GET /tasks reads camelCase query parameters, enum names, lowercase booleans, decimal numbers, ISO 8601 timestamps, and RFC 3986-encoded values (a contextId with spaces, &, /, %, + and non-ASCII round-trips)",
	Reqs:  R("LT-REST-6", "LT-REST-1", "LT-REST-2", "LT-REST-3", "LT-REST-4", "LT-REST-5", "LT-REST-8"),
	Quote: `GET "MUST transmit operation request parameters as path parameters or query parameters"; "Query parameter names MUST use camelCase"; booleans "lowercase strings", numbers "decimal strings", enums "their string values", timestamps "ISO 8601 strings"; "All query parameter values MUST be properly URL-encoded per RFC 3986." (§11.5)`,
	Run: func(e *Env) {
		c := e.Client(a2aclient.HTTPJSON, 0)
		plain := e.ID("ctx-plain")
		special := e.ID("ctx") + " a&b=c/d?e#f 100%41 x+y é✓"
		e.By("create 2 tasks in context %q and 2 in %q with SendMessage (the contextId travels in the JSON body)", plain, special)
		p := e.createTasks(c, 2, plain, "plain")
		s := e.createTasks(c, 2, special, "special")
		for _, t := range append(append([]CreatedTask(nil), p...), s...) {
			if t.ContextID != plain && t.ContextID != special {
				e.Skip("SendMessage did not keep the contextId the case chose (sent %q or %q, got %q); agents MAY refuse client contextIds (§3.4.1), and this case needs them", plain, special, t.ContextID)
			}
		}
		ours := append(createdIDs(p), createdIDs(s)...)
		probe := func(what string, reqs []string, want []string, pairs ...string) QueryProbe {
			return QueryProbe{What: what, Reqs: reqs, Pages: e.getAll(c, what, pairs...), Want: want, Ours: ours}
		}
		base := probe("contextId (camelCase) with a plain value", R("LT-REST-2", "LT-REST-1"), createdIDs(p), "contextId", plain, "pageSize", "10", "historyLength", "0")
		if len(CheckRestQuery([]QueryProbe{base})) > 0 {
			snake := probe("context_id (snake_case)", R("LT-REST-2"), createdIDs(p), "context_id", plain, "page_size", "10", "history_length", "0")
			if len(CheckRestQuery([]QueryProbe{snake})) == 0 {
				base.What = "contextId (camelCase) was not applied, while context_id (snake_case) was"
				e.Report(CheckRestQuery([]QueryProbe{base})...)
				return
			}
			e.Skip("GET /tasks?contextId=%s did not list exactly the case's tasks of that context (%s), so encodings cannot be judged; LT-FILTER-CONTEXT judges the filter", plain, base.Pages[0].Describe())
		}
		ps := []QueryProbe{probe(fmt.Sprintf("contextId %q, percent-encoded per RFC 3986", special), R("LT-REST-6", "LT-REST-1"), createdIDs(s),
			"contextId", special, "pageSize", "10", "historyLength", "0")}
		if st := p[0].State; taskStates[st] {
			var inState []string
			for _, t := range p {
				if t.State == st {
					inState = append(inState, t.ID)
				}
			}
			sp := probe("status="+st+" (an enum by its name), as in the spec's example query", R("LT-REST-3", "LT-REST-8"), inState,
				"contextId", plain, "status", st, "pageSize", "50")
			sp.Peer, sp.PeerOwner = e.peerList("status="+st, a2aclient.ListRequest{ContextID: &plain, Status: &st, PageSize: a2aclient.Ptr(50)}), peerOwners
			ps = append(ps, sp)
		}
		ps = append(ps, probe("includeArtifacts=true, pageSize=10 and historyLength=0 (a lowercase boolean and decimal numbers)", R("LT-REST-4"), createdIDs(p),
			"contextId", plain, "includeArtifacts", "true", "pageSize", "10", "historyLength", "0"))
		oldest, newest := p[0].TS, p[0].TS
		for _, t := range p {
			if t.TS.Before(oldest) {
				oldest = t.TS
			}
			if t.TS.After(newest) {
				newest = t.TS
			}
		}
		if !oldest.IsZero() {
			before := oldest.Add(-time.Hour).UTC().Format(time.RFC3339)
			after := newest.Add(time.Hour).UTC().Format(time.RFC3339)
			bp := probe("statusTimestampAfter="+before+" (an ISO 8601 timestamp an hour before the tasks)", R("LT-REST-5", "LT-REQ-7"), createdIDs(p),
				"contextId", plain, "statusTimestampAfter", before, "pageSize", "10")
			bp.Peer, bp.PeerOwner = e.peerList("statusTimestampAfter="+before, a2aclient.ListRequest{ContextID: &plain, StatusTimestampAfter: &before, PageSize: a2aclient.Ptr(10)}), peerOwners
			ps = append(ps, bp)
			late := probe("statusTimestampAfter="+after+" (an ISO 8601 timestamp an hour after the tasks)", R("LT-REST-5", "LT-REQ-7"), []string{},
				"contextId", plain, "statusTimestampAfter", after, "pageSize", "10")
			// The same filter in the form LT-FILTER-TSA sends: if that
			// does not filter either, the filter is broken, not this
			// encoding of it, and LT-FILTER-TSA reports it.
			own := a2aclient.FormatTimestamp(newest.Add(time.Hour))
			late.Control, late.Owner = e.getAll(c, "statusTimestampAfter="+own+" (pagewalk's own form)", "contextId", plain, "statusTimestampAfter", own, "pageSize", "10"), "LT-FILTER-TSA"
			ps = append(ps, late)
		}
		e.Report(CheckRestQuery(ps)...)
	},
})

// peerOwners are the cases that judge a listing that JSON-RPC and GET
// /tasks agree on but that is not the set the filters ask for.
const peerOwners = "LT-FILTER-STATUS, LT-FILTER-TSA, LT-FILTER-COMBINED and LT-IDEMPOTENT"

// peerList sends r by JSON-RPC, the same request a GET /tasks probe
// encodes, as its control (every page up to 20). It returns nil when the
// card declares no JSON-RPC interface: the probe then has no control.
func (e *Env) peerList(what string, r a2aclient.ListRequest) []*Wire {
	c, err := e.target.Client(a2aclient.JSONRPC, 0, e.record)
	if err != nil {
		return nil
	}
	var out []*Wire
	seen := map[string]bool{}
	for n := 1; n <= 20; n++ {
		e.By("control: ListTasks by JSON-RPC with %s (page %d)", what, n)
		p, err := c.ListTasks(e.ctx, r)
		e.Check(err, "ListTasks")
		out = append(out, &Wire{Response: p.Response})
		if p.Err != nil || p.Malformed != "" || p.NextPageToken == "" || seen[p.NextPageToken] {
			break
		}
		seen[p.NextPageToken], r.PageToken = true, p.NextPageToken
	}
	return out
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func onlyOurs(ids, ours []string) []string {
	mine := map[string]bool{}
	for _, id := range ours {
		mine[id] = true
	}
	var out []string
	for _, id := range ids {
		if mine[id] {
			out = append(out, id)
		}
	}
	return out
}

// CheckRestQuery judges hand-encoded GET /tasks listings (LT-REST-QUERY): a
// refused encoding, or one whose listing is not the set it asks for, breaks
// the rule the encoding rests on: a MUST for parameters as query
// parameters, camelCase names and RFC 3986 encoding (Fail), normative text
// for enum, boolean, number and timestamp forms (Non-strict). A filter that
// is accepted but not applied leaves the caller an unfiltered list, and is
// reported as such, unless the probe's Control shows that the filter does
// not work in pagewalk's own form either: then the filter is broken, not
// its encoding, and its own case (Owner) reports it; this one records an
// Info line saying what it could not judge. A listing that ends on anything
// but nextPageToken "" is judged by the walk cases; what it served is still
// compared.
func CheckRestQuery(ps []QueryProbe) []Finding {
	var fs []Finding
	for _, p := range ps {
		if len(p.Pages) == 0 {
			continue
		}
		got, refused := servedOf(p.Pages, p.Ours)
		if refused == nil && (p.Want == nil || sameIDs(got, p.Want)) {
			continue
		}
		if len(p.Control) > 0 && p.Want != nil {
			if cgot, crefused := servedOf(p.Control, p.Ours); crefused != nil || !sameIDs(cgot, p.Want) {
				what := fmt.Sprintf("did not filter either (it served %d of the case's tasks, want %d)", len(cgot), len(p.Want))
				if crefused != nil {
					what = "was refused too (" + crefused.Describe() + ")"
				}
				fs = append(fs, Observe(p.Reqs, "%s: not judged: the same filter in pagewalk's own form %s, so the filter itself does not work (%s judges that) and whether this encoding is read cannot be told", p.What, what, p.Owner).
					WithWitness(p.Control[0].Witness()))
				continue
			}
		}
		if refused != nil {
			fs = append(fs, Breach(p.Reqs, "%s was refused: %s", p.What, refused.Describe()).WithWitness(refused.Witness()))
			continue
		}
		if len(p.Peer) > 0 && p.Want != nil {
			if pgot, prefused := servedOf(p.Peer, p.Ours); prefused == nil && sameIDs(pgot, got) {
				fs = append(fs, Observe(p.Reqs, "%s: not judged: the listing held %d of the case's tasks, want %d, but the same request by JSON-RPC listed the same tasks, so the query is read as JSON-RPC reads it and the listing differs for another reason (%s judge that)", p.What, len(got), len(p.Want), p.PeerOwner).
					Of("unfinished", p.What).WithWitness(p.Peer[0].Witness()))
				continue
			}
		}
		extra, missing := diff(got, p.Want)
		fs = append(fs, Breach(p.Reqs, "%s: the listing held %d of the case's tasks, want %d (unexpected: %s; missing: %s)", p.What, len(got), len(p.Want),
			strings.Join(first(extra, 4), ", "), strings.Join(first(missing, 4), ", ")).WithWitness(p.Pages[0].Witness()))
	}
	return fs
}
