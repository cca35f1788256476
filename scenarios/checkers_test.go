package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Hand-built transcripts: every checker is shown to fail on a history or
// reply that breaks its rule, and to pass on one that keeps it.

var base = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func tk(id string, sec int) a2aclient.Task {
	ts := base.Add(-time.Duration(sec) * time.Second)
	s := a2aclient.FormatTimestamp(ts)
	return a2aclient.Task{ID: id, State: "TASK_STATE_COMPLETED", Timestamp: s, TS: ts,
		Raw: a2aclient.Fields{"id": []byte(`"` + id + `"`)}}
}

func pg(n int, next string, tasks ...a2aclient.Task) a2aclient.Step {
	x := &a2aclient.Exchange{Op: "ListTasks", HTTPMethod: "POST", URL: "http://sut/jsonrpc", Status: 200, RespBody: fmt.Sprintf("page %d", n)}
	return a2aclient.Step{N: n, Page: &a2aclient.Page{Response: &a2aclient.Response{X: x}, Tasks: tasks, NextPageToken: next, NextPresent: true,
		PageSize: ptr(len(tasks)), TotalSize: ptr(99)}}
}

func ptr(n int) *int { return &n }

func hist(pages ...a2aclient.Step) History { return History{Pages: pages} }

func walked(h History) []Walked { return []Walked{{Label: "walk", H: h}} }

func truthOf(ts ...a2aclient.Task) Truth {
	t := Truth{}
	for _, x := range ts {
		t[x.ID] = x.TS
	}
	return t
}

// reply builds a decoded response from a raw wire body.
func reply(b a2aclient.Binding, status int, body string) *a2aclient.Response {
	return a2aclient.Decode(b, &a2aclient.Exchange{Binding: b, HTTPMethod: "POST", URL: "http://sut/", Status: status, RespBody: body})
}

func pageReply(b a2aclient.Binding, status int, body string) *a2aclient.Page {
	return a2aclient.ParsePage(reply(b, status, body))
}

// has reports whether fs holds a finding of class c naming req.
func has(fs []Finding, c Class, req string) bool {
	for _, f := range fs {
		if f.Class != c {
			continue
		}
		for _, r := range f.Reqs {
			if r == req {
				return true
			}
		}
	}
	return false
}

func judged(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Class != ClassInfo {
			out = append(out, f)
		}
	}
	return out
}

// hasNote reports whether fs holds an Info finding of kind k naming owner.
func hasNote(fs []Finding, k, owner string) bool {
	for _, f := range fs {
		if f.Class == ClassInfo && f.Kind == k && strings.Contains(f.Message, owner) {
			return true
		}
	}
	return false
}

func wantClean(t *testing.T, name string, fs []Finding) {
	t.Helper()
	if j := judged(fs); len(j) > 0 {
		t.Errorf("%s: a conforming transcript was judged: %v", name, j)
	}
}

func wantFinding(t *testing.T, name string, fs []Finding, c Class, req string) {
	t.Helper()
	if !has(fs, c, req) {
		t.Errorf("%s: want a %s finding naming %s, got %v", name, c, req, fs)
	}
}

var a, b, c, d, e5 = tk("a", 1), tk("b", 2), tk("c", 3), tk("d", 4), tk("e", 5)

