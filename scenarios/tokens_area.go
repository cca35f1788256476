package scenarios

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Area "tokens": page tokens replayed by another principal or with other
// filters, tampered with, expired, and carried across a key rotation or a
// restart. The spec says only that the token comes from a previous call
// and retrieves the subsequent page (LT-REQ-5); its format, binding and
// lifetime are silent (LT-PAGE-2), so most verdicts here are hardened
// practices from the seed article. Revealing another principal's tasks is
// a MUST break (LT-AUTHZ-*).

// Replay is what happened when a token was sent again in another context.
type Replay struct {
	// What describes the change ("principal bob", "contextId changed").
	What string
	// Reply is the page returned for the replayed token.
	Reply *a2aclient.Page
	// Foreign lists ids the caller must never see.
	Foreign map[string]bool
	// Control, where set, is a fresh request (no token) with the changed
	// filter; Match tells the tasks that filter admits and Owner names the
	// case that owns the filter. A control that serves a task the filter
	// does not admit shows the filter not applied at all: its binding
	// cannot be judged then.
	Control *a2aclient.Page
	Match   func(a2aclient.Task) bool
	Owner   string
}

// unapplied returns the first task the control served that its filter
// does not admit ("" when there is none or no control).
func (r Replay) unapplied() string {
	if r.Control == nil || r.Match == nil || r.Control.Err != nil {
		return ""
	}
	for _, t := range r.Control.Tasks {
		if !r.Match(t) {
			return t.ID
		}
	}
	return ""
}

// accepted reports whether the reply was a success page.
func (r Replay) accepted() bool {
	return r.Reply != nil && r.Reply.Err == nil && r.Reply.Malformed == "" && r.Reply.X != nil && r.Reply.X.Status < 300
}

func (r Replay) leaked() []string {
	var out []string
	if r.Reply == nil {
		return nil
	}
	for _, t := range r.Reply.Tasks {
		if r.Foreign[t.ID] {
			out = append(out, t.ID)
		}
	}
	return out
}

// foreignIDs returns the ids of a truth as a set.
func foreignIDs(t Truth) map[string]bool {
	out := map[string]bool{}
	for id := range t {
		out[id] = true
	}
	return out
}

// firstToken lists page 1 and returns its nextPageToken (skipping the
// scenario if there is none).
func (e *Env) firstToken(c *a2aclient.Client, req a2aclient.ListRequest) string {
	p, err := c.ListTasks(e.ctx, req)
	e.Check(err, "ListTasks")
	switch {
	case p.Err != nil || p.Malformed != "":
		e.Abortf("page 1 failed, so there is no page token to work with: %s", p.Describe())
	case p.NextState() != a2aclient.NextString:
		e.Skip("page 1 has nextPageToken %s, so there is no page token to work with (judged by %s)", p.NextState(), ownerLastPage)
	case p.NextPageToken == "":
		e.Skip("page 1 was the last page (%d tasks), so there is no page token to work with; this needs a listing longer than pageSize %d", len(p.Tasks), *req.PageSize)
	}
	return p.NextPageToken
}

