package reference

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Server is the reference A2A server.
type Server struct {
	cfg        config
	store      *Store
	keys       *KeyRing
	clock      *Clock
	seams      seams
	log        *slog.Logger
	handler    http.Handler
	limitersMu sync.Mutex
	limiters   map[string]*rate.Limiter

	mu        sync.Mutex
	http      *http.Server
	ln        net.Listener
	closeOnce sync.Once
}

// New opens the store and key ring and builds a Server; ctx bounds that
// set-up (the server does not keep it). Call Close (or Shutdown) to
// release the store.
//
// With no options but principals, New builds the clean reference: every
// seam is its clean implementation (cleanSeams) until WithFaults swaps some.
func New(ctx context.Context, opts ...Option) (*Server, error) {
	cfg := config{
		dbPath:         ":memory:",
		principals:     map[string]string{},
		tokenTTL:       10 * time.Minute,
		defaultHistory: -1,
		afterOp:        ">=",
		version:        "dev",
		timeouts:       DefaultTimeouts,
		seams:          cleanSeams(),
	}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if len(cfg.principals) == 0 {
		return nil, paramErr("principal", "at least one NAME=TOKEN is required")
	}
	if err := installFaults(&cfg); err != nil {
		return nil, err
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	st, err := OpenStore(ctx, cfg.dbPath)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, store: st, clock: NewClock(cfg.now), seams: cfg.seams, log: cfg.logger,
		limiters: map[string]*rate.Limiter{}}
	if v, ok, err := st.GetMeta(ctx, "clock"); err != nil {
		st.Close()
		return nil, err
	} else if ok {
		var cs ClockState
		if json.Unmarshal([]byte(v), &cs) == nil {
			s.clock.Restore(cs)
		}
	}
	var durable KeyStore = dbKeyStore{st}
	if cfg.keyFile != "" {
		durable = FileKeyStore(cfg.keyFile)
	}
	ttl := cfg.tokenTTL.Microseconds()
	s.keys, err = newKeyRing(ctx, s.seams.keys.store(durable), s.seams.keys.grace(ttl), s.clock.NowMicros())
	if err != nil {
		st.Close()
		return nil, err
	}
	if err := s.preseed(ctx, cfg.preseed); err != nil {
		st.Close()
		return nil, err
	}
	s.handler = s.routes()
	return s, nil
}

// FaultSeed returns the seed of the fault modes' random choices: the one
// given with WithFaultSeed, or the one the server picked.
func (s *Server) FaultSeed() uint64 { return s.cfg.faultSeed }

// dbKeyStore keeps the key ring in the database's meta table, so keys
// persist with the tasks unless --key-file names a separate file.
type dbKeyStore struct{ st *Store }

func (d dbKeyStore) LoadKeys(ctx context.Context) ([]Key, error) {
	v, ok, err := d.st.GetMeta(ctx, "keys")
	if err != nil || !ok {
		return nil, err
	}
	var keys []Key
	return keys, json.Unmarshal([]byte(v), &keys)
}

func (d dbKeyStore) SaveKeys(ctx context.Context, keys []Key) error {
	b, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	return d.st.SetMeta(ctx, "keys", string(b))
}

// Handler returns the server's HTTP handler (both bindings, the Agent Card,
// the health check and, if enabled, the control API).
func (s *Server) Handler() http.Handler { return s.handler }

// Store returns the server's task store.
func (s *Server) Store() *Store { return s.store }

// Clock returns the server's controllable clock.
func (s *Server) Clock() *Clock { return s.clock }

// Listen starts serving on addr (for example 127.0.0.1:0) in the background
// and returns the base URL.
func (s *Server) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", paramErr("addr", "%s: %v", addr, err)
	}
	s.mu.Lock()
	s.ln = ln
	t := s.cfg.timeouts
	s.http = &http.Server{Handler: s.handler, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read,
		WriteTimeout: t.Write, IdleTimeout: t.Idle}
	srv := s.http
	s.mu.Unlock()
	go srv.Serve(ln)
	return s.URL(), nil
}

// URL returns the base URL of the listener started by Listen.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String()
}

// Shutdown stops accepting requests, waits for those in flight to finish
// (until ctx ends; then it cuts the connections that are left), and only
// then closes the store, so no request runs against a closed store. Every
// committed task is on disk afterwards. Calling it again does nothing.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv := s.http
	s.mu.Unlock()
	var err error
	s.closeOnce.Do(func() {
		if srv != nil {
			if err = srv.Shutdown(ctx); err != nil {
				// Out of time: cut what is left. The store's Close below still
				// waits for the statements those requests started.
				err = errors.Join(err, srv.Close())
			}
		}
		err = errors.Join(err, s.store.Close())
	})
	return err
}

// DrainTimeout bounds how long Close waits for in-flight requests.
const DrainTimeout = 10 * time.Second

// Close shuts down gracefully: it drains in-flight requests for up to
// DrainTimeout, then closes the store.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), DrainTimeout)
	defer cancel()
	return s.Shutdown(ctx)
}

func (s *Server) now() int64 { return s.clock.NowMicros() }

