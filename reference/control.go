package reference

import (
	"bytes"
	"context"
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
		if e := singleHeaders(r, "Authorization"); e != nil {
			s.writeRESTError(w, rc, e, 0)
			return
		}
		tok, _ := bearerToken(r.Header.Get("Authorization"))
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
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return &Error{Kind: KindInvalidRequest, Field: "body", Message: "body: " + err.Error()}
	}
	if len(body) > maxBody {
		return invalidParam("body", "larger than %d bytes", maxBody)
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
		UnscopedReset:   s.cfg.allowReset,
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

// maxSeedBody bounds one seed request's body. The body is decoded as a
// stream, so memory does not grow with it.
const maxSeedBody = 1 << 30

func (s *Server) controlSeed(w http.ResponseWriter, r *http.Request) {
	rc := info(r)
	start := time.Now()
	sw, err := s.store.beginSeed(r.Context())
	if err != nil {
		s.writeRESTError(w, rc, asError(err), 0)
		return
	}
	defer sw.rollback()
	n, err := s.streamSeed(r.Context(), http.MaxBytesReader(w, r.Body, maxSeedBody), sw)
	if err == nil {
		err = sw.commit(r.Context())
	}
	if err != nil {
		s.writeRESTError(w, rc, asError(err), 0)
		return
	}
	rc.rows = n
	writeJSON(w, http.StatusOK, "application/json", controlapi.SeedReply{Inserted: n, TookMicros: time.Since(start).Microseconds()})
}

// streamSeed decodes a seed request (controlapi.SeedRequest) token by
// token and hands each task to sw as soon as it is valid, so that only one
// task and one batch are in memory whatever the body's size. A bad task
// ends the request with an error naming it; the caller then rolls the whole
// transaction back, so a seed is still all or nothing.
func (s *Server) streamSeed(ctx context.Context, body io.Reader, sw *seedWriter) (int, error) {
	now := s.now()
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	tok, err := dec.Token()
	if err == io.EOF {
		return 0, invalidParam("tasks", "give tasks or generate; nothing to seed")
	}
	if err != nil {
		return 0, bodyError("body", err)
	}
	if tok != json.Delim('{') {
		return 0, invalidParam("body", "must be a JSON object (controlapi.SeedRequest)")
	}
	explicit, generated := 0, 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, bodyError("body", err)
		}
		switch key, _ := tok.(string); key {
		case "tasks":
			tok, err := dec.Token()
			if err != nil {
				return 0, bodyError("tasks", err)
			}
			if tok == nil {
				continue
			}
			if tok != json.Delim('[') {
				return 0, invalidParam("tasks", "must be an array of tasks, got %v", tok)
			}
			for dec.More() {
				name := fmt.Sprintf("tasks[%d]", explicit)
				var t controlapi.SeedTask
				if err := dec.Decode(&t); err != nil {
					return 0, bodyError(name, err)
				}
				if explicit++; explicit+generated > MaxSeedTasks {
					return 0, tooManySeedTasks(explicit + generated)
				}
				st, e := s.seedTask(name, t, now)
				if e != nil {
					return 0, e
				}
				if err := sw.add(ctx, st, name+".id"); err != nil {
					return 0, err
				}
			}
			if _, err := dec.Token(); err != nil {
				return 0, bodyError("tasks", err)
			}
		case "generate":
			var g controlapi.Generate
			if err := dec.Decode(&g); err != nil {
				return 0, bodyError("generate", err)
			}
			if generated > 0 {
				return 0, invalidParam("generate", "given twice")
			}
			n, err := s.generateSeed(ctx, g, explicit, now, sw)
			if err != nil {
				return 0, err
			}
			generated = n
		default:
			return 0, invalidParam(key, "json: unknown field %q", key)
		}
	}
	if _, err := dec.Token(); err != nil {
		return 0, bodyError("body", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return 0, invalidParam("body", "unexpected data after the JSON object")
	}
	if explicit+generated == 0 {
		return 0, invalidParam("tasks", "give tasks or generate; nothing to seed")
	}
	return explicit + generated, nil
}

func tooManySeedTasks(n int) *Error {
	return invalidParam("tasks", "at most %d tasks per request, got %d or more; split the seed into batches", MaxSeedTasks, n)
}