var _ = Register(Scenario{
	ID: "LT-TOKEN-REPLAY-PRINCIPAL", Area: "tokens", Level: MUST, Checker: "CheckReplayPrincipal",
	Title: "A page token replayed by another principal never reveals the issuer's tasks, and should be rejected",
	Reqs:  R("LT-AUTHZ-1", "LT-AUTHZ-4", "LT-SEED-3"),
	Quote: `"Implementations MUST implement appropriate authorization scoping to ensure clients can only access authorized tasks." (§3.1.4) Seed: "bind them to principal, tenant and filters, and always re-apply authorization in the query."`,
	Needs: []Capability{NeedControl, NeedSecondPrincipal},
	Run: func(e *Env) {
		e.Fresh()
		ctx := e.Context("replay")
		tasks := append(Series("a", 0, 1, 10), Series("b", 1, 50, 4)...)
		for i := range tasks {
			tasks[i].ContextID = ctx
		}
		e.By("seed 10 tasks for %s and 4 for %s, in context %s", e.Owner(0), e.Owner(1), ctx)
		truthA, _ := e.Seed(tasks)
		req := a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(3), HistoryLength: a2aclient.Ptr(0)}
		tok := e.firstToken(e.A(), req)
		e.By("%s replays %s's page-2 token", e.Owner(1), e.Owner(0))
		req.PageToken = tok
		p, err := e.B().ListTasks(e.ctx, req)
		e.Check(err, "ListTasks")
		e.Report(CheckReplayPrincipal(Replay{What: "principal " + e.Owner(1), Reply: p, Foreign: foreignIDs(truthA)})...)
	},
	BlackBox: func(e *Env) {
		probe := e.Probe()
		truthA := probe.Truth
		req := a2aclient.ListRequest{ContextID: &probe.Context, PageSize: a2aclient.Ptr(2), HistoryLength: a2aclient.Ptr(0)}
		req.PageToken = e.firstToken(e.A(), req)
		e.By("%s replays %s's page-2 token of the probe context", e.Owner(1), e.Owner(0))
		p, err := e.B().ListTasks(e.ctx, req)
		e.Check(err, "ListTasks")
		e.Report(CheckReplayPrincipal(Replay{What: "principal " + e.Owner(1), Reply: p, Foreign: foreignIDs(truthA)})...)
	},
	BlackBoxNeeds: []Capability{NeedSecondPrincipal},
})

// CheckReplayPrincipal judges a token replayed by another principal
// (LT-TOKEN-REPLAY-PRINCIPAL).
func CheckReplayPrincipal(r Replay) []Finding {
	if !r.accepted() {
		return nil
	}
	w := r.Reply.X.Transcript()
	if leaked := r.leaked(); len(leaked) > 0 {
		return []Finding{Breach(R("LT-AUTHZ-1", "LT-AUTHZ-4", "LT-AUTHZ-6"), "replayed by %s, the token listed %d of the issuer's tasks (%s): results are not scoped to the caller",
			r.What, len(leaked), strings.Join(first(leaked, 5), ", ")).WithWitness(w)}
	}
	return []Finding{Breach(R("LT-SEED-3", "LT-PAGE-2"), "a token issued to another principal was accepted from %s (it showed only the caller's own tasks); the seed binds tokens to the principal", r.What).WithWitness(w)}
}

var _ = Register(Scenario{
	ID: "LT-TOKEN-REPLAY-FILTER", Area: "tokens", Level: Hardened, Checker: "CheckReplayFilters",
	Title: "A page token replayed with any bound filter changed is rejected, not silently mixed",
	Reqs:  R("LT-SEED-4", "LT-PAGE-2"),
	Quote: `Spec: silent on reuse after a filter change (LT-PAGE-2). Seed: "Binding the filter set means a client that changes status mid-walk gets an error instead of silently mixing two result sets."`,
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		e.Fresh()
		ctx1, ctx2 := e.Context("1"), e.Context("2")
		var tasks []Task
		for i := 0; i < 16; i++ {
			c := ctx1
			if i%2 == 1 {
				c = ctx2
			}
			tasks = append(tasks, Task{Key: fmt.Sprintf("f%02d", i), TS: At(i + 1), ContextID: c, History: 2, Artifacts: 1})
		}
		e.Seed(tasks)
		e.Report(CheckReplayFilters(e.replayFilters(ctx1, ctx2))...)
	},
	BlackBox: func(e *Env) {
		e.Report(CheckReplayFilters(e.replayFilters(e.Probe().Context, e.Context("other")))...)
	},
})

