package reference

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/docs/controlapi"
)

// The control API is test-only and off unless a control token is set. It is
// documented in docs/control-api.md so vendors can offer the same endpoints
// in their own test builds.

// Limits on one seed request (the contract's).
const (
	MaxSeedTasks     = controlapi.MaxSeedTasks
	MaxSeedHistory   = controlapi.MaxSeedHistory
	MaxSeedArtifacts = controlapi.MaxSeedArtifacts
)

func (s *Server) controlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /control/info", s.controlInfo)
	mux.HandleFunc("POST /control/seed", s.controlSeed)
	mux.HandleFunc("POST /control/tasks/{op}", s.controlMove)
	mux.HandleFunc("GET /control/clock", s.controlClock)
	mux.HandleFunc("POST /control/clock", s.controlClock)
	mux.HandleFunc("POST /control/reset", s.controlReset)
	mux.HandleFunc("POST /control/keys:rotate", s.controlRotate)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := info(r)
		rc.binding, rc.method = "control", r.Method+" "+r.URL.Path
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.controlToken)) != 1 {
			s.writeRESTError(w, rc, &Error{Kind: KindUnauthenticated, Message: "Authorization: the control API needs its own bearer token (the server's control token)"}, 0)
			return
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			s.writeRESTError(w, rc, &Error{Kind: KindMethodNotFound, Message: "no control endpoint at " + r.Method + " " + r.URL.Path + "; see docs/control-api.md"}, http.StatusNotFound)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// decodeStrict decodes a JSON body, rejecting unknown fields so that a typo
// is an error rather than a silently ignored option.
func decodeStrict(r *http.Request, v any) *Error {
	body, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	if err != nil {
		return &Error{Kind: KindInvalidRequest, Message: "body: " + err.Error()}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		field := "body"
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			field = ute.Field
		} else if strings.HasPrefix(err.Error(), "json: unknown field ") {
			field = strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		}
		return invalidParam(field, "%v", err)
	}
	return nil
}

func (s *Server) controlInfo(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, "application/json", controlapi.Info{
		TokenTTLSeconds: int64(s.cfg.tokenTTL / time.Second),
		Principals:      s.cfg.principalNames,
		DefaultPageSize: DefaultPageSize,
		MaxPageSize:     MaxPageSize,
		UnscopedReset:   true,
	})
}

func (s *Server) knownPrincipal(name string) bool {
	for _, n := range s.cfg.principalNames {
		if n == name {
			return true
		}
	}
	return false
}

func (s *Server) controlSeed(w http.ResponseWriter, r *http.Request) {
	rc := info(r)
	var req controlapi.SeedRequest
	if e := decodeStrict(r, &req); e != nil {
		s.writeRESTError(w, rc, e, 0)
		return
	}
	tasks, e := s.seedTasks(req)
	if e != nil {
		s.writeRESTError(w, rc, e, 0)
		return
	}
	start := time.Now()
	if err := s.store.Insert(r.Context(), tasks); err != nil {
		s.writeRESTError(w, rc, asError(err), 0)
		return
	}
	took := time.Since(start)
	rc.rows = len(tasks)
	writeJSON(w, http.StatusOK, "application/json", controlapi.SeedReply{Inserted: len(tasks), TookMicros: took.Microseconds()})
}

