package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "auth": requests without valid credentials are refused, and
// requests carrying the interface's tenant are routed to it.

// declaresSecurity reports whether an Agent Card declares authentication:
// securityRequirements or securitySchemes (1.0), or security (0.3), that is
// not empty.
func declaresSecurity(raw []byte) bool {
	var doc map[string]json.RawMessage
	if json.Unmarshal(raw, &doc) != nil {
		return false
	}
	for _, k := range []string{"securityRequirements", "securitySchemes", "security"} {
		v := bytes.TrimSpace(doc[k])
		if len(v) > 0 && string(v) != "null" && string(v) != "[]" && string(v) != "{}" {
			return true
		}
	}
	return false
}

// AuthProbe is a ListTasks call with missing or invalid credentials.
type AuthProbe struct {
	What  string
	Reply *Wire
}

var _ = Register(Scenario{
	ID: "LT-AUTH-REQUIRED", Area: "auth", Level: MUST, Checker: "CheckAuthRequired",
	Title: "ListTasks without credentials, or with a bearer token the server never issued, is refused and serves no tasks",
	Reqs:  R("LT-AUTHZ-7"),
	Quote: `"Servers MUST reject requests with invalid or missing authentication credentials"; "Example error codes: HTTP 401 Unauthorized, gRPC UNAUTHENTICATED, JSON-RPC custom error" (§3.3.2); the server "MUST authenticate every incoming request based on the provided credentials and its declared authentication requirements" (§7.4)`,
	Run: func(e *Env) {
		if !declaresSecurity(e.target.Card.Raw) {
			e.Skip("the Agent Card declares no security requirement or scheme, so requests without credentials may be served (§7.4: \"based on ... its declared authentication requirements\")")
		}
		c := e.A()
		var ps []AuthProbe
		for _, p := range []struct {
			what  string
			edits []Edit
		}{
			{"with no Authorization header", []Edit{WithoutHeader("Authorization")}},
			{"with a bearer token the server never issued", []Edit{WithRawHeader("Authorization", "Bearer "+e.ID("not-a-token"))}},
		} {
			e.By("ListTasks %s", p.what)
			ps = append(ps, AuthProbe{What: p.what, Reply: e.send(c, "sent "+p.what, listOnce(), p.edits...)})
		}
		e.Report(CheckAuthRequired(ps)...)
	},
})

// CheckAuthRequired judges ListTasks calls with missing or invalid
// credentials (LT-AUTH-REQUIRED): serving one breaks the MUST to reject
// them (Fail), whatever it served. The status codes are examples: an
// HTTP+JSON refusal other than 401 is recorded (Info), as is the HTTP
// status of a JSON-RPC refusal, which the spec leaves open.
func CheckAuthRequired(ps []AuthProbe) []Finding {
	var fs []Finding
	for _, p := range ps {
		r := p.Reply
		if r == nil || r.Response == nil || r.X == nil {
			continue
		}
		switch {
		case r.Err == nil && r.Malformed == "":
			n := len(r.Page().Tasks)
			fs = append(fs, Breach(R("LT-AUTHZ-7"), "ListTasks %s was served (HTTP %d, %d tasks); servers \"MUST reject requests with invalid or missing authentication credentials\"", p.What, r.X.Status, n).
				Of("served", p.What).WithWitness(r.Witness()))
		case r.Err == nil:
			fs = append(fs, Observe(R("LT-AUTHZ-7"), "ListTasks %s got HTTP %d with a reply that is neither an A2A result nor an A2A error (%s)", p.What, r.X.Status, r.Malformed))
		case r.X.Binding == a2aclient.HTTPJSON && r.X.Status != http.StatusUnauthorized:
			fs = append(fs, Observe(R("LT-AUTHZ-7"), "ListTasks %s was refused with HTTP %d (%s); the spec's example code for authentication errors is 401 Unauthorized", p.What, r.X.Status, r.Err))
		case r.X.Binding == a2aclient.JSONRPC:
			fs = append(fs, Observe(R("LT-AUTHZ-7", "LT-RPC-3"), "ListTasks %s was refused with JSON-RPC code %d in an HTTP %d reply (the spec assigns no JSON-RPC code to authentication errors)", p.What, r.Err.Code, r.X.Status))
		}
	}
	return fs
}

