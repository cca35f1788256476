package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "card": the Agent Card is at the well-known URI, declares its
// interfaces with the members the proto requires, and every JSONRPC or
// HTTP+JSON 1.0 interface it declares answers ListTasks at its URL.

// declaredInterface is one supportedInterfaces entry as the card wrote it.
type declaredInterface struct {
	Index                         int
	URL, Binding, Version, Tenant string
	// Missing lists the REQUIRED members (url, protocolBinding,
	// protocolVersion) that are absent, empty or not strings.
	Missing []string
}

// String names the entry for messages.
func (d declaredInterface) String() string {
	return fmt.Sprintf("supportedInterfaces[%d] (%s %s at %q)", d.Index, d.Binding, d.Version, d.URL)
}

// declaredInterfaces reads supportedInterfaces from a card document. problem
// is non-empty when the member is absent, not an array or empty.
func declaredInterfaces(raw []byte) (out []declaredInterface, problem string) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil || doc == nil {
		return nil, "the card is not a JSON object"
	}
	si, ok := doc["supportedInterfaces"]
	if !ok {
		return nil, "supportedInterfaces is absent"
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(si, &entries); err != nil || entries == nil {
		return nil, "supportedInterfaces is not an array of objects"
	}
	if len(entries) == 0 {
		return nil, "supportedInterfaces is empty"
	}
	for i, en := range entries {
		d := declaredInterface{Index: i}
		for _, m := range []struct {
			name string
			dst  *string
		}{{"url", &d.URL}, {"protocolBinding", &d.Binding}, {"protocolVersion", &d.Version}} {
			if json.Unmarshal(en[m.name], m.dst) != nil || *m.dst == "" {
				d.Missing = append(d.Missing, m.name)
			}
		}
		json.Unmarshal(en["tenant"], &d.Tenant)
		out = append(out, d)
	}
	return out, ""
}

// bindingOf maps a declared protocolBinding to a binding pagewalk speaks
// ("" for others, e.g. GRPC).
func bindingOf(protocolBinding string) a2aclient.Binding {
	switch strings.ToUpper(protocolBinding) {
	case "JSONRPC":
		return a2aclient.JSONRPC
	case "HTTP+JSON":
		return a2aclient.HTTPJSON
	}
	return ""
}

// resolveAgainst resolves an interface URL against the card's URL, as
// discovery does.
func resolveAgainst(cardURL, ref string) string {
	b, err := url.Parse(cardURL)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return strings.TrimRight(b.ResolveReference(r).String(), "/")
}

// wellKnownURL is the card's well-known URI on the card's origin (§8.2:
// https://{server_domain}/.well-known/agent-card.json).
func wellKnownURL(cardURL string) string {
	u, err := url.Parse(cardURL)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/.well-known/agent-card.json"}).String()
}

// CardFetch is one fetch of the Agent Card at the well-known URI.
type CardFetch struct {
	// URL is the well-known URI; Found is where discovery found the card.
	URL, Found string
	Status     int
	Body       []byte
	// Err is a transport failure ("" if the server answered).
	Err string
}

func fetchCard(ctx context.Context, hc *http.Client, u string) CardFetch {
	f := CardFetch{URL: u}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		f.Err = err.Error()
		return f
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		f.Err = err.Error()
		return f
	}
	defer resp.Body.Close()
	f.Status = resp.StatusCode
	f.Body, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		f.Err = err.Error()
	}
	return f
}

func (f CardFetch) witness() string {
	if f.Err != "" {
		return fmt.Sprintf("--> GET %s\n<-- transport error: %s", f.URL, f.Err)
	}
	body := strings.TrimSpace(string(f.Body))
	if len(body) > 1200 {
		body = body[:1200] + fmt.Sprintf("... (%d more bytes)", len(body)-1200)
	}
	return fmt.Sprintf("--> GET %s\n<-- %d %s", f.URL, f.Status, body)
}

var _ = Register(Scenario{
	ID: "LT-CARD-WELLKNOWN", Area: "card", Level: MUST, Checker: "CheckCardWellKnown", CrossBinding: true,
	Title: "The Agent Card is served at /.well-known/agent-card.json and declares each interface's url, protocolBinding and protocolVersion",
	Reqs:  R("LT-CARD-1", "LT-CARD-2", "LT-CARD-3", "LT-CARD-4", "LT-CARD-5"),
	Quote: `"A2A Servers MUST make an Agent Card available." (§8.1); "Well-Known URI: Accessing https://{server_domain}/.well-known/agent-card.json" (§8.2); AgentInterface: url, protocolBinding and protocolVersion are REQUIRED (§4.4.6); "Each interface MUST accurately declare its transport protocol and URL" (§8.3.1)`,
	Run: func(e *Env) {
		u := wellKnownURL(e.target.Card.URL)
		e.By("fetch the Agent Card at the well-known URI %s", u)
		f := fetchCard(e.ctx, e.target.HTTP, u)
		f.Found = e.target.Card.URL
		e.Report(CheckCardWellKnown(f)...)
	},
})