// seedTasks validates a seed request completely before anything is written.
func (s *Server) seedTasks(req controlapi.SeedRequest) ([]SeedTask, *Error) {
	now := s.now()
	n := len(req.Tasks)
	if req.Generate != nil {
		n += req.Generate.Count
	}
	if req.Generate != nil && req.Generate.Count < 1 {
		return nil, invalidParam("generate.count", "must be at least 1, got %d", req.Generate.Count)
	}
	if n == 0 {
		return nil, invalidParam("tasks", "give tasks or generate; nothing to seed")
	}
	if n > MaxSeedTasks {
		return nil, invalidParam("tasks", "at most %d tasks per request, got %d; split the seed into batches", MaxSeedTasks, n)
	}
	out := make([]SeedTask, 0, n)
	seen := make(map[string]bool, len(req.Tasks))
	for i, t := range req.Tasks {
		f := func(name string) string { return fmt.Sprintf("tasks[%d].%s", i, name) }
		st := SeedTask{ID: t.ID, Owner: t.Owner, Tenant: t.Tenant, ContextID: t.ContextID, History: t.HistoryMessages, Artifacts: t.Artifacts, TS: now}
		if st.ID == "" {
			return nil, invalidParam(f("id"), "is required")
		}
		if seen[st.ID] {
			return nil, invalidParam(f("id"), "%q appears twice in this request", st.ID)
		}
		seen[st.ID] = true
		if !s.knownPrincipal(t.Owner) {
			return nil, invalidParam(f("owner"), "%q is not a principal of this server (known: %s)", t.Owner, strings.Join(s.cfg.principalNames, ", "))
		}
		if st.ContextID == "" {
			st.ContextID = "default"
		}
		state, ok := ParseState(t.State)
		if !ok || state == StateUnspecified {
			return nil, invalidParam(f("state"), "must be a TaskState name other than TASK_STATE_UNSPECIFIED, got %q", t.State)
		}
		st.State = state
		switch {
		case t.TimestampMicros != nil && t.Timestamp != "":
			return nil, invalidParam(f("timestamp"), "give timestampMicros or timestamp, not both")
		case t.TimestampMicros != nil:
			st.TS = *t.TimestampMicros
		case t.Timestamp != "":
			us, err := ParseTimestamp(t.Timestamp)
			if err != nil {
				return nil, invalidParam(f("timestamp"), "must be RFC 3339, got %q", t.Timestamp)
			}
			st.TS = us
		}
		if e := checkCounts(f, t.HistoryMessages, t.Artifacts); e != nil {
			return nil, e
		}
		out = append(out, st)
	}
	if g := req.Generate; g != nil {
		f := func(name string) string { return "generate." + name }
		if g.Count < 1 {
			return nil, invalidParam(f("count"), "must be at least 1, got %d", g.Count)
		}
		if !s.knownPrincipal(g.Owner) {
			return nil, invalidParam(f("owner"), "%q is not a principal of this server (known: %s)", g.Owner, strings.Join(s.cfg.principalNames, ", "))
		}
		if e := checkCounts(f, g.HistoryMessages, g.Artifacts); e != nil {
			return nil, e
		}
		ctxs := g.ContextIDs
		if len(ctxs) == 0 {
			ctxs = []string{"default"}
		}
		states := make([]State, 0, len(g.States))
		for j, name := range g.States {
			st, ok := ParseState(name)
			if !ok || st == StateUnspecified {
				return nil, invalidParam(fmt.Sprintf("generate.states[%d]", j), "must be a TaskState name other than TASK_STATE_UNSPECIFIED, got %q", name)
			}
			states = append(states, st)
		}
		if len(states) == 0 {
			states = []State{StateCompleted}
		}
		start, step := now, int64(-1000)
		if g.StartMicros != nil {
			start = *g.StartMicros
		}
		if g.StepMicros != nil {
			step = *g.StepMicros
		}
		prefix := g.IDPrefix
		if prefix == "" {
			prefix = "g-"
		}
		for i := 0; i < g.Count; i++ {
			id := fmt.Sprintf("%s%08d", prefix, i)
			if seen[id] {
				return nil, invalidParam(f("idPrefix"), "generated id %q collides with tasks[]", id)
			}
			out = append(out, SeedTask{ID: id, Owner: g.Owner, Tenant: g.Tenant, ContextID: ctxs[i%len(ctxs)],
				State: states[i%len(states)], TS: start + int64(i)*step, History: g.HistoryMessages, Artifacts: g.Artifacts})
		}
	}
	return out, nil
}

func checkCounts(f func(string) string, history, artifacts int) *Error {
	if history < 0 || history > MaxSeedHistory {
		return invalidParam(f("historyMessages"), "must be between 0 and %d, got %d", MaxSeedHistory, history)
	}
	if artifacts < 0 || artifacts > MaxSeedArtifacts {
		return invalidParam(f("artifacts"), "must be between 0 and %d, got %d", MaxSeedArtifacts, artifacts)
	}
	return nil
}