// replayFilters takes a token issued for contextId ctx1 and historyLength 0
// and replays it with each bound filter changed in turn.
func (e *Env) replayFilters(ctx1, ctx2 string) []Replay {
	base := a2aclient.ListRequest{ContextID: &ctx1, PageSize: a2aclient.Ptr(2), HistoryLength: a2aclient.Ptr(0)}
	tok := e.firstToken(e.A(), base)
	after := At(1000).UTC().Format(time.RFC3339)
	const state = "TASK_STATE_WORKING"
	changes := []struct {
		what string
		mod  func(*a2aclient.ListRequest)
		// match and owner, where set, make a control request: the changed
		// filter without the token.
		match func(a2aclient.Task) bool
		owner string
	}{
		{"contextId changed", func(r *a2aclient.ListRequest) { r.ContextID = &ctx2 },
			func(t a2aclient.Task) bool { return t.ContextID == "" || t.ContextID == ctx2 }, "LT-FILTER-CONTEXT"},
		{"status added", func(r *a2aclient.ListRequest) { r.Status = a2aclient.Ptr(state) },
			func(t a2aclient.Task) bool { return t.State == "" || t.State == state }, "LT-FILTER-STATUS"},
		{"statusTimestampAfter added", func(r *a2aclient.ListRequest) { r.StatusTimestampAfter = &after }, nil, ""},
		{"historyLength changed", func(r *a2aclient.ListRequest) { r.HistoryLength = a2aclient.Ptr(1) }, nil, ""},
		{"includeArtifacts changed", func(r *a2aclient.ListRequest) { r.IncludeArtifacts = a2aclient.Ptr(true) }, nil, ""},
	}
	var out []Replay
	for _, c := range changes {
		r := base
		r.PageToken = tok
		c.mod(&r)
		e.By("replay the page-2 token with %s", c.what)
		p, err := e.A().ListTasks(e.ctx, r)
		e.Check(err, "ListTasks")
		rp := Replay{What: c.what, Reply: p, Match: c.match, Owner: c.owner}
		if c.match != nil && rp.accepted() {
			ctl := base
			c.mod(&ctl)
			e.By("control: list with %s and no token", c.what)
			rp.Control, err = e.A().ListTasks(e.ctx, ctl)
			e.Check(err, "ListTasks")
		}
		out = append(out, rp)
	}
	return out
}

// CheckReplayFilters judges tokens replayed with changed filters
// (LT-TOKEN-REPLAY-FILTER).
func CheckReplayFilters(rs []Replay) []Finding {
	var fs []Finding
	for _, r := range rs {
		if id := r.unapplied(); r.accepted() && id != "" {
			fs = append(fs, Observe(R("LT-SEED-4", "LT-PAGE-2"), "could not judge the token's binding (%s): a fresh request with that filter served task %s, which it does not admit, so the filter is not applied at all (judged by %s)", r.What, id, r.Owner).Of("unfinished", r.What))
			continue
		}
		if r.accepted() {
			fs = append(fs, Breach(R("LT-SEED-4", "LT-PAGE-2"), "a token was accepted with the filter set changed (%s); the seed binds tokens to contextId, status, statusTimestampAfter, historyLength and includeArtifacts", r.What).
				WithWitness(r.Reply.X.Transcript()))
		}
	}
	return fs
}

// Tamper is one tampered token and its reply.
type Tamper struct {
	How   string
	Token string
	Reply *a2aclient.Page
}

// TamperVariants returns tampered copies of tok: every character replaced
// by its neighbour in the same character class, and, where tok decodes as
// base64 or hex, each decoded byte with one bit flipped and re-encoded the
// same way. At most max variants of each kind are returned, spread over
// the token.
func TamperVariants(tok string, max int) []Tamper {
	var out []Tamper
	step := 1
	if len(tok) > max {
		step = (len(tok) + max - 1) / max
	}
	for i := 0; i < len(tok); i += step {
		b := []byte(tok)
		b[i] = neighbour(b[i])
		if sameBytes(tok, string(b)) {
			// The edit hit the unused low bits of a base64 character: the
			// token decodes to the very same bytes, so it is not a tamper.
			continue
		}
		out = append(out, Tamper{How: fmt.Sprintf("character %d changed from %q to %q", i, tok[i], b[i]), Token: string(b)})
	}
	type enc struct {
		name string
		dec  func(string) ([]byte, error)
		enc  func([]byte) string
	}
	for _, en := range []enc{
		{"base64url", base64.RawURLEncoding.Strict().DecodeString, base64.RawURLEncoding.EncodeToString},
		{"base64url (padded)", base64.URLEncoding.Strict().DecodeString, base64.URLEncoding.EncodeToString},
		{"base64", base64.StdEncoding.Strict().DecodeString, base64.StdEncoding.EncodeToString},
		{"base64 (unpadded)", base64.RawStdEncoding.Strict().DecodeString, base64.RawStdEncoding.EncodeToString},
		{"hex", hex.DecodeString, hex.EncodeToString},
	} {
		raw, err := en.dec(tok)
		if err != nil || len(raw) == 0 || en.enc(raw) != tok {
			continue
		}
		bstep := 1
		if len(raw) > max {
			bstep = (len(raw) + max - 1) / max
		}
		for i := 0; i < len(raw); i += bstep {
			m := append([]byte(nil), raw...)
			m[i] ^= 0x01
			out = append(out, Tamper{How: fmt.Sprintf("decoded as %s, bit 0 of byte %d flipped, re-encoded", en.name, i), Token: en.enc(m)})
		}
		break
	}
	return out
}

