package scenarios

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "protocol": version negotiation (the A2A-Version service
// parameter), the operation's name on each binding, and idempotence.

// listOnce is the small, valid ListTasks request the protocol cases vary.
func listOnce() a2aclient.Request {
	return a2aclient.Request{Op: "ListTasks", Params: a2aclient.ListRequest{PageSize: a2aclient.Ptr(1), HistoryLength: a2aclient.Ptr(0)}.Params()}
}

// versionNotSupported reports whether r is a VersionNotSupportedError:
// JSON-RPC code -32009 or, on either binding, a google.rpc.ErrorInfo with
// reason VERSION_NOT_SUPPORTED (which HTTP+JSON MUST carry, §11.6).
func versionNotSupported(r *a2aclient.Response) bool {
	if r == nil || r.Err == nil {
		return false
	}
	if r.X != nil && r.X.Binding == a2aclient.JSONRPC && r.Err.Code == -32009 {
		return true
	}
	return hasReason(r.Err, "VERSION_NOT_SUPPORTED")
}

// sameURLDeclares03 reports whether the card declares, for binding b, an
// interface with protocolVersion 0.3 at the same URL as the 1.0 one: a
// request without A2A-Version is then a 0.3 request (LT-VER-6).
func sameURLDeclares03(card *a2aclient.Card, b a2aclient.Binding) bool {
	iface, ok := card.Interface(b)
	if !ok {
		return false
	}
	ds, _ := declaredInterfaces(card.Raw)
	for _, d := range ds {
		if bindingOf(d.Binding) == b && strings.HasPrefix(d.Version, "0.3") && resolveAgainst(card.URL, d.URL) == iface.URL {
			return true
		}
	}
	return false
}

var _ = Register(Scenario{
	ID: "LT-VERSION-ABSENT", Area: "protocol", Level: MUST, Checker: "CheckVersionAbsent",
	Title: "A request without A2A-Version is a 0.3 request: an interface that speaks only 1.0 answers VersionNotSupportedError",
	Reqs:  R("LT-VER-3", "LT-VER-6"),
	Quote: `"Agents MUST interpret empty value as 0.3 version." "If the version is not supported by the interface, agents MUST return a VersionNotSupportedError." "Agents CAN expose multiple interfaces for the same transport with different versions under the same or different URLs." (§3.6.2)`,
	Run: func(e *Env) {
		e.By("ListTasks with no A2A-Version header")
		w := e.send(e.A(), "sent with no A2A-Version header", listOnce(), WithoutHeader("A2A-Version"))
		if sameURLDeclares03(e.target.Card, e.Binding()) {
			e.Skip("the card declares a 0.3 interface at this URL, so a request without A2A-Version is a 0.3 request, whose answer this harness does not judge (the server answered %s)", w.Describe())
		}
		e.Report(CheckVersionAbsent(w)...)
	},
})

// CheckVersionAbsent judges the reply to a request without A2A-Version
// sent to an interface that speaks only 1.0 (LT-VERSION-ABSENT; where the
// card declares a 0.3 interface at the same URL the request is a 0.3
// request and the case skips). The empty value means 0.3, so the answer
// MUST be VersionNotSupportedError. The spec's own examples send
// "A2A-Version: 0.3" and the TCK sends no header (ambiguity A16), so a
// departure is at most Non-strict.
func CheckVersionAbsent(w *Wire) []Finding {
	if w == nil || w.Response == nil {
		return nil
	}
	wit := w.Witness()
	switch {
	case w.Err == nil && w.Malformed == "":
		return []Finding{Breach(R("LT-VER-3", "LT-VER-6"), "ListTasks without A2A-Version was served as a 1.0 request; \"Agents MUST interpret empty value as 0.3 version\", and this interface speaks only 1.0, so the answer must be VersionNotSupportedError").
			Ambiguous("A16").WithWitness(wit)}
	case !versionNotSupported(w.Response):
		return []Finding{Breach(R("LT-VER-3", "LT-ERR-10"), "ListTasks without A2A-Version (read as 0.3, which this interface does not speak) was answered %s, not VersionNotSupportedError (JSON-RPC -32009; ErrorInfo reason VERSION_NOT_SUPPORTED)", w.Describe()).
			Ambiguous("A16").WithWitness(wit)}
	}
	return nil
}

var _ = Register(Scenario{
	ID: "LT-VERSION-UNSUPPORTED", Area: "protocol", Level: MUST, Checker: "CheckVersionUnsupported",
	Title: "A2A-Version: 99.0 is answered with VersionNotSupportedError, never served",
	Reqs:  R("LT-VER-3", "LT-ERR-10", "LT-ERR-8"),
	Quote: `"Agents MUST process requests using the semantics of the requested A2A-Version (matching Major.Minor). If the version is not supported by the interface, agents MUST return a VersionNotSupportedError." (§3.6.2); VersionNotSupported: JSON-RPC -32009, HTTP 400 FAILED_PRECONDITION (§5.4)`,
	Run: func(e *Env) {
		e.By("ListTasks with A2A-Version: 99.0")
		w := e.send(e.A(), "sent with A2A-Version: 99.0", listOnce(), WithoutHeader("A2A-Version"), WithRawHeader("A2A-Version", "99.0"))
		e.Report(CheckVersionUnsupported(w)...)
	},
})

// CheckVersionUnsupported judges the reply to a version the server cannot
// speak (LT-VERSION-UNSUPPORTED). Serving it, or refusing it with another
// error, breaks the MUST (Fail); on HTTP+JSON the error is recognised by
// its ErrorInfo reason, which A2A errors MUST carry there. A
// VersionNotSupportedError with an HTTP status other than 400 (HEAD) or 501
// (v1.0.0's UNIMPLEMENTED) departs from the mapping table, which changed
// after 1.0.0 (A14): Non-strict.
func CheckVersionUnsupported(w *Wire) []Finding {
	if w == nil || w.Response == nil {
		return nil
	}
	wit := w.Witness()
	switch {
	case w.Err == nil:
		return []Finding{Breach(R("LT-VER-3"), "ListTasks with A2A-Version: 99.0 was served (%s); \"If the version is not supported by the interface, agents MUST return a VersionNotSupportedError\"", w.Describe()).WithWitness(wit)}
	case w.X.Binding == a2aclient.HTTPJSON && !hasReason(w.Err, "VERSION_NOT_SUPPORTED"):
		return []Finding{Breach(R("LT-VER-3", "LT-ERR-8", "LT-ERR-10"), "A2A-Version: 99.0 was refused with %s, but without a google.rpc.ErrorInfo reason VERSION_NOT_SUPPORTED (reasons: %v), so it is not a VersionNotSupportedError; A2A errors on HTTP+JSON MUST carry one", w.Err, w.Err.Reasons).WithWitness(wit)}
	case w.X.Binding == a2aclient.JSONRPC && w.Err.Code != -32009:
		return []Finding{Breach(R("LT-VER-3", "LT-ERR-10"), "A2A-Version: 99.0 was refused with JSON-RPC code %d, not -32009 (VersionNotSupportedError)", w.Err.Code).WithWitness(wit)}
	case w.X.Binding == a2aclient.HTTPJSON && w.X.Status != 400 && w.X.Status != 501:
		return []Finding{Breach(R("LT-ERR-10"), "VersionNotSupportedError came with HTTP %d; the mapping table says 400 FAILED_PRECONDITION (501 UNIMPLEMENTED in v1.0.0)", w.X.Status).Ambiguous("A14").WithWitness(wit)}
	}
	return nil
}

// VersionProbe is one spelling of the version service parameter and the
// reply to it.
type VersionProbe struct {
	// Kind is "patch" (A2A-Version: 1.0.1), "name-case" (the header name
	// in another letter case) or "query" (?A2A-Version=1.0, no header).
	Kind, What string
	Reply      *Wire
}

var _ = Register(Scenario{
	ID: "LT-VERSION-FORMS", Area: "protocol", Level: MUST, Checker: "CheckVersionForms",
	Title: "A2A-Version is honoured with a patch number (1.0.1) and whatever the header name's letter case",
	Reqs:  R("LT-VER-4", "LT-VER-5", "LT-VER-2"),
	Quote: `Patch version numbers "MUST not be considered when clients and servers negotiate protocol versions" (§3.6); "Service parameter names MUST be transmitted as HTTP header fields"; "Service parameter keys are case-insensitive" (§9.2, §11.2); "Clients MAY provide the A2A-Version as a request parameter instead of a header." (§3.6.1)`,
	Run: func(e *Env) {
		c := e.A()
		var ps []VersionProbe
		for _, p := range []struct {
			kind, what string
			edits      []Edit
		}{
			{"patch", "A2A-Version: 1.0.1", []Edit{WithoutHeader("A2A-Version"), WithRawHeader("A2A-Version", "1.0.1")}},
			{"name-case", "a2a-version: 1.0", []Edit{WithoutHeader("A2A-Version"), WithRawHeader("a2a-version", "1.0")}},
			{"name-case", "A2A-VERSION: 1.0", []Edit{WithoutHeader("A2A-Version"), WithRawHeader("A2A-VERSION", "1.0")}},
			{"query", "?A2A-Version=1.0 and no header", []Edit{WithoutHeader("A2A-Version"), WithURL(addQuery("A2A-Version", "1.0"))}},
		} {
			e.By("ListTasks sent with %s", p.what)
			ps = append(ps, VersionProbe{Kind: p.kind, What: p.what, Reply: e.send(c, "sent with "+p.what, listOnce(), p.edits...)})
		}
		e.Report(CheckVersionForms(ps)...)
	},
})

// addQuery appends name=value to a URL's query string.
func addQuery(name, value string) func(string) string {
	return func(u string) string {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		return u + sep + name + "=" + value
	}
}

// CheckVersionForms judges the version parameter's accepted spellings
// (LT-VERSION-FORMS). Refusing 1.0.1 considers the patch number, which
// §3.6 forbids (Fail); refusing a header whose name differs only in letter
// case breaks the MUST that service parameters travel as (case-insensitive)
// HTTP header fields (Fail). The query-parameter form is a client's MAY:
// what the server did is recorded.
func CheckVersionForms(ps []VersionProbe) []Finding {
	var fs []Finding
	for _, p := range ps {
		if p.Reply == nil || p.Reply.Response == nil {
			continue
		}
		ok := p.Reply.Err == nil && p.Reply.Malformed == ""
		w := p.Reply.Witness()
		switch p.Kind {
		case "patch":
			if !ok {
				fs = append(fs, Breach(R("LT-VER-4", "LT-VER-3"), "ListTasks sent with %s was refused (%s); patch numbers \"MUST not be considered when clients and servers negotiate protocol versions\" (§3.6)", p.What, p.Reply.Describe()).WithWitness(w))
			}
		case "name-case":
			if !ok {
				fs = append(fs, Breach(R("LT-VER-5"), "ListTasks sent with the header %s was refused (%s); service parameter names travel as HTTP header fields, whose names are case-insensitive (§9.2, §11.2)", p.What, p.Reply.Describe()).Of("name-case", p.What).WithWitness(w))
			}
		case "query":
			if ok {
				fs = append(fs, Observe(R("LT-VER-2"), "A2A-Version given as a request parameter (%s) was accepted", p.What))
			} else {
				fs = append(fs, Observe(R("LT-VER-2", "LT-VER-3"), "A2A-Version given as a request parameter (%s) was not honoured: %s (clients MAY send it so; a server that reads only the header sees an empty value, which means 0.3)", p.What, p.Reply.Describe()))
			}
		}
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-METHOD-NAME", Area: "protocol", Level: SHOULD, Checker: "CheckMethodName",
	Title: "ListTasks is the JSON-RPC method ListTasks (not the pre-1.0 tasks/list) and GET /tasks under the HTTP+JSON interface URL",
	Reqs:  R("LT-OP-1", "LT-OP-2", "LT-OP-3", "LT-REST-8"),
	Quote: `Method map: "List tasks | ListTasks | ListTasks | GET /tasks" (§5.3); JSON-RPC "Method Naming: PascalCase method names matching gRPC conventions" (§9.1); proto: get: "/tasks"`,
	Run: func(e *Env) {
		c := e.A()
		var ps []MethodProbe
		switch e.Binding() {
		case a2aclient.JSONRPC:
			for _, m := range []string{"ListTasks", "tasks/list"} {
				e.By("JSON-RPC method %q with valid ListTasks params", m)
				body := rpcBody(c, fmt.Sprintf("pw-%s", strings.ReplaceAll(m, "/", "-")), m, map[string]any{"pageSize": 1, "historyLength": 0})
				ps = append(ps, MethodProbe{Name: m, Want: m == "ListTasks", Reply: e.send(c, "", listOnce(), WithBody(body))})
			}
		case a2aclient.HTTPJSON:
			e.By("GET %s/tasks", c.Iface.URL)
			ps = append(ps, MethodProbe{Name: "GET /tasks", Want: true, Reply: e.send(c, "", listOnce())})
		}
		e.Report(CheckMethodName(ps)...)
	},
})

// MethodProbe is a call by one method name (or HTTP route) and whether it
// must be served as ListTasks.
type MethodProbe struct {
	Name  string
	Want  bool
	Reply *Wire
}

// CheckMethodName judges the names ListTasks answers to (LT-METHOD-NAME).
// The method map is normative text without an RFC 2119 keyword, so a
// departure is Non-strict; serving the pre-1.0 name tasks/list rests on
// the naming ambiguity A15.
func CheckMethodName(ps []MethodProbe) []Finding {
	var fs []Finding
	for _, p := range ps {
		if p.Reply == nil || p.Reply.Response == nil {
			continue
		}
		ok := p.Reply.Err == nil && p.Reply.Malformed == ""
		w := p.Reply.Witness()
		switch {
		case p.Want && !ok:
			fs = append(fs, Breach(R("LT-OP-1", "LT-OP-3"), "%s with valid parameters failed: %s; the method map names ListTasks %s", p.Name, p.Reply.Describe(), p.Name).WithWitness(w))
		case !p.Want && ok:
			fs = append(fs, Breach(R("LT-OP-2", "LT-OP-1"), "the pre-1.0 method name %q was served as ListTasks; A2A 1.0 JSON-RPC methods are PascalCase (\"ListTasks\"), and a 1.0 request naming another method is not ListTasks", p.Name).
				Ambiguous("A15").WithWitness(w))
		case !p.Want && p.Reply.Err != nil && p.Reply.Err.Code != -32601:
			fs = append(fs, Observe(R("LT-OP-2", "LT-ERR-4"), "the pre-1.0 method name %q was refused with code %d (Method not found is -32601)", p.Name, p.Reply.Err.Code))
		}
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-IDEMPOTENT", Area: "protocol", Level: SHOULD, Checker: "CheckIdempotent",
	Title: "The same ListTasks walk twice, with no writes in between, serves the same tasks in the same states",
	Reqs:  R("LT-OP-7"),
	Quote: `"Get operations (Get Task, List Tasks, Get Extended Agent Card) are naturally idempotent" (§3.3.1)`,
	Run: func(e *Env) {
		ctx := e.ID("ctx")
		e.By("create 4 tasks with SendMessage in context %s", ctx)
		made := e.createTasks(e.A(), 4, ctx, "idem")
		e.By("list context %s once (pageSize 100) to see that it holds only the case's tasks", ctx)
		reads := []History{{Pages: []a2aclient.Step{{N: 1, Page: e.requireIsolated(e.A(), ctx, createdIDs(made))}}}}
		req := a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(3), HistoryLength: a2aclient.Ptr(0)}
		for i := 1; i <= 2; i++ {
			e.By("walk context %s with pageSize 3 (walk %d)", ctx, i)
			reads = append(reads, e.Walk(e.A(), req, 20, nil))
		}
		e.Report(CheckIdempotent(reads...)...)
	},
})

