package scenarios

import (
	"strings"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "scoping": a principal never sees another principal's tasks, by
// listing or by GetTask, and tenants are separate.

var _ = Register(Scenario{
	ID: "LT-SCOPE-LIST", Area: "scoping", Level: MUST, Checker: "CheckScopeList",
	Title: "A principal's listing never contains another principal's tasks, with or without filters",
	Reqs:  R("LT-AUTHZ-1", "LT-AUTHZ-3", "LT-AUTHZ-4", "LT-OP-4"),
	Quote: `"Even when contextId or other filter parameters are not specified in requests, implementations MUST scope results to the caller's authorized access boundaries"; List Tasks "MUST only return tasks visible to the authenticated client" (§13.1)`,
	Needs: []Capability{NeedControl, NeedSecondPrincipal},
	Run: func(e *Env) {
		e.Fresh()
		shared := e.Context("shared")
		tasks := Series("a", 0, 1, 8)
		b := Series("b", 1, 20, 5)
		for i := range tasks {
			tasks[i].ContextID = shared
		}
		for i := range b {
			b[i].ContextID = shared
		}
		e.By("seed 8 tasks for %s and 5 for %s, all in context %s", e.Owner(0), e.Owner(1), shared)
		truthA, ids := e.Seed(append(tasks, b...))
		var bIDs []string
		for _, t := range b {
			bIDs = append(bIDs, ids[t.Key])
		}
		var walks []ScopeWalk
		e.By("%s walks without filters, then filtered by the shared context", e.Owner(1))
		walks = append(walks, ScopeWalk{What: "no filter (the newest 200 tasks)", H: e.WalkUpTo(e.B(), a2aclient.ListRequest{PageSize: a2aclient.Ptr(20), HistoryLength: a2aclient.Ptr(0)}, 10), Own: -1})
		own := Truth{}
		for _, t := range b {
			own[ids[t.Key]] = t.TS
		}
		walks = append(walks, ScopeWalk{What: "contextId " + shared, H: e.Walk(e.B(), a2aclient.ListRequest{ContextID: &shared, PageSize: a2aclient.Ptr(3), HistoryLength: a2aclient.Ptr(0)}, 50, nil), Own: len(bIDs), Truth: own})
		e.Report(CheckScopeList(walks, foreignIDs(truthA))...)
	},
	BlackBox: func(e *Env) {
		p := e.Probe()
		foreign := foreignIDs(p.Truth)
		if o, why := e.Observe(0); why == "" {
			for _, t := range o.Tasks {
				foreign[t.ID] = true
			}
		}
		e.Note("%d tasks of %s are known (probe and observed); %s must see none of them", len(foreign), e.Owner(0), e.Owner(1))
		e.By("%s lists context %s, which only %s used, and its own newest tasks", e.Owner(1), p.Context, e.Owner(0))
		ws := []ScopeWalk{
			// Own -1: what else the listing holds is the contextId filter's
			// business (LT-FILTER-CONTEXT); here only the other's tasks count.
			{What: "contextId " + p.Context, H: e.WalkUpTo(e.B(), a2aclient.ListRequest{ContextID: &p.Context, PageSize: a2aclient.Ptr(7), HistoryLength: a2aclient.Ptr(0)}, 50), Own: -1},
			{What: "no filter (the newest 200 tasks)", H: e.WalkUpTo(e.B(), a2aclient.ListRequest{PageSize: a2aclient.Ptr(20), HistoryLength: a2aclient.Ptr(0)}, 10), Own: -1},
		}
		e.Report(CheckScopeList(ws, foreign)...)
	},
	BlackBoxNeeds: []Capability{NeedSecondPrincipal},
})

// ScopeWalk is another principal's walk; Own is how many of its own tasks
// it must see (-1: unknown).
type ScopeWalk struct {
	What string
	H    History
	Own  int
	// Truth, where known, holds the principal's own tasks the walk must
	// serve and their timestamps: own tasks missing because the walk was
	// cut short on nextPageToken "" are LT-WALK-LAST-PAGE's to judge.
	Truth Truth
}

// CheckScopeList judges walks made by a principal that must not see
// foreign tasks (LT-SCOPE-LIST).
func CheckScopeList(ws []ScopeWalk, foreign map[string]bool) []Finding {
	return checkScope(ws, foreign, "principal", R("LT-AUTHZ-1", "LT-AUTHZ-3", "LT-AUTHZ-4"))
}

// checkScope judges walks that must not contain foreign tasks; boundary
// names what separates them, reqs what a leak breaks. A walk that ended
// early is reported by its end (EndFindings) and its own tasks are not
// counted: the count of a listing that was not served is not evidence that
// the principal's tasks are hidden.
func checkScope(ws []ScopeWalk, foreign map[string]bool, boundary string, reqs []string) []Finding {
	var fs []Finding
	for _, w := range ws {
		fs = append(fs, EndFindings(w.H, "LT-SCOPE-LIST")...)
		var leaked []string
		var pages []int
		// Own tasks are counted once each: a task served twice is a
		// duplicate (LT-WALK-EXACT's), and must not hide one never served.
		ownSeen := map[string]bool{}
		for _, p := range w.H.Pages {
			for _, t := range p.Tasks {
				if foreign[t.ID] {
					leaked = append(leaked, t.ID)
					pages = append(pages, p.N)
				} else {
					ownSeen[t.ID] = true
				}
			}
		}
		own := len(ownSeen)
		if len(leaked) > 0 {
			fs = append(fs, Breach(reqs, "%s: the listing contained %d tasks of another %s (%s)", w.What, len(leaked), boundary, strings.Join(first(leaked, 5), ", ")).
				WithWitness(w.H.Witness(pages[0])))
		}
		if w.Own >= 0 && own != w.Own && len(leaked) == 0 && w.H.End == "" {
			var missing []string
			for id := range w.Truth {
				if !ownSeen[id] {
					missing = append(missing, id)
				}
			}
			if cut := cutShort(w.H, w.Truth, missing); own < w.Own && len(cut) > 0 && len(cut) == len(missing) {
				fs = append(fs, cutShortNote(R("LT-OP-4"), prefixed(w.What), cut))
				continue
			}
			fs = append(fs, Breach(R("LT-OP-4"), "%s: the principal saw %d of its own %d tasks", w.What, own, w.Own))
		}
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-SCOPE-GET", Area: "scoping", Level: MUST, Checker: "CheckScopeGet",
	Title: "GetTask and CancelTask on another principal's task answer exactly as for a task that does not exist",
	Reqs:  R("LT-AUTHZ-6", "LT-AUTHZ-5", "LT-ERR-10"),
	Quote: `"Servers MUST NOT reveal the existence of resources the client is not authorized to access" (§3.3.2); Get Task "MUST verify the authenticated client has access to the requested task" (§13.1)`,
	Needs: []Capability{NeedControl, NeedSecondPrincipal},
	Run: func(e *Env) {
		e.Fresh()
		_, ids := e.Seed([]Task{{Key: "secret", TS: At(1), State: "TASK_STATE_WORKING", History: 2}})
		e.Report(CheckScopeGet(e.scopeGetProbes(ids["secret"]))...)
	},
	BlackBox: func(e *Env) {
		ctx := e.Context("scope")
		e.By("create a task of %s's own for this case in context %s (another principal will try to cancel it)", e.Owner(0), ctx)
		var id string
		for k := range e.CreateSeries(e.A(), 1, ctx) {
			id = k
		}
		e.Report(CheckScopeGet(e.scopeGetProbes(id))...)
	},
	BlackBoxNeeds: []Capability{NeedSecondPrincipal},
})

// ScopeGet holds another principal's calls on a foreign task and on a task
// that does not exist, and the owner's view afterwards.
type ScopeGet struct {
	Get, GetMissing       *a2aclient.Response
	Cancel, CancelMissing *a2aclient.Response
	// After is the owner's GetTask after the cancel attempt.
	After      *a2aclient.TaskReply
	StateFirst string
}

func (e *Env) scopeGetProbes(id string) ScopeGet {
	var s ScopeGet
	before, err := e.A().GetTask(e.ctx, id, a2aclient.Ptr(0))
	e.Check(err, "GetTask")
	s.StateFirst = before.Task.State
	missing := e.ID("no-such-task")
	e.By("%s calls GetTask on %s's task and on a task that does not exist", e.Owner(1), e.Owner(0))
	g, err := e.B().GetTask(e.ctx, id, a2aclient.Ptr(0))
	e.Check(err, "GetTask")
	gm, err := e.B().GetTask(e.ctx, missing, a2aclient.Ptr(0))
	e.Check(err, "GetTask")
	e.By("%s calls CancelTask on both", e.Owner(1))
	c, err := e.B().CancelTask(e.ctx, id)
	e.Check(err, "CancelTask")
	cm, err := e.B().CancelTask(e.ctx, missing)
	e.Check(err, "CancelTask")
	after, err := e.A().GetTask(e.ctx, id, a2aclient.Ptr(0))
	e.Check(err, "GetTask")
	s.Get, s.GetMissing, s.Cancel, s.CancelMissing, s.After = g.Response, gm.Response, c.Response, cm.Response, after
	return s
}

// CheckScopeGet judges another principal's GetTask and CancelTask on a
// foreign task (LT-SCOPE-GET).
func CheckScopeGet(s ScopeGet) []Finding {
	var fs []Finding
	for _, c := range []struct {
		op            string
		foreign, none *a2aclient.Response
	}{{"GetTask", s.Get, s.GetMissing}, {"CancelTask", s.Cancel, s.CancelMissing}} {
		w := c.foreign.X.Transcript() + "\n" + c.none.X.Transcript()
		switch {
		case c.foreign.Err == nil:
			fs = append(fs, Breach(R("LT-AUTHZ-6", "LT-AUTHZ-1"), "%s on another principal's task succeeded and returned it", c.op).WithWitness(c.foreign.X.Transcript()))
		case c.none.Err != nil && (c.foreign.Err.Code != c.none.Err.Code || c.foreign.X.Status != c.none.X.Status):
			fs = append(fs, Breach(R("LT-AUTHZ-6"), "%s answers a foreign task (%s) differently from a missing one (%s), revealing that it exists", c.op, c.foreign.Err, c.none.Err).WithWitness(w))
		case c.foreign.Err.Code != -32001 && c.foreign.Err.Code != 404:
			fs = append(fs, Observe(R("LT-ERR-10"), "%s on an inaccessible task answered %s; TaskNotFoundError is -32001 / HTTP 404", c.op, c.foreign.Err).WithWitness(w))
		}
	}
	if s.After != nil && s.After.Err == nil && s.After.Task.State != s.StateFirst {
		fs = append(fs, Breach(R("LT-AUTHZ-1", "LT-AUTHZ-6"), "another principal's CancelTask changed the task's state from %s to %s", s.StateFirst, s.After.Task.State).WithWitness(s.After.X.Transcript()))
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-SCOPE-TENANT", Area: "scoping", Level: MUST, Checker: "CheckScopeTenant",
	Title: "Tasks of one tenant never appear in another tenant's listing, where the Agent Card declares tenants",
	Reqs:  R("LT-AUTHZ-2", "LT-AUTHZ-8", "LT-TEN-2"),
	Quote: `"Implementations MUST scope results to the caller's authorized access boundaries as defined by the agent's authorization model" (§13.1), which "MAY be based on ... Organizational or tenant boundaries"`,
	Needs: []Capability{NeedControl, NeedTenant},
	Run: func(e *Env) {
		e.Fresh()
		other := e.target.OtherTenant
		ctx := e.Context("tenant")
		here := Series("h", 0, 1, 4)
		there := Series("t", 0, 10, 6)
		for i := range here {
			here[i].ContextID = ctx
		}
		for i := range there {
			there[i].Tenant, there[i].ContextID = other, ctx
		}
		e.By("seed 4 tasks in the main tenant and 6 in tenant %s, all for %s, in context %s", other, e.Owner(0), ctx)
		_, ids := e.Seed(append(here, there...))
		inOther, inHere := map[string]bool{}, map[string]bool{}
		truthOther, truthHere := Truth{}, Truth{}
		for _, t := range there {
			inOther[ids[t.Key]] = true
			truthOther[ids[t.Key]] = t.TS
		}
		for _, t := range here {
			inHere[ids[t.Key]] = true
			truthHere[ids[t.Key]] = t.TS
		}
		ws := e.tenantWalks(ctx, other, len(here), len(there))
		ws[0].Truth, ws[1].Truth = truthHere, truthOther
		e.Report(CheckScopeTenant(ws, inHere, inOther, e.declaresTenant())...)
	},
	BlackBox: func(e *Env) {
		other := e.target.OtherTenant
		ctx := e.Context("tenant")
		e.By("create 3 tasks in the main tenant and 3 in tenant %s, all in context %s", other, ctx)
		inHere := foreignIDs(e.CreateSeries(e.A(), 3, ctx))
		c := *e.A()
		c.Tenant = other
		inOther := foreignIDs(e.CreateSeries(&c, 3, ctx))
		e.Report(CheckScopeTenant(e.tenantWalks(ctx, other, 3, 3), inHere, inOther, e.declaresTenant())...)
	},
	BlackBoxNeeds: []Capability{NeedTenant},
})

// declaresTenant reports whether the Agent Card declares a tenant on an
// interface: only then is the tenant an authorization boundary the spec
// holds the server to (LT-AUTHZ-2); otherwise it is the server's choice
// (LT-AUTHZ-8, a MAY).
func (e *Env) declaresTenant() bool {
	for _, i := range e.target.Card.Interfaces {
		if i.Tenant != "" {
			return true
		}
	}
	return false
}

// tenantWalks lists context ctx in the main tenant and in tenant other.
func (e *Env) tenantWalks(ctx, other string, here, there int) [2]ScopeWalk {
	req := a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(3), HistoryLength: a2aclient.Ptr(0)}
	main := e.Walk(e.A(), req, 50, nil)
	c := *e.A()
	c.Tenant = other
	o := e.Walk(&c, req, 50, nil)
	return [2]ScopeWalk{{What: "main tenant", H: main, Own: here}, {What: "tenant " + other, H: o, Own: there}}
}

// CheckScopeTenant judges listings of two tenants (LT-SCOPE-TENANT). A leak
// breaks LT-AUTHZ-2 where the Agent Card declares tenants; where it does
// not, whether tenants separate tasks is the server's choice (LT-AUTHZ-8)
// and a leak is recorded as Info. A listing of the other tenant that fails
// on its first page is a request with the tenant that fails, which
// LT-TENANT-ROUTE owns: this case notes that it could not judge that
// tenant's listing. One defect, one finding.
func CheckScopeTenant(ws [2]ScopeWalk, inHere, inOther map[string]bool, declared bool) []Finding {
	reqs := R("LT-AUTHZ-2", "LT-AUTHZ-8")
	if !declared {
		reqs = R("LT-AUTHZ-8", "LT-AUTHZ-2")
	}
	if h := ws[1].H; h.EndFinding != nil && h.Owner == "" && len(h.EndFinding.Reqs) > 0 && h.EndFinding.Reqs[0] == "LT-OP-1" {
		ws[1].H.Owner = "LT-TENANT-ROUTE"
	}
	fs := checkScope(ws[:1], inOther, "tenant", reqs)
	return append(fs, checkScope(ws[1:], inHere, "tenant", reqs)...)
}