// base64s are the encodings a token (or a dot-separated part of one) may
// use, decoded leniently: a lenient decoder ignores the unused low bits of
// the last character, which is what makes two spellings the same bytes.
var base64s = []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding}

// sameBytes reports whether two token spellings carry the same bytes: they
// are equal, or every dot-separated part that differs decodes to the same
// bytes under one of the base64 encodings.
func sameBytes(a, b string) bool {
	if a == b {
		return true
	}
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if pa[i] != pb[i] && !sameBase64(pa[i], pb[i]) {
			return false
		}
	}
	return true
}

func sameBase64(a, b string) bool {
	for _, enc := range base64s {
		da, errA := enc.DecodeString(a)
		db, errB := enc.DecodeString(b)
		if errA == nil && errB == nil && bytes.Equal(da, db) {
			return true
		}
	}
	return false
}

func neighbour(c byte) byte {
	switch {
	case c >= 'a' && c < 'z', c >= 'A' && c < 'Z', c >= '0' && c < '9':
		return c + 1
	case c == 'z':
		return 'a'
	case c == 'Z':
		return 'A'
	case c == '9':
		return '0'
	case c == '-':
		return '_'
	case c == '_':
		return '-'
	case c == '+':
		return '/'
	case c == '/':
		return '+'
	}
	return 'A'
}

var _ = Register(Scenario{
	ID: "LT-TOKEN-TAMPER", Area: "tokens", Level: MUST, Checker: "CheckTamper",
	Title: "Tampered page tokens (character changes, bit flips after decoding) are rejected and never widen the caller's scope",
	Reqs:  R("LT-SEED-3", "LT-AUTHZ-1", "LT-ERR-1"),
	Quote: `"Implementations MUST implement appropriate authorization scoping to ensure clients can only access authorized tasks." (§3.1.4) Seed: "Unsigned cursor. A client edits the decoded token and walks past its own scope. Sign tokens".`,
	Needs: []Capability{NeedControl, NeedSecondPrincipal},
	Run: func(e *Env) {
		e.Fresh()
		ctx := e.Context("tamper")
		a, b := Series("a", 0, 1, 12), Series("b", 1, 2, 6)
		for i := range a {
			a[i].ContextID = ctx
		}
		for i := range b {
			b[i].ContextID = ctx
		}
		e.By("seed 12 tasks for %s and 6, interleaved in time, for %s, in context %s", e.Owner(0), e.Owner(1), ctx)
		_, ids := e.Seed(append(a, b...))
		foreign := map[string]bool{}
		for key, id := range ids {
			if strings.HasPrefix(key, "b") {
				foreign[id] = true
			}
		}
		vs, madeUp := e.tamper(a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(3), HistoryLength: a2aclient.Ptr(0)})
		e.Report(CheckTamper(vs, foreign, madeUp)...)
	},
	BlackBox: func(e *Env) {
		p := e.Probe()
		foreign := map[string]bool{}
		if o, why := e.Observe(1); why == "" {
			for _, t := range o.Tasks {
				foreign[t.ID] = true
			}
			e.Note("%d tasks of %s are known: a tampered token must never show one", len(foreign), o.Principal)
		}
		vs, madeUp := e.tamper(a2aclient.ListRequest{ContextID: &p.Context, PageSize: a2aclient.Ptr(2), HistoryLength: a2aclient.Ptr(0)})
		e.Report(CheckTamper(vs, foreign, madeUp)...)
	},
})