// saveClock persists the clock so that a restart keeps controlled time.
func (s *Server) saveClock(ctx context.Context) error {
	b, _ := json.Marshal(s.clock.State())
	return s.store.SetMeta(ctx, "clock", string(b))
}

// ---- ListTasks ----

// listTasks runs one ListTasks call. binding is "jsonrpc" or "http". It
// returns the response value to encode. Every decision a fault mode can
// change is a call to one of the server's seams.
func (s *Server) listTasks(ctx context.Context, rc *reqInfo, p ListParams, binding string) (any, *Error) {
	sm := s.seams
	sm.params.listFilters(binding, &p)
	w := walkKey{principal: rc.principal, tenant: p.Tenant, filterHash: p.filterHash()}
	now := s.now()
	// A walk starts with the caller's listing and counts it; a page token
	// carries on the walk it was issued for, with its cursor and count.
	c := Claims{Principal: rc.principal, Tenant: p.Tenant, FilterHash: w.filterHash}
	if p.PageToken != "" {
		var e *Error
		if c, e = sm.codec.Decode(p.PageToken, s.keys, now); e == nil {
			c, e = sm.access.admit(c, w, now)
		}
		if e != nil {
			rc.tokenErr = e.Token
			return nil, e
		}
	}
	q := listQuery{scope: sm.access.listScope(c.Principal, p.Tenant), contextID: p.ContextID, state: p.Status,
		after: p.After, afterSet: p.AfterSet, afterOp: s.cfg.afterOp, join: sm.params.join()}
	if p.PageToken == "" {
		n, err := s.store.Count(ctx, q)
		if err != nil {
			return nil, asError(err)
		}
		c.TotalSize = n
	}
	rows, next, err := sm.pager.page(ctx, s.store, q, c.Cursor, p.PageSize)
	if err != nil {
		e := asError(err)
		rc.tokenErr = e.Token
		return nil, e
	}
	rc.rows = len(rows)
	resp := &ListTasksResponse{Tasks: make([]Task, 0, len(rows)), PageSize: p.PageSize, TotalSize: int(c.TotalSize)}
	view := sm.rewriter.view(s.taskView(p.HistoryLength, p.HistorySet, p.IncludeArtifacts))
	for _, r := range rows {
		t, err := s.renderTask(ctx, r, view)
		if err != nil {
			return nil, asError(err)
		}
		resp.Tasks = append(resp.Tasks, t)
	}
	if next != "" {
		resp.NextPageToken = sm.codec.Encode(Claims{Cursor: next, Principal: c.Principal, Tenant: p.Tenant,
			FilterHash: w.filterHash, Expires: now + s.cfg.tokenTTL.Microseconds(), TotalSize: c.TotalSize}, s.keys)
	}
	return sm.rewriter.list(resp), nil
}

// taskView is what a reply renders of each task: historyLength (or the
// server default when unset) and the artifacts when asked for.
func (s *Server) taskView(historyLength int, historySet, includeArtifacts bool) taskView {
	v := taskView{history: s.cfg.defaultHistory, artifacts: includeArtifacts}
	if historySet {
		v.history = historyLength
	}
	return v
}

// renderTask builds the wire Task for a row. A history of 0 messages and
// unrequested artifacts are omitted (LT-HIST-*, LT-ART-1).
func (s *Server) renderTask(ctx context.Context, r taskRow, v taskView) (Task, error) {
	t := Task{ID: r.ID, ContextID: r.ContextID, Status: TaskStatus{State: r.State.String(), Timestamp: FormatTimestamp(r.TS)}}
	if v.history != 0 {
		msgs, err := s.store.Messages(ctx, r.ID, r.ContextID, v.history)
		if err != nil {
			return t, err
		}
		if len(msgs) > 0 {
			t.History = &msgs
		}
	}
	if v.artifacts {
		arts, err := s.store.Artifacts(ctx, r.ID)
		if err != nil {
			return t, err
		}
		t.Artifacts = &arts
	}
	return t, nil
}

// ---- GetTask, CancelTask ----

func (s *Server) getTask(ctx context.Context, rc *reqInfo, p GetParams) (any, *Error) {
	r, err := s.store.get(ctx, s.seams.access.getScope(rc.principal, p.Tenant), p.ID)
	if err != nil {
		return nil, asError(err)
	}
	t, err := s.renderTask(ctx, r, s.seams.rewriter.view(s.taskView(p.HistoryLength, p.HistorySet, true)))
	if err != nil {
		return nil, asError(err)
	}
	rc.rows = 1
	return s.seams.rewriter.task(t), nil
}

func (s *Server) cancelTask(ctx context.Context, rc *reqInfo, p GetParams) (any, *Error) {
	r, err := s.store.get(ctx, ownerScope(rc.principal, p.Tenant), p.ID)
	if err != nil {
		return nil, asError(err)
	}
	if r.State.Terminal() {
		return nil, &Error{Kind: KindTaskNotCancelable, Field: "id",
			Message: "id: task " + p.ID + " is " + r.State.String() + " and cannot be canceled"}
	}
	if err := s.store.Update(ctx, r.ID, StateCanceled, s.now(), nil, nil); err != nil {
		return nil, asError(err)
	}
	return s.getTask(ctx, rc, GetParams{Tenant: p.Tenant, ID: p.ID, HistorySet: false})
}