// TenantRoute is a task created, listed and read with one tenant.
type TenantRoute struct {
	Tenant, From string
	Binding      a2aclient.Binding
	Send         *a2aclient.Response
	// ID is the created task ("" when SendMessage failed); List and Get
	// are the calls that must find it.
	ID   string
	List *a2aclient.Page
	Get  *a2aclient.Response
	// MadeUp is true when the tenant is pagewalk's own (the card declares
	// none and none was given). Routing by it is then shown only against
	// a second made-up tenant: Other is the listing of the same context
	// with OtherTenant.
	MadeUp      bool
	OtherTenant string
	Other       *a2aclient.Page
}

// Unjudged says why the calls cannot show routing by tenant ("" when they
// can). A tenant the card declares, or the user gives, is the server's
// own: that requests carrying it are served, in its placement, is the
// evidence. A made-up tenant is evidence only if it is not ignored: when a
// second made-up tenant lists the task too, the server does not route by
// tenant, which the spec leaves it free to do where the card declares
// none, so there is nothing to judge.
func (o TenantRoute) Unjudged() string {
	if !o.MadeUp || o.Send == nil || o.Send.Err != nil {
		return ""
	}
	const why = "with no tenant in the Agent Card, clients omit the field (\"omit the field if tenant is not set in that entry\", §8.3.2) and a server \"MAY use the tenant field\" (multi-tenancy), so ignoring it breaks nothing; give --tenant T, a tenant the server routes by, to judge routing by tenant"
	switch l := o.Other; {
	case l == nil || l.X == nil:
		return fmt.Sprintf("the Agent Card declares no tenant, and pagewalk's made-up tenant %q was not compared with another, so the calls cannot show that the server routes by it; %s", o.Tenant, why)
	case l.Err != nil || l.Malformed != "":
		return "" // the server told the two made-up tenants apart
	case contains(l.IDs(), o.ID):
		return fmt.Sprintf("the Agent Card declares no tenant, and the server ignores the tenant: task %s, created with pagewalk's made-up tenant %q, is listed with another made-up tenant %q too; %s", o.ID, o.Tenant, o.OtherTenant, why)
	}
	return ""
}

func (t TenantRoute) placement() string {
	if t.Binding == a2aclient.HTTPJSON {
		return "the path prefix /" + t.Tenant + "/"
	}
	return "params.tenant"
}