// madeUpToken is a page token of plausible shape that no server issued:
// the control of LT-TOKEN-TAMPER.
const madeUpToken = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// tamper sends tampered copies of the page-2 token of req, and, as the
// control, a made-up token with the same request.
func (e *Env) tamper(req a2aclient.ListRequest) ([]Tamper, *a2aclient.Page) {
	tok := e.firstToken(e.A(), req)
	vs := TamperVariants(tok, 48)
	e.By("send %d tampered copies of page 1's token", len(vs))
	for i := range vs {
		r := req
		r.PageToken = vs[i].Token
		p, err := e.A().ListTasks(e.ctx, r)
		e.Check(err, "ListTasks")
		vs[i].Reply = p
	}
	e.By("control: send a made-up token the server never issued")
	r := req
	r.PageToken = madeUpToken
	p, err := e.A().ListTasks(e.ctx, r)
	e.Check(err, "ListTasks")
	return vs, p
}

// asMadeUp reports whether reply is a success page serving exactly what
// the made-up token's success page served.
func asMadeUp(reply, madeUp *a2aclient.Page) bool {
	if madeUp == nil || reply == nil || !(Replay{Reply: madeUp}).accepted() || !(Replay{Reply: reply}).accepted() {
		return false
	}
	return slices.Equal(reply.IDs(), madeUp.IDs())
}

// CheckTamper judges replies to tampered tokens (LT-TOKEN-TAMPER). madeUp
// is the reply to a token the server never issued: when it was accepted,
// a tampered token whose page is exactly the made-up token's was read as
// no token of the server's, which LT-TOKEN-GARBAGE owns (one defect, one
// finding); only the other accepted tokens show an edit honoured.
func CheckTamper(vs []Tamper, foreign map[string]bool, madeUp *a2aclient.Page) []Finding {
	var fs []Finding
	var accepted, unknown []Tamper
	for _, v := range vs {
		r := Replay{Reply: v.Reply, Foreign: foreign}
		if leaked := r.leaked(); len(leaked) > 0 {
			fs = append(fs, Breach(R("LT-AUTHZ-1", "LT-AUTHZ-4"), "a tampered token (%s) listed another principal's tasks: %s", v.How, strings.Join(first(leaked, 5), ", ")).
				WithWitness(v.Reply.X.Transcript()))
		}
		if r.accepted() && asMadeUp(v.Reply, madeUp) {
			unknown = append(unknown, v)
		} else if r.accepted() {
			accepted = append(accepted, v)
		} else if v.Reply != nil && v.Reply.Err != nil && v.Reply.X.Status >= 500 {
			fs = append(fs, Breach(R("LT-ERR-2", "LT-ERR-1"), "a tampered token (%s) caused a server error instead of a validation error: %s", v.How, v.Reply.Err).
				WithWitness(v.Reply.X.Transcript()))
		}
	}
	if len(unknown) > 0 {
		fs = append(fs, Observe(R("LT-SEED-3"), "%d of %d tampered tokens (first: %s) were answered exactly as a made-up token the server never issued, which was accepted too: they were read as no token of the server's (judged by LT-TOKEN-GARBAGE), so whether an edit is honoured could not be judged on them",
			len(unknown), len(vs), unknown[0].How).Of("unfinished", "").WithWitness(unknown[0].Reply.X.Transcript()))
	}
	if len(accepted) > 0 {
		fs = append(fs, Breach(R("LT-SEED-3"), "%d of %d tampered tokens were accepted (first: %s); the seed signs tokens so that an edited token is rejected",
			len(accepted), len(vs), accepted[0].How).WithWitness(accepted[0].Reply.X.Transcript()))
	}
	return fs
}