func (s *Server) controlMove(w http.ResponseWriter, r *http.Request) {
	rc := info(r)
	id, ok := strings.CutSuffix(r.PathValue("op"), ":move")
	if !ok || id == "" {
		s.writeRESTError(w, rc, &Error{Kind: KindMethodNotFound, Message: "want POST /control/tasks/{id}:move"}, http.StatusNotFound)
		return
	}
	var req controlapi.MoveRequest
	if e := decodeStrict(r, &req); e != nil {
		s.writeRESTError(w, rc, e, 0)
		return
	}
	cur, err := s.store.Get(r.Context(), "", "", id)
	if err != nil {
		s.writeRESTError(w, rc, asError(err), 0)
		return
	}
	state, ts := cur.State, s.now()
	if req.State != "" {
		st, ok := ParseState(req.State)
		if !ok || st == StateUnspecified {
			s.writeRESTError(w, rc, invalidParam("state", "must be a TaskState name other than TASK_STATE_UNSPECIFIED, got %q", req.State), 0)
			return
		}
		state = st
	}
	switch {
	case req.TimestampMicros != nil && req.Timestamp != "":
		s.writeRESTError(w, rc, invalidParam("timestamp", "give timestampMicros or timestamp, not both"), 0)
		return
	case req.TimestampMicros != nil:
		ts = *req.TimestampMicros
	case req.Timestamp != "":
		us, err := ParseTimestamp(req.Timestamp)
		if err != nil {
			s.writeRESTError(w, rc, invalidParam("timestamp", "must be RFC 3339, got %q", req.Timestamp), 0)
			return
		}
		ts = us
	}
	if err := s.store.Update(r.Context(), id, state, ts, nil, nil); err != nil {
		s.writeRESTError(w, rc, asError(err), 0)
		return
	}
	writeJSON(w, http.StatusOK, "application/json", controlapi.MoveReply{ID: id, State: state.String(), Timestamp: FormatTimestamp(ts), TimestampMicros: ts})
}

func (s *Server) controlClock(w http.ResponseWriter, r *http.Request) {
	rc := info(r)
	if r.Method == http.MethodPost {
		var req controlapi.ClockRequest
		if e := decodeStrict(r, &req); e != nil {
			s.writeRESTError(w, rc, e, 0)
			return
		}
		if e := s.applyClock(req); e != nil {
			s.writeRESTError(w, rc, e, 0)
			return
		}
		if err := s.saveClock(r.Context()); err != nil {
			s.writeRESTError(w, rc, asError(err), 0)
			return
		}
	}
	now := s.now()
	writeJSON(w, http.StatusOK, "application/json", controlapi.Clock{NowMicros: now, Now: FormatTimestamp(now), Frozen: s.clock.Frozen()})
}

func (s *Server) applyClock(req controlapi.ClockRequest) *Error {
	if req.NowMicros != nil && req.Now != "" {
		return invalidParam("now", "give nowMicros or now, not both")
	}
	if req.AdvanceMicros != nil && req.Advance != "" {
		return invalidParam("advance", "give advanceMicros or advance, not both")
	}
	var set *int64
	if req.NowMicros != nil {
		set = req.NowMicros
	} else if req.Now != "" {
		us, err := ParseTimestamp(req.Now)
		if err != nil {
			return invalidParam("now", "must be RFC 3339, got %q", req.Now)
		}
		set = &us
	}
	var adv int64
	if req.AdvanceMicros != nil {
		adv = *req.AdvanceMicros
	} else if req.Advance != "" {
		d, err := time.ParseDuration(req.Advance)
		if err != nil {
			return invalidParam("advance", "must be a Go duration such as 10m or 1.5s, got %q", req.Advance)
		}
		adv = d.Microseconds()
	}
	if req.Reset {
		s.clock.Reset()
	}
	if set != nil {
		s.clock.Set(*set)
	}
	if adv != 0 {
		s.clock.Advance(adv)
	}
	if req.Run {
		s.clock.Run()
	}
	return nil
}

func (s *Server) controlReset(w http.ResponseWriter, r *http.Request) {
	rc := info(r)
	var req controlapi.ResetRequest
	if e := decodeStrict(r, &req); e != nil {
		s.writeRESTError(w, rc, e, 0)
		return
	}
	var n int
	var err error
	switch {
	case req.All && (req.IDPrefix != "" || len(req.ContextIDs) > 0):
		s.writeRESTError(w, rc, invalidParam("all", "give all, or idPrefix and/or contextIds, not both"), 0)
		return
	case req.All:
		n, err = s.store.Reset(r.Context())
	case req.IDPrefix == "" && len(req.ContextIDs) == 0:
		s.writeRESTError(w, rc, invalidParam("idPrefix", "say what to delete: idPrefix, contextIds, or all"), 0)
		return
	default:
		n, err = s.store.DeleteScoped(r.Context(), req.IDPrefix, req.ContextIDs)
	}
	if err != nil {
		s.writeRESTError(w, rc, asError(err), 0)
		return
	}
	writeJSON(w, http.StatusOK, "application/json", controlapi.ResetReply{Deleted: n})
}

func (s *Server) controlRotate(w http.ResponseWriter, r *http.Request) {
	if err := s.keys.Rotate(r.Context(), s.now()); err != nil {
		s.writeRESTError(w, info(r), asError(err), 0)
		return
	}
	writeJSON(w, http.StatusOK, "application/json", controlapi.RotateReply{CurrentKeyID: s.keys.CurrentID()})
}