var _ = Register(Scenario{
	ID: "LT-TENANT-ROUTE", Area: "auth", Level: SHOULD, Checker: "CheckTenantRoute",
	Title: "Requests that carry the interface's tenant (params.tenant, or GET /{tenant}/tasks) are served in that tenant: a task created there is listed and read there",
	Reqs:  R("LT-REQ-1", "LT-TEN-2", "LT-TEN-3", "LT-OP-3"),
	Quote: `tenant: "Optional. Opaque routing identifier. Must match the tenant value from the selected AgentInterface in the Agent Card when that field is set." (proto); get: "/tasks" with additional_bindings { get: "/{tenant}/tasks" } (proto); the tenant is "an opaque string whose value is defined entirely by the server operator" (multi-tenancy)`,
	Run: func(e *Env) {
		iface, _ := e.target.Card.Interface(e.Binding())
		tenant, from := iface.Tenant, "the Agent Card"
		if tenant == "" {
			tenant, from = e.target.Tenant, "--tenant"
		}
		if tenant == "" {
			tenant, from = e.target.OtherTenant, "--other-tenant"
		}
		madeUp := tenant == ""
		if madeUp {
			// No tenant declared or given: try one of pagewalk's own making.
			// A server without tenants may refuse it; then there is nothing
			// to judge.
			tenant, from = e.ID("tenant"), "pagewalk (the card declares none)"
		}
		c := e.clientFor(e.Binding(), 0, tenant)
		ctx := e.ID("ctx")
		o := TenantRoute{Tenant: tenant, From: from, Binding: e.Binding()}
		e.By("SendMessage with tenant %q (from %s) in context %s", tenant, from, ctx)
		r, err := c.SendMessage(e.ctx, e.ID("tenant-msg"), e.target.BlackBoxText, ctx, "")
		e.checkSend(err)
		if madeUp && r.Err != nil {
			e.Skip("the Agent Card declares no tenant, and the server refused one of pagewalk's making (%s): give --tenant to judge routing by tenant", r.Describe())
		}
		o.Send = r.Response
		if r.Err == nil {
			if r.Task.ID == "" {
				e.Skip("SendMessage with the tenant did not answer with a task (%s %s); this case needs a task it creates itself", r.Describe(), r.Problem)
			}
			o.ID = r.Task.ID
			e.By("ListTasks and GetTask with tenant %q", tenant)
			o.List, err = c.ListTasks(e.ctx, a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(10), HistoryLength: a2aclient.Ptr(0)})
			e.Check(err, "ListTasks")
			g, err := c.GetTask(e.ctx, o.ID, a2aclient.Ptr(0))
			e.Check(err, "GetTask")
			o.Get = g.Response
			if madeUp {
				o.MadeUp, o.OtherTenant = true, e.ID("tenant-2")
				e.By("ListTasks of context %s with another made-up tenant %q: a server that routes by tenant does not list the task there", ctx, o.OtherTenant)
				o.Other, err = e.clientFor(e.Binding(), 0, o.OtherTenant).ListTasks(e.ctx, a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(10), HistoryLength: a2aclient.Ptr(0)})
				e.Check(err, "ListTasks")
			}
		}
		if why := o.Unjudged(); why != "" {
			e.ReportOrSkip(CheckTenantRoute(o), "%s", why)
			return
		}
		e.Report(CheckTenantRoute(o)...)
	},
})

// CheckTenantRoute judges calls made with the interface's tenant
// (LT-TENANT-ROUTE). The tenant field and its placement come from proto
// comments and annotations (normative, no RFC 2119 keyword), so a request
// with the tenant that fails, or a task created in the tenant that the
// tenant's listing does not hold, is Non-strict.
func CheckTenantRoute(o TenantRoute) []Finding {
	if o.Send == nil || o.Send.X == nil {
		return nil
	}
	if o.Send.Err != nil {
		return []Finding{Breach(R("LT-REQ-1", "LT-TEN-2", "LT-OP-3"), "SendMessage with tenant %q (from %s, in %s) failed: %s", o.Tenant, o.From, o.placement(), o.Send.Err).WithWitness(o.Send.X.Transcript())}
	}
	var fs []Finding
	if l := o.List; l != nil && l.X != nil {
		switch {
		case l.Err != nil || l.Malformed != "":
			fs = append(fs, Breach(R("LT-OP-3", "LT-REQ-1", "LT-TEN-2"), "ListTasks with tenant %q (in %s) failed: %s", o.Tenant, o.placement(), l.Describe()).WithWitness(l.X.Transcript()))
		case !contains(l.IDs(), o.ID):
			fs = append(fs, Breach(R("LT-REQ-1", "LT-TEN-3"), "task %s, created with tenant %q, is not in that tenant's listing of its context (%d tasks): the tenant did not route both calls alike", o.ID, o.Tenant, len(l.Tasks)).
				WithWitness(o.Send.X.Transcript()+"\n"+l.X.Transcript()))
		}
	}
	if g := o.Get; g != nil && g.X != nil && (g.Err != nil || g.Malformed != "") {
		fs = append(fs, Breach(R("LT-REQ-1", "LT-TEN-2"), "GetTask of task %s with tenant %q (in %s) failed: %s", o.ID, o.Tenant, o.placement(), g.Describe()).WithWitness(g.X.Transcript()))
	}
	return fs
}