var _ = Register(Scenario{
	ID: "LT-TOKEN-EXPIRED", Area: "tokens", Level: Hardened, Checker: "CheckExpired",
	Title: "An expired page token gets a clear invalid-params error, not an empty success page",
	Reqs:  R("LT-SEED-3", "LT-SEED-4", "LT-PAGE-2"),
	Quote: `Spec: token lifetime is unspecified (LT-PAGE-2). Seed: "an expired token fails clearly so the client restarts rather than seeing an empty page that looks like success."`,
	Needs: []Capability{NeedControl, NeedTokenTTL},
	Run: func(e *Env) {
		e.Fresh()
		ctx := e.Context("x")
		tasks := Series("x", 0, 1, 6)
		for i := range tasks {
			tasks[i].ContextID = ctx
		}
		e.Seed(tasks)
		req := a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(2), HistoryLength: a2aclient.Ptr(0)}
		req.PageToken = e.firstToken(e.A(), req)
		ttl := e.target.TokenTTL
		obs := ExpiryObs{TTL: ttl}
		e.By("advance the server clock to 1s before the token's expiry (TTL %s) and use it", ttl)
		e.Check(e.Control().Advance(e.ctx, ttl-time.Second), "control clock")
		e.cleanup(func() {
			// Put the server's clock back where it was.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			e.Control().Advance(ctx, -(ttl + time.Second))
		})
		var err error
		obs.Before, err = e.A().ListTasks(e.ctx, req)
		e.Check(err, "ListTasks")
		e.By("advance the clock 2s more, past the expiry, and use it again")
		e.Check(e.Control().Advance(e.ctx, 2*time.Second), "control clock")
		obs.After, err = e.A().ListTasks(e.ctx, req)
		e.Check(err, "ListTasks")
		obs.Control = e.expiryControl(ctx)
		e.ReportOrDefer(CheckExpired(obs))
	},
	// The one case that waits on the wall clock: with --token-ttl D, and D
	// plus a margin within --max-wait, it waits out the token's lifetime.
	BlackBox: func(e *Env) {
		p := e.Probe()
		req := a2aclient.ListRequest{ContextID: &p.Context, PageSize: a2aclient.Ptr(2), HistoryLength: a2aclient.Ptr(0)}
		req.PageToken = e.firstToken(e.A(), req)
		ttl := e.target.TokenTTL
		obs := ExpiryObs{TTL: ttl, Real: true}
		var err error
		obs.Before, err = e.A().ListTasks(e.ctx, req)
		e.Check(err, "ListTasks")
		wait := ttl + expiryMargin(ttl)
		e.By("wait %s (the page-token lifetime %s plus a margin) and use the token again", wait, ttl)
		if !e.WaitReal(wait) {
			e.Skip("waiting %s would exceed what is left of the --max-wait budget; give a larger --max-wait", wait)
		}
		obs.After, err = e.A().ListTasks(e.ctx, req)
		e.Check(err, "ListTasks")
		obs.Control = e.expiryControl(p.Context)
		e.ReportOrDefer(CheckExpired(obs))
	},
	BlackBoxNeeds: []Capability{NeedWaitableTTL},
})

// expiryMargin is how long past a token's lifetime the black-box expiry
// case waits: clocks of client and server differ a little.
func expiryMargin(ttl time.Duration) time.Duration { return max(2*time.Second, ttl/10) }

// ExpiryObs holds the replies to one token just before and just after its
// expiry.
type ExpiryObs struct {
	TTL           time.Duration
	Before, After *a2aclient.Page
	// Real is true when the lifetime was waited out in real time (then
	// Before is the token used at once, not 1s before its expiry).
	Real bool
	// Control is a request with a plainly invalid parameter (pageSize -1):
	// when an expired token is refused with the same wrong code, the code
	// is the server's for every invalid parameter, which LT-ERR-ENVELOPE
	// owns (one defect, one finding).
	Control *a2aclient.Page
}