// checkerTests maps each checker named by a scenario to its test.
var checkerTests = map[string]func(*testing.T){
	"CheckShape": func(t *testing.T) {
		wantClean(t, "shape", CheckShape(hist(pg(1, "t1", a, b), pg(2, "", c))))
		bad := pg(1, "", a)
		bad.TotalSize = nil
		wantFinding(t, "no totalSize", CheckShape(hist(bad)), ClassFail, "LT-RESP-6")
		x := tk("x", 1)
		x.State = "done"
		wantFinding(t, "bad state", CheckShape(hist(pg(1, "", x))), ClassFail, "LT-JSON-1")
		y := tk("y", 1)
		y.Timestamp = "2030-01-01T00:00:00+01:00"
		wantFinding(t, "offset timestamp", CheckShape(hist(pg(1, "", y))), ClassFail, "LT-JSON-2")
		h := hist(pg(1, "", a))
		f := Breach(R("LT-RESP-7"), "malformed")
		h.End, h.EndFinding, h.Owner = "malformed", &f, ownerShape
		wantFinding(t, "malformed page", CheckShape(h), ClassFail, "LT-RESP-7")
		// An absent token is LT-WALK-LAST-PAGE's: the shape case only notes it.
		g := Breach(R("LT-RESP-2"), "absent")
		h.End, h.EndFinding, h.Owner = "absent", &g, ownerLastPage
		wantClean(t, "absent token, judged elsewhere", CheckShape(h))
	},
	"CheckLastPage": func(t *testing.T) {
		tr := truthOf(a, b)
		ok := walked(hist(pg(1, "t", a), pg(2, "", b)))
		wantClean(t, "last page", CheckLastPage(ok, CompareWalks(ok, tr)))
		h := hist(pg(1, "t", a), pg(2, "", b))
		h.Pages[1].NextNull = true
		f := Breach(R("LT-RESP-2", "LT-RESP-3"), "null")
		h.End, h.EndFinding, h.Owner = "null", &f, ownerLastPage
		wantFinding(t, "null token", CheckLastPage(walked(h), CompareWalks(walked(h), tr)), ClassFail, "LT-RESP-2")
		early := walked(hist(pg(1, "", a)))
		wantFinding(t, "early end", CheckLastPage(early, CompareWalks(early, tr)), ClassFail, "LT-RESP-3")
	},
	"CheckEmpty": func(t *testing.T) {
		empty := pg(1, "")
		empty.TotalSize = ptr(0)
		wantClean(t, "empty", CheckEmpty(hist(empty)))
		p := pg(1, "")
		p.TasksShape = "tasks is null"
		wantFinding(t, "null tasks", CheckEmpty(hist(p)), ClassNonStrict, "LT-RESP-1")
		o := pg(1, "")
		o.TasksShape = "tasks is not an array"
		wantFinding(t, "tasks not an array", CheckEmpty(hist(o)), ClassFail, "LT-RESP-7")
		q := pg(1, "")
		q.TotalSize = ptr(3)
		wantFinding(t, "totalSize", CheckEmpty(hist(q)), ClassNonStrict, "LT-RESP-6")
	},
	"CheckOrder": func(t *testing.T) {
		wantClean(t, "order", CheckOrder(walked(hist(pg(1, "t", a, b), pg(2, "", c)))))
		wantFinding(t, "rising", CheckOrder(walked(hist(pg(1, "t", b, a), pg(2, "", c)))), ClassFail, "LT-ORDER-2")
		wantFinding(t, "rising across pages", CheckOrder(walked(hist(pg(1, "t", b, c), pg(2, "", a)))), ClassFail, "LT-ORDER-2")
	},
	"CheckExact": func(t *testing.T) {
		tr := truthOf(a, b, c, d)
		exact := func(h History) []Finding { w := walked(h); return CheckExact(w, CompareWalks(w, tr)) }
		wantClean(t, "exact", exact(hist(pg(1, "t", a, b), pg(2, "", c, d))))
		wantFinding(t, "skip", exact(hist(pg(1, "t", a, b), pg(2, "", d))), ClassFail, "LT-OP-4")
		wantFinding(t, "repeat", exact(hist(pg(1, "t", a, b), pg(2, "", b, c, d))), ClassFail, "LT-OP-4")
		// A walk cut short by an early "" is LT-WALK-LAST-PAGE's, not a gap.
		wantClean(t, "cut short", exact(hist(pg(1, "t", a, b), pg(2, "", c))))
		// Without a known set: walks of the same listing must agree.
		two := []Walked{{Label: "p2", H: hist(pg(1, "t", a, b), pg(2, "", c, d))}, {Label: "p3", H: hist(pg(1, "t", a, c), pg(2, "", d))}}
		wantFinding(t, "walks disagree", CheckExact(two, CompareWalks(two, nil)), ClassFail, "LT-OP-4")
	},
	"CheckUnspecified": func(t *testing.T) {
		bounded := func(h History) History { h.Bounded = true; return h }
		plain := bounded(hist(pg(1, "t", a, b), pg(2, "u", c, d)))
		wantClean(t, "same listing", CheckUnspecified(plain, bounded(hist(pg(1, "t", a, b), pg(2, "u", c, d)))))
		wantClean(t, "unfiltered walk stopped early", CheckUnspecified(bounded(hist(pg(1, "t", a, b))), hist(pg(1, "t", a, b), pg(2, "", c, d))))
		// The server ends the UNSPECIFIED listing at once: a filter that
		// matches nothing, not "no filter".
		wantFinding(t, "matches nothing", CheckUnspecified(plain, hist(pg(1, ""))), ClassNonStrict, "LT-REQ-3")
		wantFinding(t, "different tasks", CheckUnspecified(plain, bounded(hist(pg(1, "t", a, c), pg(2, "u", b, d)))), ClassNonStrict, "LT-REQ-3")
		wantFinding(t, "more than no filter", CheckUnspecified(hist(pg(1, "", a, b)), hist(pg(1, "", a, b, c))), ClassNonStrict, "LT-REQ-3")
	},
	"CheckShortPages": func(t *testing.T) {
		sized := func(size int, ps ...a2aclient.Step) []Walked {
			for i := range ps {
				ps[i].Request.PageSize = ptr(size)
			}
			return walked(hist(ps...))
		}
		wantClean(t, "short pages followed", CheckShortPages(sized(2, pg(1, "t", a), pg(2, "u", b, c), pg(3, "", d, e5))))
		wantFinding(t, "too long", CheckShortPages(sized(2, pg(1, "", a, b, c, d, e5))), ClassNonStrict, "LT-REQ-4")
	},
	"CheckTies": func(t *testing.T) {
		t1, t2, t3 := tk("t1", 2), tk("t2", 2), tk("t3", 2)
		tr := truthOf(a, t3, t2, t1, c)
		ties := func(h History, tr Truth) []Finding { w := walked(h); return CheckTies(w, CompareWalks(w, tr)) }
		wantClean(t, "ties", ties(hist(pg(1, "x", a, t3), pg(2, "y", t2, t1), pg(3, "", c)), tr))
		// timestamp-only cursor: t2 and t1 skipped after the boundary.
		wantFinding(t, "skipped ties", ties(hist(pg(1, "x", a, t3), pg(2, "", c)), tr), ClassHardened, "LT-SEED-2")
		// One walk cannot show an unstable tie-break (the spec names no
		// tie key); two walks serving a tied pair in opposite orders can.
		t4 := tk("t4", 2)
		tr4 := truthOf(a, t1, t2, t3, t4, c)
		wantClean(t, "one walk, any tie order", ties(hist(pg(1, "x", a, t3, t2), pg(2, "", t1, t4, c)), tr4))
		flip := []Walked{
			{Label: "pageSize 3", H: hist(pg(1, "x", a, t3, t2), pg(2, "", t1, t4, c))},
			{Label: "pageSize 4", H: hist(pg(1, "x", a, t2, t3, t1), pg(2, "", t4, c))},
		}
		wantFinding(t, "flipped between walks", CheckTies(flip, CompareWalks(flip, tr4)), ClassHardened, "LT-SEED-2")
		same := []Walked{
			{Label: "pageSize 3", H: hist(pg(1, "x", a, t3, t2), pg(2, "", t1, t4, c))},
			{Label: "pageSize 4", H: hist(pg(1, "x", a, t3, t2, t1), pg(2, "", t4, c))},
		}
		wantClean(t, "same order in both walks", CheckTies(same, CompareWalks(same, tr4)))
		// One defect, one finding. A walk out of timestamp order (here the
		// evidence walk: c before the newer a) is LT-WALK-ORDER's: the tie
		// order is not judged.
		unsorted := []Walked{{Label: "other", H: hist(pg(1, "", c, a))}}
		fs := CheckTies(flip, CompareWalks(flip, tr4), unsorted...)
		wantClean(t, "flipped, but pages out of order", fs)
		if !hasNote(fs, "unfinished", "LT-WALK-ORDER") {
			t.Errorf("flipped, but pages out of order: want an unfinished note naming LT-WALK-ORDER, got %v", fs)
		}
		// A page that starts with the previous page's last task, untied (a
		// on the evidence walk): LT-WALK-EXACT's, so a tied repeat is not
		// judged here; without that evidence it is.
		tiedRep := walked(hist(pg(1, "x", a, t3), pg(2, "y", t3, t2, t1), pg(3, "", c)))
		wantFinding(t, "tied task repeated", CheckTies(tiedRep, CompareWalks(tiedRep, tr)), ClassHardened, "LT-SEED-2")
		untied := []Walked{{Label: "other", H: hist(pg(1, "x", d, a), pg(2, "", a, c))}}
		fs = CheckTies(tiedRep, CompareWalks(tiedRep, tr), untied...)
		wantClean(t, "tied repeat beside an untied one", fs)
		if !hasNote(fs, "unfinished", ownerExact) {
			t.Errorf("tied repeat beside an untied one: want an unfinished note naming %s, got %v", ownerExact, fs)
		}
		// The walk ends on nextPageToken "" with a task tied with its last
		// one unserved: cut short (LT-WALK-LAST-PAGE's), noted only.
		cut := walked(hist(pg(1, "x", a, t3), pg(2, "", t2)))
		fs = CheckTies(cut, CompareWalks(cut, tr))
		wantClean(t, "cut short in a tie", fs)
		if !hasNote(fs, "unfinished", ownerLastPage) {
			t.Errorf("cut short in a tie: want an unfinished note naming %s, got %v", ownerLastPage, fs)
		}
		// Ending inside a tie group with nothing older missing is no proof
		// of an early end: a tie-unsafe cursor does that, and it is this
		// case's (and not LT-WALK-LAST-PAGE's).
		tr3 := truthOf(a, t3, t2, t1)
		inTie := walked(hist(pg(1, "x", a, t3), pg(2, "", t2)))
		wantFinding(t, "walk ends inside a tie", CheckTies(inTie, CompareWalks(inTie, tr3)), ClassHardened, "LT-SEED-2")
		if fs := CompareWalks(inTie, tr3).cutShortFindings(inTie); len(fs) != 0 {
			t.Errorf("walk ends inside a tie: not cut short, got %v", fs)
		}
		// The same skip is not LT-WALK-EXACT's: no tie finding there.
		w := walked(hist(pg(1, "x", a, t3), pg(2, "", c)))
		wantClean(t, "tie skip is not an exact finding", CheckExact(w, CompareWalks(w, tr)))
	},
	"CheckMoving": func(t *testing.T) {
		tr := truthOf(a, b, c, d)
		moved := tk("d", -10) // d moved to the newest timestamp after page 1
		h := hist(pg(1, "t", a, b), pg(2, "", c))
		h.Writes = []Write{{Kind: "move", TaskID: "d", AfterPage: 1, NewTS: moved.TS}}
		cu := CatchUp{Since: "x", H: hist(pg(1, "", moved, a))}
		wantClean(t, "moved task", CheckMoving("LT-MOVE-BEHIND", h, tr, cu))
		// offset paging: the shift repeats b on page 2.
		bad := hist(pg(1, "t", a, b), pg(2, "", b, c))
		bad.Writes = h.Writes
		wantFinding(t, "offset duplicate", CheckMoving("LT-MOVE-BEHIND", bad, tr, cu), ClassFail, "LT-OP-4")
		wantFinding(t, "catch-up missed it", CheckMoving("LT-MOVE-BEHIND", h, tr, CatchUp{Since: "x", H: hist(pg(1, "", a))}), ClassHardened, "LT-SEED-7")
		// One defect, one finding. The walk ends on nextPageToken "" before
		// the oldest unchanged task: LT-WALK-LAST-PAGE's, noted only.
		tr5 := truthOf(a, b, c, d, e5)
		short := hist(pg(1, "t", a, b), pg(2, "", c))
		short.Writes = h.Writes
		fs := CheckMoving("LT-MOVE-BEHIND", short, tr5, CatchUp{})
		wantClean(t, "cut short", fs)
		if !hasNote(fs, "unfinished", ownerLastPage) {
			t.Errorf("cut short: want an unfinished note naming %s, got %v", ownerLastPage, fs)
		}
		// A task skipped in the middle is this case's, cut short or not.
		wantFinding(t, "skipped in the middle", CheckMoving("LT-MOVE-BEHIND", hist(pg(1, "t", a), pg(2, "", c, e5)), tr5, CatchUp{}), ClassFail, "LT-OP-4")
		// Pages that repeat the previous page's last task where nothing was
		// written: LT-WALK-EXACT's, and the repeat at the write cannot be
		// told from it.
		overlap := hist(pg(1, "t", a, b), pg(2, "u", b, c), pg(3, "", c, e5))
		overlap.Writes = h.Writes
		fs = CheckMoving("LT-MOVE-BEHIND", overlap, tr5, CatchUp{})
		wantClean(t, "repeats on a still listing", fs)
		if !hasNote(fs, "unfinished", ownerExact) {
			t.Errorf("repeats on a still listing: want an unfinished note naming %s, got %v", ownerExact, fs)
		}
		// The offset shift repeats only where the write was made: this
		// case's (bad above).
		shift := hist(pg(1, "t", a, b), pg(2, "u", b, c), pg(3, "", e5))
		shift.Writes = h.Writes
		wantFinding(t, "repeat only at the write", CheckMoving("LT-MOVE-BEHIND", shift, tr5, CatchUp{}), ClassFail, "LT-OP-4")
	},
	"CheckReplayPrincipal": func(t *testing.T) {
		foreign := map[string]bool{"a1": true}
		wantClean(t, "rejected", CheckReplayPrincipal(Replay{Reply: pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"pageToken: issued for a different principal"}}`), Foreign: foreign}))
		leak := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[{"id":"a1","status":{"state":"TASK_STATE_COMPLETED"}}],"nextPageToken":"","pageSize":3,"totalSize":9}}`)
		wantFinding(t, "leak", CheckReplayPrincipal(Replay{Reply: leak, Foreign: foreign}), ClassFail, "LT-AUTHZ-4")
		own := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[{"id":"b1","status":{"state":"TASK_STATE_COMPLETED"}}],"nextPageToken":"","pageSize":3,"totalSize":1}`)
		wantFinding(t, "accepted", CheckReplayPrincipal(Replay{Reply: own, Foreign: foreign}), ClassHardened, "LT-SEED-3")
	},
	"CheckReplayFilters": func(t *testing.T) {
		rej := pageReply(a2aclient.HTTPJSON, 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"pageToken: issued for a different filter set"}}`)
		ok := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[],"nextPageToken":"","pageSize":2,"totalSize":0}`)
		wantClean(t, "rejected", CheckReplayFilters([]Replay{{What: "status added", Reply: rej}}))
		wantFinding(t, "accepted", CheckReplayFilters([]Replay{{What: "status added", Reply: rej}, {What: "contextId changed", Reply: ok}}), ClassHardened, "LT-SEED-4")
		// A fresh request with the changed filter serves a task it does not
		// admit: the filter is not applied at all (LT-FILTER-STATUS's
		// defect), so the binding is only noted.
		working := func(x a2aclient.Task) bool { return x.State == "TASK_STATE_WORKING" }
		done := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[{"id":"d1","status":{"state":"TASK_STATE_COMPLETED"}}],"nextPageToken":"","pageSize":1,"totalSize":1}}`)
		busy := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[{"id":"w1","status":{"state":"TASK_STATE_WORKING"}}],"nextPageToken":"","pageSize":1,"totalSize":1}}`)
		fs := CheckReplayFilters([]Replay{{What: "status added", Reply: ok, Control: done, Match: working, Owner: "LT-FILTER-STATUS"}})
		wantClean(t, "filter not applied", fs)
		if len(fs) != 1 || fs[0].Kind != "unfinished" || !strings.Contains(fs[0].Message, "LT-FILTER-STATUS") {
			t.Errorf("filter not applied: want one unfinished note naming LT-FILTER-STATUS, got %v", fs)
		}
		wantFinding(t, "filter applied by the control", CheckReplayFilters([]Replay{{What: "status added", Reply: ok, Control: busy, Match: working, Owner: "LT-FILTER-STATUS"}}), ClassHardened, "LT-SEED-4")
	},
	"CheckTamper": func(t *testing.T) {
		rej := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"pageToken: signature invalid"}}`)
		ok := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[{"id":"b9","status":{"state":"TASK_STATE_WORKING"}}],"nextPageToken":"","pageSize":3,"totalSize":1}}`)
		wantClean(t, "rejected", CheckTamper([]Tamper{{How: "x", Reply: rej}}, nil, rej))
		wantFinding(t, "accepted", CheckTamper([]Tamper{{How: "x", Reply: rej}, {How: "y", Reply: ok}}, nil, rej), ClassHardened, "LT-SEED-3")
		wantFinding(t, "leaks", CheckTamper([]Tamper{{How: "y", Reply: ok}}, map[string]bool{"b9": true}, rej), ClassFail, "LT-AUTHZ-1")
		// A made-up token is accepted, and a tampered one serves exactly its
		// page: read as no token of the server's (LT-TOKEN-GARBAGE's defect),
		// noted only; a tampered token serving another page still counts.
		first := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[{"id":"a1","status":{"state":"TASK_STATE_WORKING"}}],"nextPageToken":"n","pageSize":3,"totalSize":2}}`)
		fs := CheckTamper([]Tamper{{How: "x", Reply: rej}, {How: "y", Reply: first}}, nil, first)
		wantClean(t, "read as a made-up token", fs)
		if len(fs) != 1 || fs[0].Kind != "unfinished" || !strings.Contains(fs[0].Message, "LT-TOKEN-GARBAGE") {
			t.Errorf("read as a made-up token: want one unfinished note naming LT-TOKEN-GARBAGE, got %v", fs)
		}
		wantFinding(t, "edit honoured beside a made-up token accepted", CheckTamper([]Tamper{{How: "y", Reply: first}, {How: "z", Reply: ok}}, nil, first), ClassHardened, "LT-SEED-3")
		boom := pageReply(a2aclient.HTTPJSON, 500, `{"error":{"code":500,"status":"INTERNAL","message":"panic"}}`)
		wantFinding(t, "server error", CheckTamper([]Tamper{{How: "z", Reply: boom}}, nil, rej), ClassNonStrict, "LT-ERR-2")
		if vs := TamperVariants("AQHql83iw9ywBo6pr6a_3LAGAweG", 8); len(vs) < 10 {
			t.Errorf("TamperVariants: %d variants", len(vs))
		}
	},
	"CheckExpired": func(t *testing.T) {
		ok := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[{"id":"x","status":{"state":"TASK_STATE_WORKING"}}],"nextPageToken":"n","pageSize":2,"totalSize":6}}`)
		exp := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"pageToken: expired"}}`)
		empty := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[],"nextPageToken":"","pageSize":2,"totalSize":6}}`)
		wantClean(t, "expired", CheckExpired(ExpiryObs{TTL: time.Minute, Before: ok, After: exp}))
		wantFinding(t, "never expires", CheckExpired(ExpiryObs{TTL: time.Minute, Before: ok, After: ok}), ClassHardened, "LT-SEED-3")
		wantFinding(t, "empty page", CheckExpired(ExpiryObs{TTL: time.Minute, Before: ok, After: empty}), ClassHardened, "LT-SEED-4")
		wrong := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32600,"message":"pageToken: expired"}}`)
		wrongSize := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32600,"message":"pageSize: out of range"}}`)
		rightSize := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"pageSize: out of range"}}`)
		wantFinding(t, "wrong code, no control", CheckExpired(ExpiryObs{TTL: time.Minute, Before: ok, After: wrong}), ClassHardened, "LT-SEED-4")
		wantFinding(t, "wrong code for the token only", CheckExpired(ExpiryObs{TTL: time.Minute, Before: ok, After: wrong, Control: rightSize}), ClassHardened, "LT-SEED-4")
		// Every invalid parameter gets the wrong code: LT-ERR-ENVELOPE's
		// defect, noted only.
		fs := CheckExpired(ExpiryObs{TTL: time.Minute, Before: ok, After: wrong, Control: wrongSize})
		wantClean(t, "wrong code for every invalid parameter", fs)
		if len(fs) != 1 || fs[0].Kind != "unfinished" || !strings.Contains(fs[0].Message, "LT-ERR-ENVELOPE") {
			t.Errorf("wrong code for every invalid parameter: want one unfinished note naming LT-ERR-ENVELOPE, got %v", fs)
		}
	},
	"CheckContinuation": func(t *testing.T) {
		ok := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[{"id":"x","status":{"state":"TASK_STATE_WORKING"}}],"nextPageToken":"","pageSize":2,"totalSize":1}`)
		bad := pageReply(a2aclient.HTTPJSON, 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"pageToken: signature invalid"}}`)
		wantClean(t, "continues", CheckContinuation("a restart", ok))
		wantFinding(t, "stranded", CheckContinuation("a restart", bad), ClassHardened, "LT-SEED-3")
	},
	"CheckRejected": func(t *testing.T) {
		good := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"pageToken: malformed","data":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"pageToken"}]}]}}`)
		wantClean(t, "rejected", CheckRejected(Rejection{What: "x", Field: "pageToken", Reply: good}))
		accepted := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[],"nextPageToken":"","pageSize":2,"totalSize":0}}`)
		wantFinding(t, "accepted", CheckRejected(Rejection{What: "x", Field: "pageToken", Reply: accepted}), ClassFail, "LT-ERR-1")
		wrong := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32600,"message":"bad"}}`)
		fs := CheckRejected(Rejection{What: "x", Field: "pageToken", Reply: wrong})
		wantFinding(t, "unnamed field", fs, ClassNonStrict, "LT-ERR-5")
		for _, f := range fs {
			if f.Reqs[0] == "LT-ERR-2" {
				t.Errorf("the error code is LT-ERR-ENVELOPE's to judge, not every case's: %v", f)
			}
		}
		named := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32600,"message":"invalid pageToken \"zz\""}}`)
		wantClean(t, "named in the message", CheckRejected(Rejection{What: "x", Field: "pageToken", Reply: named}))
		// A message names the parameter in words as well as by its JSON
		// name (a2a-go v2.3.1's words; pagewalk once matched only
		// "pageSize" and reported this as unnamed).
		words := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32600,"message":"failed to list tasks: page size must be between 1 and 100 inclusive, got -1: invalid request"}}`)
		wantClean(t, "named in words", CheckRejected(Rejection{What: "pageSize -1", Field: "pageSize", Reply: words}))
		snake := reply(a2aclient.HTTPJSON, 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"page_size out of range"}}`)
		wantClean(t, "named in snake_case", CheckRejected(Rejection{What: "pageSize -1", Field: "pageSize", Reply: snake}))
		for _, msg := range []string{"page must be positive", "maxPageSize exceeded", "invalid request"} {
			other := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"`+msg+`"}}`)
			wantFinding(t, "not named: "+msg, CheckRejected(Rejection{What: "pageSize -1", Field: "pageSize", Reply: other}), ClassNonStrict, "LT-ERR-5")
		}
	},
	"CheckPageSizeBounds": func(t *testing.T) {
		rej := pageReply(a2aclient.HTTPJSON, 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"pageSize: must be between 1 and 100"}}`)
		var many []string
		for i := 0; i < 101; i++ {
			many = append(many, fmt.Sprintf(`{"id":"t%d","status":{"state":"TASK_STATE_WORKING"}}`, i))
		}
		big := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[`+strings.Join(many, ",")+`],"nextPageToken":"","pageSize":101,"totalSize":101}`)
		small := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[],"nextPageToken":"","pageSize":50,"totalSize":0}`)
		wantClean(t, "rejected", CheckPageSizeBounds([]PageSizeProbe{{Value: 0, Reply: rej}, {Value: 101, Reply: rej}}))
		wantFinding(t, "101 served", CheckPageSizeBounds([]PageSizeProbe{{Value: 101, Reply: big}}), ClassFail, "LT-ERR-1")
		wantFinding(t, "0 accepted", CheckPageSizeBounds([]PageSizeProbe{{Value: 0, Reply: small}}), ClassNonStrict, "LT-REQ-4")
		wantFinding(t, "-1 accepted", CheckPageSizeBounds([]PageSizeProbe{{Value: -1, Reply: small}}), ClassFail, "LT-ERR-1")
	},
	"CheckPageSizeDefault": func(t *testing.T) {
		var list []string
		for i := 0; i < 60; i++ {
			list = append(list, fmt.Sprintf(`{"id":"t%d","status":{"state":"TASK_STATE_WORKING"}}`, i))
		}
		fifty := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[`+strings.Join(list[:50], ",")+`],"nextPageToken":"n","pageSize":50,"totalSize":60}}`)
		sixty := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[`+strings.Join(list, ",")+`],"nextPageToken":"","pageSize":100,"totalSize":60}}`)
		ten := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[`+strings.Join(list[:10], ",")+`],"nextPageToken":"n","pageSize":10,"totalSize":60}}`)
		eleven := pageReply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","result":{"tasks":[`+strings.Join(list[:11], ",")+`],"nextPageToken":"n","pageSize":10,"totalSize":60}}`)
		wantClean(t, "50", CheckPageSizeDefault(fifty, ten))
		wantFinding(t, "60", CheckPageSizeDefault(sixty, ten), ClassNonStrict, "LT-REQ-4")
		wantFinding(t, "60, no control", CheckPageSizeDefault(sixty, nil), ClassNonStrict, "LT-REQ-4")
		// Every page size overrun: LT-PAGE-SHORT's defect, noted only.
		fs := CheckPageSizeDefault(sixty, eleven)
		wantClean(t, "60, control overrun", fs)
		if !has(fs, ClassInfo, "LT-REQ-4") || !strings.Contains(fs[0].Message, "LT-PAGE-SHORT") {
			t.Errorf("60, control overrun: want an Info naming LT-PAGE-SHORT, got %v", fs)
		}
	},
	"CheckHistory": func(t *testing.T) {
		full := []string{"m1", "m2", "m3", "m4"}
		withHist := func(ids ...string) (*a2aclient.Response, *a2aclient.Task) {
			var ms []string
			for _, id := range ids {
				ms = append(ms, fmt.Sprintf(`{"messageId":%q,"role":"ROLE_USER","parts":[{"text":"x"}]}`, id))
			}
			body := `{"id":"h","status":{"state":"TASK_STATE_WORKING"}`
			if ids != nil {
				body += `,"history":[` + strings.Join(ms, ",") + `]`
			}
			body += `}`
			r := reply(a2aclient.HTTPJSON, 200, body)
			tk, _ := a2aclient.ParseTask([]byte(body))
			return r, &tk
		}
		r0, t0 := withHist()
		r2, t2 := withHist("m3", "m4")
		rAll, tAll := withHist(full...)
		rej := reply(a2aclient.HTTPJSON, 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"historyLength: must be non-negative","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"historyLength"}]}]}}`)
		good := []HistoryProbe{{Length: ptr(0), Reply: r0, Task: t0, Full: full}, {Length: ptr(2), Reply: r2, Task: t2, Full: full}, {Length: ptr(-1), Reply: rej, Full: full}}
		wantClean(t, "history", CheckHistory("GetTask", good))
		wantFinding(t, "more than N (GetTask)", CheckHistory("GetTask", []HistoryProbe{{Length: ptr(2), Reply: rAll, Task: tAll, Full: full}}), ClassFail, "LT-HIST-5")
		wantFinding(t, "more than N (ListTasks)", CheckHistory("ListTasks", []HistoryProbe{{Length: ptr(2), Reply: rAll, Task: tAll, Full: full}}), ClassNonStrict, "LT-HIST-4")
		wantFinding(t, "0 not omitted", CheckHistory("ListTasks", []HistoryProbe{{Length: ptr(0), Reply: rAll, Task: tAll, Full: full}}), ClassNonStrict, "LT-HIST-3")
		wantFinding(t, "negative accepted", CheckHistory("GetTask", []HistoryProbe{{Length: ptr(-1), Reply: rAll, Task: tAll, Full: full}}), ClassNonStrict, "LT-HIST-6")
		r1, t1 := withHist("m1")
		wantFinding(t, "not the tail", CheckHistory("GetTask", []HistoryProbe{{Length: ptr(1), Reply: r1, Task: t1, Full: full}}), ClassNonStrict, "LT-HIST-4")
	},
	"CheckArtifacts": func(t *testing.T) {
		off := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[{"id":"x","status":{"state":"TASK_STATE_COMPLETED"}}],"nextPageToken":"","pageSize":50,"totalSize":1}`)
		on := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[{"id":"x","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[]}]}],"nextPageToken":"","pageSize":50,"totalSize":1}`)
		emptyArr := pageReply(a2aclient.HTTPJSON, 200, `{"tasks":[{"id":"x","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[]}],"nextPageToken":"","pageSize":50,"totalSize":1}`)
		counts := map[string]int{"x": 1}
		wantClean(t, "artifacts", CheckArtifacts([]ArtifactObs{{Page: off, Counts: counts}, {Include: boolp(true), Page: on, Counts: counts}}))
		wantFinding(t, "by default", CheckArtifacts([]ArtifactObs{{Page: on, Counts: counts}}), ClassFail, "LT-ART-1")
		wantFinding(t, "empty array", CheckArtifacts([]ArtifactObs{{Include: boolp(false), Page: emptyArr, Counts: counts}}), ClassNonStrict, "LT-ART-2")
		wantFinding(t, "missing when asked", CheckArtifacts([]ArtifactObs{{Include: boolp(true), Page: off, Counts: counts}}), ClassNonStrict, "LT-ART-3")
	},
	"CheckTotalSize": func(t *testing.T) {
		h := hist(pg(1, "t", a, b), pg(2, "", c))
		h.Pages[0].TotalSize, h.Pages[1].TotalSize = ptr(3), ptr(3)
		wantClean(t, "total", CheckTotalSize(h, 3, "ctx"))
		h.Pages[1].TotalSize = ptr(4)
		wantFinding(t, "wrong total", CheckTotalSize(h, 3, "ctx"), ClassNonStrict, "LT-RESP-6")
		// The contextId filter ignored: LT-FILTER-CONTEXT's defect, noted only.
		x := c
		x.ContextID = "other"
		h = hist(pg(1, "t", a, b), pg(2, "", x))
		h.Pages[0].TotalSize, h.Pages[1].TotalSize = ptr(3), ptr(3)
		fs := CheckTotalSize(h, 2, "ctx")
		wantClean(t, "filter ignored", fs)
		if len(fs) != 1 || fs[0].Kind != "unfinished" || !strings.Contains(fs[0].Message, "LT-FILTER-CONTEXT") {
			t.Errorf("filter ignored: want one unfinished note naming LT-FILTER-CONTEXT, got %v", fs)
		}
	},
	"CheckFilter": func(t *testing.T) {
		inCtx := func(ids ...string) func(a2aclient.Task) (bool, string) {
			return func(t a2aclient.Task) (bool, string) { return slices.Contains(ids, t.ID), "another context" }
		}
		ok := FilterCase{What: "contextId", Match: inCtx("a", "c", "x"), Want: truthOf(a, c), H: hist(pg(1, "", a, tk("x", 2), c))}
		wantClean(t, "filter (other matching tasks are fine)", CheckFilter("LT-FILTER-CONTEXT", []FilterCase{ok}, R("LT-REQ-2")))
		bad := FilterCase{What: "contextId", Match: inCtx("a", "c"), Want: truthOf(a, c), H: hist(pg(1, "", a, b, c))}
		wantFinding(t, "filter ignored", CheckFilter("LT-FILTER-CONTEXT", []FilterCase{bad}, R("LT-REQ-2")), ClassNonStrict, "LT-REQ-2")
		short := FilterCase{What: "contextId", Match: inCtx("a", "c"), Want: truthOf(a, c), H: hist(pg(1, "", a))}
		wantFinding(t, "missing", CheckFilter("LT-FILTER-CONTEXT", []FilterCase{short}, R("LT-REQ-2")), ClassNonStrict, "LT-REQ-2")
	},
	"CheckBindings": func(t *testing.T) {
		same := BindingPair{What: "status", RPC: hist(pg(1, "", a, b)), HTTP: hist(pg(1, "", a, b))}
		wantClean(t, "same", CheckBindings([]BindingPair{same}))
		diff := BindingPair{What: "status", RPC: hist(pg(1, "", a)), HTTP: hist(pg(1, "", a, b))}
		wantFinding(t, "differ", CheckBindings([]BindingPair{diff}), ClassFail, "LT-OP-8")
		// JSON-RPC read again still differs from HTTP+JSON: the bindings
		// differ.
		diff.RPCAgain = hist(pg(1, "", a))
		wantFinding(t, "differ, read again", CheckBindings([]BindingPair{diff}), ClassFail, "LT-OP-8")
		// JSON-RPC read again serves what HTTP+JSON did: the listing changed
		// between reads, which LT-IDEMPOTENT judges.
		changed := BindingPair{What: "status", RPC: hist(pg(1, "", a, b)), HTTP: hist(pg(1, "")), RPCAgain: hist(pg(1, ""))}
		fs := CheckBindings([]BindingPair{changed})
		wantClean(t, "changed between reads", fs)
		if !has(fs, ClassInfo, "LT-OP-8") {
			t.Errorf("a listing that changed between reads must be recorded: %v", fs)
		}
		e1 := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"pageSize"}}`)
		ok := reply(a2aclient.HTTPJSON, 200, `{"tasks":[],"nextPageToken":"","pageSize":500,"totalSize":0}`)
		wantFinding(t, "error on one binding", CheckBindings([]BindingPair{{What: "pageSize 500", RPCErr: e1, HTTPErr: ok, ErrorProbe: true}}), ClassFail, "LT-OP-8")
	},
	"CheckScopeTenant": func(t *testing.T) {
		here, there := map[string]bool{"a": true}, map[string]bool{"b": true}
		clean := [2]ScopeWalk{{What: "main", H: hist(pg(1, "", a)), Own: 1}, {What: "other", H: hist(pg(1, "", b)), Own: 1}}
		wantClean(t, "tenants apart", CheckScopeTenant(clean, here, there, true))
		leak := [2]ScopeWalk{{What: "main", H: hist(pg(1, "", a, b)), Own: 1}, {What: "other", H: hist(pg(1, "", b)), Own: 1}}
		wantFinding(t, "declared tenants leak", CheckScopeTenant(leak, here, there, true), ClassFail, "LT-AUTHZ-2")
		hidden := [2]ScopeWalk{{What: "main", H: hist(pg(1, "", a)), Own: 1}, {What: "other", H: hist(pg(1, "")), Own: 1}}
		wantFinding(t, "own tasks hidden", CheckScopeTenant(hidden, here, there, true), ClassFail, "LT-OP-4")
		// A listing that failed is judged by its end, once: its empty count
		// is no second finding.
		failed := hist()
		endF := Breach(R("LT-OP-1"), "ListTasks with valid parameters failed: 404")
		failed.End, failed.EndFinding = "the first page failed: 404", &endF
		fs := CheckScopeTenant([2]ScopeWalk{{What: "main", H: failed, Own: 1}, {What: "other", H: hist(pg(1, "", b)), Own: 1}}, here, there, true)
		if j := judged(fs); len(j) != 1 || j[0].Reqs[0] != "LT-OP-1" {
			t.Errorf("a failed listing: want its one LT-OP-1 finding, got %v", j)
		}
		// The other tenant's listing failing on its first page is a request
		// with the tenant that fails: LT-TENANT-ROUTE's defect, noted only.
		fs = CheckScopeTenant([2]ScopeWalk{{What: "main", H: hist(pg(1, "", a)), Own: 1}, {What: "other", H: failed, Own: 1}}, here, there, true)
		wantClean(t, "the other tenant's listing failed", fs)
		if len(fs) != 1 || fs[0].Kind != "unfinished" || !strings.Contains(fs[0].Message, "LT-TENANT-ROUTE") {
			t.Errorf("the other tenant's listing failed: want one unfinished note naming LT-TENANT-ROUTE, got %v", fs)
		}
		// Where the card declares no tenant, tenants are the server's choice.
		for _, f := range CheckScopeTenant(leak, here, there, false) {
			if f.Class != ClassInfo {
				t.Errorf("undeclared tenants: %v, want Info (LT-AUTHZ-8 is a MAY)", f)
			}
		}
	},
	"CheckScopeList": func(t *testing.T) {
		foreign := map[string]bool{"a": true}
		wantClean(t, "scoped", CheckScopeList([]ScopeWalk{{What: "x", H: hist(pg(1, "", b, c)), Own: 2}}, foreign))
		wantFinding(t, "leak", CheckScopeList([]ScopeWalk{{What: "x", H: hist(pg(1, "", a, b, c)), Own: 2}}, foreign), ClassFail, "LT-AUTHZ-3")
		// A duplicate is LT-WALK-EXACT's; it neither counts twice nor hides
		// an own task never served.
		wantClean(t, "own task twice", CheckScopeList([]ScopeWalk{{What: "x", H: hist(pg(1, "t", b, c), pg(2, "", c)), Own: 2}}, foreign))
		wantFinding(t, "own task missed behind a duplicate", CheckScopeList([]ScopeWalk{{What: "x", H: hist(pg(1, "t", b), pg(2, "", b)), Own: 2}}, foreign), ClassFail, "LT-OP-4")
		// Own tasks missing only past the oldest one served, on a walk that
		// ended on nextPageToken "": LT-WALK-LAST-PAGE's, noted only.
		own := truthOf(b, c, d)
		fs := CheckScopeList([]ScopeWalk{{What: "x", H: hist(pg(1, "t", b), pg(2, "", c)), Own: 3, Truth: own}}, foreign)
		wantClean(t, "cut short", fs)
		if !hasNote(fs, "unfinished", ownerLastPage) {
			t.Errorf("cut short: want an unfinished note naming %s, got %v", ownerLastPage, fs)
		}
		wantFinding(t, "own task missed in the middle", CheckScopeList([]ScopeWalk{{What: "x", H: hist(pg(1, "t", b), pg(2, "", d)), Own: 3, Truth: own}}, foreign), ClassFail, "LT-OP-4")
	},
	"CheckScopeGet": func(t *testing.T) {
		nf := `{"jsonrpc":"2.0","id":"1","error":{"code":-32001,"message":"task not found"}}`
		okTask := `{"jsonrpc":"2.0","id":"1","result":{"id":"s","status":{"state":"TASK_STATE_WORKING"}}}`
		forbidden := `{"jsonrpc":"2.0","id":"1","error":{"code":-32003,"message":"forbidden"}}`
		after := &a2aclient.TaskReply{Response: reply(a2aclient.JSONRPC, 200, okTask), Task: a2aclient.Task{ID: "s", State: "TASK_STATE_WORKING"}}
		good := ScopeGet{Get: reply(a2aclient.JSONRPC, 200, nf), GetMissing: reply(a2aclient.JSONRPC, 200, nf), Cancel: reply(a2aclient.JSONRPC, 200, nf),
			CancelMissing: reply(a2aclient.JSONRPC, 200, nf), After: after, StateFirst: "TASK_STATE_WORKING"}
		wantClean(t, "not found", CheckScopeGet(good))
		leak := good
		leak.Get = reply(a2aclient.JSONRPC, 200, okTask)
		wantFinding(t, "GetTask reveals", CheckScopeGet(leak), ClassFail, "LT-AUTHZ-6")
		tell := good
		tell.Get = reply(a2aclient.JSONRPC, 200, forbidden)
		wantFinding(t, "distinguishable", CheckScopeGet(tell), ClassFail, "LT-AUTHZ-6")
		canceled := good
		canceled.After = &a2aclient.TaskReply{Response: reply(a2aclient.JSONRPC, 200, okTask), Task: a2aclient.Task{ID: "s", State: "TASK_STATE_CANCELED"}}
		wantFinding(t, "cancelled by a stranger", CheckScopeGet(canceled), ClassFail, "LT-AUTHZ-1")
	},
	"CheckEnvelope": func(t *testing.T) {
		inv := reply(a2aclient.HTTPJSON, 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"pageSize","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"pageSize"}]}]}}`)
		nf := reply(a2aclient.HTTPJSON, 404, `{"error":{"code":404,"status":"NOT_FOUND","message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`)
		wantClean(t, "envelopes", CheckEnvelope(inv, "pageSize", nf))
		plain := reply(a2aclient.HTTPJSON, 400, `bad pageSize`)
		wantFinding(t, "not google.rpc.Status", CheckEnvelope(plain, "pageSize", nf), ClassNonStrict, "LT-ERR-6")
		untyped := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32602,"message":"pageSize","data":[{"field":"pageSize"}]}}`)
		wantFinding(t, "untyped detail", CheckEnvelope(untyped, "pageSize", nil), ClassFail, "LT-ERR-3")
		noInfo := reply(a2aclient.HTTPJSON, 404, `{"error":{"code":404,"status":"NOT_FOUND","message":"no"}}`)
		wantFinding(t, "no ErrorInfo", CheckEnvelope(inv, "pageSize", noInfo), ClassFail, "LT-ERR-8")
		wrongCode := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"1","error":{"code":-32600,"message":"pageSize"}}`)
		wantFinding(t, "wrong code", CheckEnvelope(wrongCode, "pageSize", nil), ClassNonStrict, "LT-ERR-2")
		// HTTP+JSON: "Implementations SHOULD use well-known types such as
		// google.rpc.BadRequest to attach structured data to validation
		// errors" (§11.6), as on JSON-RPC (§9.5). A message that names the
		// field in words is said to, and the SHOULD is still broken.
		words := reply(a2aclient.HTTPJSON, 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"failed to list tasks: page size must be between 1 and 100 inclusive, got -1: invalid request","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INVALID_REQUEST","domain":"a2a-protocol.org"}]}}`)
		fs := CheckEnvelope(words, "pageSize", nf)
		wantFinding(t, "HTTP+JSON without BadRequest", fs, ClassNonStrict, "LT-ERR-5")
		for _, f := range fs {
			if f.Reqs[0] == "LT-ERR-5" && !strings.Contains(f.Message, "does name pageSize") {
				t.Errorf("a message that says \"page size\" names pageSize: %v", f)
			}
		}
		// A JSON-RPC error reply longer than the exchange keeps: its
		// envelope is judged from the whole reply, not from the start the
		// transcript keeps (which lacks "jsonrpc" and "id" here).
		long := `{"error":{"code":-32602,"message":"pageSize: ` + strings.Repeat("x", a2aclient.KeptResponseBytes) + `","data":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"pageSize"}]}]},"jsonrpc":"2.0","id":"1"}`
		x := &a2aclient.Exchange{Binding: a2aclient.JSONRPC, HTTPMethod: "POST", URL: "http://sut/", Status: 200,
			RespBody: long[:a2aclient.KeptResponseBytes], RespTotal: int64(len(long))}
		rpcNF := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"2","error":{"code":-32001,"message":"no","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`)
		wantClean(t, "a long JSON-RPC error", CheckEnvelope(a2aclient.DecodeBody(a2aclient.JSONRPC, x, []byte(long)), "pageSize", rpcNF))
		noID := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"pageSize","data":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"pageSize"}]}]}}`)
		wantFinding(t, "no id", CheckEnvelope(noID, "pageSize", rpcNF), ClassNonStrict, "LT-RPC-1")
		noVersion := reply(a2aclient.JSONRPC, 200, `{"jsonrpc":"1.0","id":"1","error":{"code":-32602,"message":"pageSize","data":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"pageSize"}]}]}}`)
		wantFinding(t, "jsonrpc 1.0", CheckEnvelope(noVersion, "pageSize", rpcNF), ClassNonStrict, "LT-RPC-1")
	},
}

func boolp(b bool) *bool { return &b }

// TestCheckers runs every checker's hand-built cases, and fails if a
// scenario names a checker that has none.
func TestCheckers(t *testing.T) {
	for _, s := range All() {
		if _, ok := checkerTests[s.Checker]; !ok {
			t.Errorf("scenario %s names checker %s, which has no hand-built failing case", s.ID, s.Checker)
		}
	}
	for name, fn := range checkerTests {
		t.Run(name, fn)
	}
}

func TestCheckWalkClassifiesMovedTasks(t *testing.T) {
	tr := truthOf(a, b, c, d)
	h := hist(pg(1, "t", a, b), pg(2, "u", c, tk("b", 4)), pg(3, "", d))
	h.Writes = []Write{{Kind: "move", TaskID: "b", AfterPage: 1}, {Kind: "insert", TaskID: "new", AfterPage: 1}}
	cw := CheckWalk(h, tr)
	if cw.Moved["b"] != SeenBoth || cw.Moved["new"] != Missed {
		t.Errorf("moved = %v", cw.Moved)
	}
	if len(cw.Duplicates) != 0 || len(cw.Missing) != 0 {
		t.Errorf("dups %v missing %v", cw.Duplicates, cw.Missing)
	}
}