// CheckCardWellKnown judges the card fetched at the well-known URI
// (LT-CARD-WELLKNOWN). A card that is missing there while discovery found
// it elsewhere contradicts §8.2 (Non-strict). Its interface entries must
// carry url and protocolBinding (the MUST of §8.3.1: Fail) and
// protocolVersion (REQUIRED in the proto: Non-strict).
func CheckCardWellKnown(f CardFetch) []Finding {
	w := f.witness()
	if f.Err != "" || f.Status != http.StatusOK {
		what := f.Err
		if what == "" {
			what = fmt.Sprintf("HTTP %d", f.Status)
		}
		return []Finding{Breach(R("LT-CARD-2", "LT-CARD-1"), "no Agent Card at the well-known URI %s (%s); discovery found it at %s", f.URL, what, f.Found).WithWitness(w)}
	}
	ifaces, problem := declaredInterfaces(f.Body)
	if problem != "" {
		return []Finding{Breach(R("LT-CARD-3", "LT-CARD-5"), "the card at %s: %s; supportedInterfaces is REQUIRED (\"Ordered list of supported interfaces\")", f.URL, problem).WithWitness(w)}
	}
	var fs []Finding
	for _, d := range ifaces {
		for _, m := range d.Missing {
			if m == "protocolVersion" {
				fs = append(fs, Breach(R("LT-CARD-4"), "%s has no protocolVersion; it is REQUIRED (e.g. \"1.0\")", d).Of("missing protocolVersion", d.String()).WithWitness(w))
				continue
			}
			fs = append(fs, Breach(R("LT-CARD-5", "LT-CARD-4"), "%s has no %s; \"Each interface MUST accurately declare its transport protocol and URL\"", d, m).Of("missing "+m, d.String()).WithWitness(w))
		}
		if strings.Count(d.Version, ".") > 1 {
			fs = append(fs, Observe(R("LT-CARD-4", "LT-VER-4"), "%s declares protocolVersion %q; patch numbers \"SHOULD NOT be used in requests, responses and Agent Cards\" (§3.6)", d, d.Version))
		}
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-CARD-INTERFACES", Area: "card", Level: MUST, Checker: "CheckCardInterfaces", CrossBinding: true,
	Title: "Every JSONRPC and HTTP+JSON 1.0 interface the card declares answers ListTasks at its URL",
	Reqs:  R("LT-CARD-5", "LT-CARD-3", "LT-OP-1"),
	Quote: `"Each interface MUST accurately declare its transport protocol and URL"; "Agents MUST declare all supported protocols in their AgentCard" (§8.3.1, §5.2)`,
	Run: func(e *Env) {
		ifaces, problem := declaredInterfaces(e.target.Card.Raw)
		if problem != "" {
			e.Skip("the discovered card's %s (LT-CARD-WELLKNOWN judges the card)", problem)
		}
		var obs []InterfaceProbe
		for _, d := range ifaces {
			b := bindingOf(d.Binding)
			if b == "" || d.Version != a2aclient.ProtocolVersion || d.URL == "" {
				continue
			}
			p := e.target.Principals[0]
			c := &a2aclient.Client{HTTP: e.target.HTTP, Iface: a2aclient.Interface{Binding: b, URL: resolveAgainst(e.target.Card.URL, d.URL), Tenant: d.Tenant},
				Principal: p.Name, Token: p.Token, Tenant: e.target.Tenant, Record: e.record}
			e.By("ListTasks (pageSize 1) at %s", d)
			w, err := sendRaw(e.ctx, e.target.HTTP, c, "", a2aclient.Request{Op: "ListTasks", Params: a2aclient.ListRequest{PageSize: a2aclient.Ptr(1), HistoryLength: a2aclient.Ptr(0)}.Params()})
			probe := InterfaceProbe{Declared: d.String(), Reply: w}
			if err != nil && w == nil {
				e.Check(err, "ListTasks")
			}
			obs = append(obs, probe)
		}
		if len(obs) == 0 {
			e.Skip("the card declares no JSONRPC or HTTP+JSON interface with protocolVersion 1.0")
		}
		e.Report(CheckCardInterfaces(obs)...)
	},
})

// InterfaceProbe is a ListTasks call at one declared interface.
type InterfaceProbe struct {
	Declared string
	Reply    *Wire
}

// CheckCardInterfaces judges ListTasks at every declared 1.0 interface
// (LT-CARD-INTERFACES): a transport failure, an error or a reply that is not
// an A2A reply breaks the MUST that each interface accurately declares its
// URL.
func CheckCardInterfaces(ps []InterfaceProbe) []Finding {
	var fs []Finding
	for _, p := range ps {
		r := p.Reply
		switch {
		case r == nil || r.Response == nil || r.X == nil:
			continue
		case r.X.Err != "":
			fs = append(fs, Breach(R("LT-CARD-5"), "the card declares %s, but ListTasks there got no reply: %s", p.Declared, r.X.Err).WithWitness(r.Witness()))
		case r.Err != nil:
			fs = append(fs, Breach(R("LT-CARD-5", "LT-OP-1"), "the card declares %s, but ListTasks there failed: %s", p.Declared, r.Err).WithWitness(r.Witness()))
		case r.Malformed != "":
			fs = append(fs, Breach(R("LT-CARD-5"), "the card declares %s, but the reply to ListTasks there is not an A2A reply: %s", p.Declared, r.Malformed).WithWitness(r.Witness()))
		}
	}
	return fs
}