// CheckExpired judges a token used past its lifetime (LT-TOKEN-EXPIRED).
func CheckExpired(o ExpiryObs) []Finding {
	var fs []Finding
	if o.Before != nil && (o.Before.Err != nil || o.Before.Malformed != "") {
		when := "1s before the advertised lifetime of " + o.TTL.String() + " ended"
		if o.Real {
			when = "at once, well within its lifetime of " + o.TTL.String()
		}
		fs = append(fs, Observe(R("LT-PAGE-2"), "the token was already refused %s: %s", when, o.Before.Describe()))
	}
	a := o.After
	switch {
	case a == nil:
	case a.Err == nil && a.Malformed == "" && len(a.Tasks) == 0 && a.NextPageToken == "":
		fs = append(fs, Breach(R("LT-SEED-4"), "an expired token got an empty success page with nextPageToken \"\": the walk silently ends early instead of failing clearly").
			WithWitness(a.X.Transcript()))
	case a.Err == nil && a.Malformed == "":
		fs = append(fs, Breach(R("LT-SEED-3"), "a token was still accepted %s after it was issued, past its lifetime of %s", o.TTL+time.Second, o.TTL).
			WithWitness(a.X.Transcript()))
	case a.Err != nil && a.Err.Code != -32602 && a.Err.Code != 400 && sameRefusal(o.Control, a):
		fs = append(fs, Observe(R("LT-SEED-4"), "could not judge the expired token's error code: it was refused with %s, but so was a plainly invalid pageSize (%s), so the server answers every invalid parameter that way (judged by LT-ERR-ENVELOPE)", a.Err, o.Control.Err).
			Of("unfinished", "").WithWitness(o.Control.X.Transcript()))
	case a.Err != nil && a.Err.Code != -32602 && a.Err.Code != 400:
		fs = append(fs, Breach(R("LT-SEED-4"), "an expired token was refused with %s; the seed answers invalid params (-32602 / HTTP 400)", a.Err).
			WithWitness(a.X.Transcript()))
	}
	return fs
}

// sameRefusal reports whether control was refused with the error code a
// was refused with.
func sameRefusal(control, a *a2aclient.Page) bool {
	return control != nil && control.Err != nil && a != nil && a.Err != nil && control.Err.Code == a.Err.Code
}

// expiryControl lists context ctx with pageSize -1, a plainly invalid
// parameter: the code it is refused with is the server's code for invalid
// parameters, which LT-ERR-ENVELOPE judges.
func (e *Env) expiryControl(ctx string) *a2aclient.Page {
	e.By("control: list with pageSize -1 (plainly invalid) to see the server's code for invalid parameters")
	p, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(-1), HistoryLength: a2aclient.Ptr(0)})
	e.Check(err, "ListTasks")
	return p
}

var _ = Register(Scenario{
	ID: "LT-TOKEN-ROTATION", Area: "tokens", Level: Hardened, Checker: "CheckContinuation",
	Title: "A page token issued before a signing-key rotation still works after it",
	Reqs:  R("LT-SEED-3"),
	Quote: `Seed: "rotate the signing key with an overlap of one lifetime"; "when rotating, accept the previous key for one TTL".`,
	// A control API without POST /keys:rotate makes the case skip itself.
	Needs: []Capability{NeedControl},
	Run: func(e *Env) {
		e.Fresh()
		e.Seed(Series("r", 0, 1, 6))
		ctx := e.Context("main")
		req := a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(2), HistoryLength: a2aclient.Ptr(0)}
		req.PageToken = e.firstToken(e.A(), req)
		e.By("rotate the server's signing key")
		if err := e.Control().RotateKeys(e.ctx); err != nil {
			if strings.Contains(err.Error(), "HTTP 404") {
				e.Skip("the control API has no POST /keys:rotate: %v", err)
			}
			e.Check(err, "control key rotation")
		}
		e.By("continue the walk with the token issued before the rotation")
		p, err := e.A().ListTasks(e.ctx, req)
		e.Check(err, "ListTasks")
		e.Report(CheckContinuation("a signing-key rotation", p)...)
	},
})

// CheckContinuation judges a token used after an event the seed says it
// must survive (a key rotation, a restart).
func CheckContinuation(event string, p *a2aclient.Page) []Finding {
	if p.Err == nil && p.Malformed == "" && len(p.Tasks) > 0 {
		return nil
	}
	return []Finding{Breach(R("LT-SEED-3"), "a token issued before %s no longer continues the walk: %s", event, p.Describe()).WithWitness(p.X.Transcript())}
}