// bodyError names the field at fault in a decoding error under prefix.
func bodyError(prefix string, err error) *Error {
	var ute *json.UnmarshalTypeError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return invalidParam("body", "larger than %d bytes; split the seed into batches", mbe.Limit)
	case errors.As(err, &ute) && ute.Field != "":
		return invalidParam(prefix+"."+ute.Field, "%v", err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return invalidParam(prefix+"."+strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "%v", err)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return invalidParam(prefix, "the body ends early: %v", err)
	}
	return invalidParam(prefix, "%v", err)
}

// seedTask validates one explicit seed task; name is its field
// (tasks[3]).
func (s *Server) seedTask(name string, t controlapi.SeedTask, now int64) (SeedTask, *Error) {
	f := func(field string) string { return name + "." + field }
	st := SeedTask{ID: t.ID, Owner: t.Owner, Tenant: t.Tenant, ContextID: t.ContextID, History: t.HistoryMessages, Artifacts: t.Artifacts, TS: now}
	if st.ID == "" {
		return st, invalidParam(f("id"), "is required")
	}
	if !s.knownPrincipal(t.Owner) {
		return st, invalidParam(f("owner"), "%q is not a principal of this server (known: %s)", t.Owner, strings.Join(s.cfg.principalNames, ", "))
	}
	if st.ContextID == "" {
		st.ContextID = "default"
	}
	state, ok := ParseState(t.State)
	if !ok || state == StateUnspecified {
		return st, invalidParam(f("state"), "must be a TaskState name other than TASK_STATE_UNSPECIFIED, got %q", t.State)
	}
	st.State = state
	switch {
	case t.TimestampMicros != nil && t.Timestamp != "":
		return st, invalidParam(f("timestamp"), "give timestampMicros or timestamp, not both")
	case t.TimestampMicros != nil:
		st.TS = *t.TimestampMicros
	case t.Timestamp != "":
		us, err := ParseTimestamp(t.Timestamp)
		if err != nil {
			return st, invalidParam(f("timestamp"), "must be RFC 3339, got %q", t.Timestamp)
		}
		st.TS = us
	}
	return st, checkCounts(f, t.HistoryMessages, t.Artifacts)
}

// generateSeed validates a generate request and hands its tasks to sw one
// at a time; explicit is the number of explicit tasks already seen.
func (s *Server) generateSeed(ctx context.Context, g controlapi.Generate, explicit int, now int64, sw *seedWriter) (int, error) {
	f := func(name string) string { return "generate." + name }
	if g.Count < 1 {
		return 0, invalidParam(f("count"), "must be at least 1, got %d", g.Count)
	}
	if explicit+g.Count > MaxSeedTasks {
		return 0, tooManySeedTasks(explicit + g.Count)
	}
	if !s.knownPrincipal(g.Owner) {
		return 0, invalidParam(f("owner"), "%q is not a principal of this server (known: %s)", g.Owner, strings.Join(s.cfg.principalNames, ", "))
	}
	if e := checkCounts(f, g.HistoryMessages, g.Artifacts); e != nil {
		return 0, e
	}
	ctxs := g.ContextIDs
	if len(ctxs) == 0 {
		ctxs = []string{"default"}
	}
	states := make([]State, 0, len(g.States))
	for j, name := range g.States {
		st, ok := ParseState(name)
		if !ok || st == StateUnspecified {
			return 0, invalidParam(fmt.Sprintf("generate.states[%d]", j), "must be a TaskState name other than TASK_STATE_UNSPECIFIED, got %q", name)
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
		t := SeedTask{ID: fmt.Sprintf("%s%08d", prefix, i), Owner: g.Owner, Tenant: g.Tenant, ContextID: ctxs[i%len(ctxs)],
			State: states[i%len(states)], TS: start + int64(i)*step, History: g.HistoryMessages, Artifacts: g.Artifacts}
		if err := sw.add(ctx, t, f("idPrefix")); err != nil {
			return 0, err
		}
	}
	return g.Count, nil
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
	case req.All && !s.cfg.allowReset:
		s.writeRESTError(w, rc, &Error{Kind: KindPermissionDenied, Field: "all",
			Message: "all: this server does not allow a reset of the whole store (it was not started with --allow-reset); name what to delete with idPrefix or contextIds"}, 0)
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