// taskState is what a read must not change about a task: its state, status
// timestamp, and how much history and how many artifacts it carries.
type taskState struct{ State, Timestamp, History, Artifacts string }

func stateOf(t a2aclient.Task) taskState {
	s := taskState{State: t.State, Timestamp: t.Timestamp, History: fmt.Sprint(len(t.History))}
	if n, ok := t.ArtifactCount(); ok {
		s.Artifacts = fmt.Sprint(n)
	}
	if t.History == nil {
		s.History = "absent"
	}
	return s
}

// walkStates maps each task a walk served to what it showed.
func walkStates(h History) map[string]taskState {
	out := map[string]taskState{}
	for _, p := range h.Pages {
		if p.Page == nil || p.Err != nil {
			continue
		}
		for _, t := range p.Tasks {
			out[t.ID] = stateOf(t)
		}
	}
	return out
}

// CheckIdempotent judges reads of one listing made with no writes in
// between (LT-IDEMPOTENT): each read shows every task it shares with the
// read before it in the same state, with the same status timestamp, history
// and artifacts, and the same totalSize; the last two reads are the same
// walk and serve the same set. A read that changes what the next read sees
// is not idempotent (normative text without an RFC 2119 keyword:
// Non-strict). Pages may be short and tokens may differ between walks; the
// order of tasks with equal timestamps is not compared (LT-ORDER-3). When a
// walk ended early (judged by the walk cases), the sets are not compared.
func CheckIdempotent(reads ...History) []Finding {
	var fs []Finding
	for i := 1; i < len(reads); i++ {
		prev, cur := reads[i-1], reads[i]
		if len(prev.Pages) == 0 || len(cur.Pages) == 0 {
			continue
		}
		w := prev.Witness(1) + "\n" + cur.Witness(1)
		a, b := walkStates(prev), walkStates(cur)
		var changed []string
		for id, s := range a {
			if t, ok := b[id]; ok && s != t {
				changed = append(changed, fmt.Sprintf("%s: %+v then %+v", id, s, t))
			}
		}
		sort.Strings(changed)
		if len(changed) > 0 {
			fs = append(fs, Breach(R("LT-OP-7"), "read %d of the same listing, with no writes since read %d, showed %d tasks changed: %s", i+1, i, len(changed), strings.Join(first3(changed), "; ")).
				Of("changed", fmt.Sprint(i+1)).WithWitness(w))
		}
		p1, p2 := prev.Pages[0], cur.Pages[0]
		// totalSize is compared only between the same requests: what it
		// counts is LT-TOTALSIZE's to judge.
		same := fmt.Sprint(p1.Request.Params()) == fmt.Sprint(p2.Request.Params())
		if same && p1.Page != nil && p2.Page != nil && p1.Err == nil && p2.Err == nil && p1.TotalSize != nil && p2.TotalSize != nil && *p1.TotalSize != *p2.TotalSize {
			fs = append(fs, Breach(R("LT-OP-7", "LT-RESP-6"), "read %d of the same listing said totalSize %d, read %d said %d, with no writes in between", i, *p1.TotalSize, i+1, *p2.TotalSize).WithWitness(w))
		}
	}
	if len(reads) < 2 {
		return fs
	}
	first, second := reads[len(reads)-2], reads[len(reads)-1]
	if first.End != "" || second.End != "" {
		end := first.End
		if end == "" {
			end = second.End
		}
		return append(fs, Observe(R("LT-OP-7"), "a walk ended early (%s; judged by the walk cases), so the sets the two walks served were not compared", end))
	}
	a, b := walkStates(first), walkStates(second)
	var gone, extra []string
	for id := range a {
		if _, ok := b[id]; !ok {
			gone = append(gone, id)
		}
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			extra = append(extra, id)
		}
	}
	sort.Strings(gone)
	sort.Strings(extra)
	if len(gone) > 0 || len(extra) > 0 {
		fs = append(fs, Breach(R("LT-OP-7"), "the same ListTasks walk, repeated with no writes in between, served other tasks: missing the second time %v, new the second time %v", first3(gone), first3(extra)).
			WithWitness(first.Witness(1)+"\n"+second.Witness(1)))
	}
	return fs
}

func first3(s []string) []string { return first(s, 3) }