var _ = Register(Scenario{
	ID: "LT-TOKEN-RESTART", Area: "tokens", Level: Hardened, Checker: "CheckContinuation",
	Title: "A page token issued before a server restart still works after it",
	Reqs:  R("LT-SEED-3"),
	Quote: `Seed: "Give tokens a lifetime long enough for a slow client to finish a walk, ten minutes is ample"; signing keys come "from your secret store", so a restart inside the lifetime must not strand a walk.`,
	Needs: []Capability{NeedControl, NeedRestart},
	Run: func(e *Env) {
		e.Fresh()
		e.Seed(Series("s", 0, 1, 6))
		ctx := e.Context("main")
		req := a2aclient.ListRequest{ContextID: &ctx, PageSize: a2aclient.Ptr(2), HistoryLength: a2aclient.Ptr(0)}
		req.PageToken = e.firstToken(e.A(), req)
		e.By("restart the server mid-walk")
		_, err := e.target.Restart(e.ctx)
		e.Check(err, "restart")
		e.resetClients()
		e.By("continue the walk with the token issued before the restart")
		p, err := e.A().ListTasks(e.ctx, req)
		e.Check(err, "ListTasks")
		e.Report(CheckContinuation("a server restart", p)...)
	},
})

var _ = Register(Scenario{
	ID: "LT-TOKEN-GARBAGE", Area: "tokens", Level: MUST, Checker: "CheckRejected",
	Title: "A page token the server never issued is rejected as invalid params naming pageToken",
	Reqs:  R("LT-ERR-1", "LT-ERR-2", "LT-REQ-5"),
	Quote: `"Servers MUST validate all input parameters before processing"; "Servers SHOULD specify which parameter(s) failed validation and why"; "Example error codes: HTTP 400 Bad Request, gRPC INVALID_ARGUMENT, JSON-RPC -32602 Invalid params" (§3.3.2)`,
	Run: func(e *Env) {
		for _, tok := range []string{"not-a-token", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", strings.Repeat("Zm9v", 2048), "%%%"} {
			e.By("ListTasks with pageToken %q", abbreviateTok(tok))
			p, err := e.A().ListTasks(e.ctx, a2aclient.ListRequest{PageSize: a2aclient.Ptr(2), PageToken: tok})
			e.Check(err, "ListTasks")
			e.Report(CheckRejected(Rejection{What: "pageToken " + abbreviateTok(tok), Field: "pageToken", Reply: p.Response})...)
		}
	},
})

func abbreviateTok(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// Rejection is a request that must be refused as invalid params.
type Rejection struct {
	What  string
	Field string
	Reply *a2aclient.Response
	// Served is the number of tasks in a success reply (for pageSize checks).
	Served int
	// Accepted names the requirements broken when the value is accepted
	// (default LT-ERR-1, "Servers MUST validate all input parameters").
	Accepted []string
}

// CheckRejected judges a reply that must be a validation error: success is
// a Fail (MUST validate); an error that names the parameter nowhere, not
// in a google.rpc.BadRequest field violation and not in its message, is
// Non-strict (SHOULD specify which parameter failed). Which code the error
// carries, and whether it has a BadRequest at all, is LT-ERR-ENVELOPE's to
// judge: one defect, one finding.
func CheckRejected(r Rejection) []Finding {
	x := r.Reply
	if x == nil || x.X == nil {
		return nil
	}
	w := x.X.Transcript()
	if x.Err == nil {
		if len(r.Accepted) > 0 {
			return []Finding{Breach(r.Accepted, "%s was accepted", r.What).WithWitness(w)}
		}
		return []Finding{Breach(R("LT-ERR-1"), "%s was accepted: \"Servers MUST validate all input parameters before processing\"", r.What).WithWitness(w)}
	}
	var fs []Finding
	if r.Field != "" && !x.Err.NamesField(r.Field) {
		fs = append(fs, Breach(R("LT-ERR-5", "LT-ERR-1"), "the error for %s names %s neither in a google.rpc.BadRequest field violation nor in its message (\"SHOULD specify which parameter(s) failed validation\")", r.What, r.Field).
			Of("unnamed", r.Field).WithWitness(w))
	}
	return fs
}
