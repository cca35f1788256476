package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
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
	b          *behaviour
	log        *slog.Logger
	handler    http.Handler
	limitersMu sync.Mutex
	limiters   map[string]*rate.Limiter

	mu   sync.Mutex
	http *http.Server
	ln   net.Listener
}

// New opens the store and key ring and builds a Server. Call Close (or
// Shutdown) to release the store.
func New(opts ...Option) (*Server, error) {
	cfg := config{
		dbPath:         ":memory:",
		principals:     map[string]string{},
		tokenTTL:       10 * time.Minute,
		defaultHistory: -1,
		version:        "dev",
	}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if len(cfg.principals) == 0 {
		return nil, errors.New("--principal: at least one NAME=TOKEN is required")
	}
	b, err := newBehaviour(cfg.faults)
	if err != nil {
		return nil, err
	}
	if cfg.exclusiveAfter {
		b.exclusiveAfter = true
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	st, err := OpenStore(cfg.dbPath)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, store: st, clock: NewClock(cfg.now), b: b, log: cfg.logger,
		limiters: map[string]*rate.Limiter{}}
	ctx := context.Background()
	if v, ok, err := st.GetMeta(ctx, "clock"); err != nil {
		st.Close()
		return nil, err
	} else if ok {
		var cs ClockState
		if json.Unmarshal([]byte(v), &cs) == nil {
			s.clock.Restore(cs)
		}
	}
	var ks KeyStore = dbKeyStore{st}
	switch {
	case b.ephemeralKeys:
		ks = nil
	case cfg.keyFile != "":
		ks = FileKeyStore(cfg.keyFile)
	}
	s.keys, err = NewKeyRing(ks, cfg.tokenTTL.Microseconds(), s.clock.NowMicros())
	if err != nil {
		st.Close()
		return nil, err
	}
	s.keys.overlap = !b.noKeyOverlap
	s.handler = s.routes()
	return s, nil
}

// dbKeyStore keeps the key ring in the database's meta table, so keys
// persist with the tasks unless --key-file names a separate file.
type dbKeyStore struct{ st *Store }

func (d dbKeyStore) LoadKeys() ([]Key, error) {
	v, ok, err := d.st.GetMeta(context.Background(), "keys")
	if err != nil || !ok {
		return nil, err
	}
	var keys []Key
	return keys, json.Unmarshal([]byte(v), &keys)
}

func (d dbKeyStore) SaveKeys(keys []Key) error {
	b, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	return d.st.SetMeta(context.Background(), "keys", string(b))
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
		return "", fmt.Errorf("--addr %s: %w", addr, err)
	}
	s.mu.Lock()
	s.ln = ln
	s.http = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
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

// Shutdown stops accepting requests, waits for those in flight (until ctx
// ends) and closes the store. Every committed task is on disk afterwards.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv := s.http
	s.mu.Unlock()
	var err error
	if srv != nil {
		err = srv.Shutdown(ctx)
	}
	return errors.Join(err, s.store.Close())
}

// Close shuts down at once.
func (s *Server) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return s.Shutdown(ctx)
}

func (s *Server) now() int64 { return s.clock.NowMicros() }

// saveClock persists the clock so that a restart keeps controlled time.
func (s *Server) saveClock(ctx context.Context) error {
	b, _ := json.Marshal(s.clock.State())
	return s.store.SetMeta(ctx, "clock", string(b))
}

// ---- ListTasks ----

// listTasks runs one ListTasks call for principal. binding is "jsonrpc" or
// "http". It returns the response value to encode.
func (s *Server) listTasks(ctx context.Context, rc *reqInfo, p ListParams, binding string) (any, *Error) {
	b := s.b
	if binding == "http" && b.filterIgnoredOnHTTP {
		p.ContextID, p.Status = "", StateUnspecified
	}
	fh := p.filterHash()
	q := listQuery{
		owner: rc.principal, tenant: p.Tenant,
		contextID: p.ContextID, state: p.Status,
		after: p.After, afterSet: p.AfterSet, afterExclusive: b.exclusiveAfter,
		limit: p.PageSize, filterKey: fh,
		unscoped: b.unscopedList, unscopedTenant: b.unscopedTenant, offsetCursor: b.offsetCursor, timestampOnly: b.timestampOnlyCursor,
		ascending: b.ascending, tieAscending: b.tieAscending,
	}
	now := s.now()
	var total int64
	if p.PageToken != "" {
		c, err := b.codec.Decode(p.PageToken, s.keys, now)
		if err != nil {
			rc.tokenErr = err.Token
			return nil, s.rpcErr(err)
		}
		if !b.noExpiry && now >= c.Expires {
			if b.expiredEmptyPage {
				return s.renderList(&ListTasksResponse{Tasks: []Task{}, PageSize: p.PageSize, TotalSize: int(c.TotalSize)}), nil
			}
			rc.tokenErr = TokenExpired
			return nil, s.rpcErr(&Error{Kind: KindInvalidParams, Field: "pageToken", Token: TokenExpired,
				Message: "pageToken: expired at " + FormatTimestamp(c.Expires) + "; restart the walk without pageToken"})
		}
		var why string
		switch {
		case c.Principal != rc.principal && !b.unboundPrincipal:
			why = "a different principal"
		case c.Tenant != p.Tenant && !b.unscopedTenant:
			why = "a different tenant"
		case c.FilterHash != fh && !b.unboundFilter:
			why = "a different filter set (contextId, status, statusTimestampAfter, historyLength and includeArtifacts must not change during a walk)"
		}
		if why != "" {
			rc.tokenErr = TokenBinding
			return nil, s.rpcErr(&Error{Kind: KindInvalidParams, Field: "pageToken", Token: TokenBinding,
				Message: "pageToken: issued for " + why + "; restart the walk without pageToken"})
		}
		if b.leakPrincipal {
			q.owner = c.Principal
		}
		q.seek, q.seekTS, q.seekID, q.offset = true, c.TS, c.ID, c.Offset
		total = c.TotalSize
	} else {
		n, err := s.store.Count(ctx, q)
		if err != nil {
			return nil, s.rpcErr(err)
		}
		total = n
	}
	limit := p.PageSize
	if b.shortPages && limit > 1 {
		limit = 1 + rand.IntN(limit)
	}
	q.limit = limit
	if b.earlyEmptyToken {
		q.limit = 2 * limit
	}
	rows, err := s.store.List(ctx, q)
	if err != nil {
		return nil, s.rpcErr(err)
	}
	more := len(rows) > limit
	early := b.earlyEmptyToken && more && len(rows) <= 2*limit
	if len(rows) > limit {
		rows = rows[:limit]
	}
	if len(rows) == 0 {
		more = false // pageSize 0 under the pagesize-unchecked fault
	}
	if early {
		rows, more = rows[:limit-1], false
	}
	rc.rows = len(rows)
	resp := &ListTasksResponse{Tasks: make([]Task, 0, len(rows)), PageSize: p.PageSize, TotalSize: int(total)}
	for _, r := range rows {
		t, err := s.renderTask(ctx, r, p.HistoryLength, p.HistorySet, p.IncludeArtifacts || b.artifactsByDefault)
		if err != nil {
			return nil, s.rpcErr(err)
		}
		if t.Artifacts == nil && b.artifactsEmptyArray {
			t.Artifacts = &[]Artifact{}
		}
		resp.Tasks = append(resp.Tasks, t)
	}
	if more {
		last := rows[len(rows)-1]
		resp.NextPageToken = b.codec.Encode(Claims{
			TS: last.TS, ID: last.ID, Offset: q.offset + int64(len(rows)),
			Principal: q.owner, Tenant: p.Tenant, FilterHash: fh,
			Expires: now + s.cfg.tokenTTL.Microseconds(), TotalSize: total,
		}, s.keys)
	}
	if b.totalSizeWrong {
		resp.TotalSize++
	}
	if b.unsortedPage && len(resp.Tasks) > 1 {
		for i, j := 0, len(resp.Tasks)-1; i < j; i, j = i+1, j-1 {
			resp.Tasks[i], resp.Tasks[j] = resp.Tasks[j], resp.Tasks[i]
		}
	}
	return s.renderList(resp), nil
}

// renderList applies the wire-shape faults; the clean server returns resp
// as is.
func (s *Server) renderList(resp *ListTasksResponse) any {
	b := s.b
	if !(b.missingNextToken || b.nullNextToken || b.tasksNullWhenEmpty) {
		return resp
	}
	m := map[string]any{"tasks": resp.Tasks, "nextPageToken": resp.NextPageToken,
		"pageSize": resp.PageSize, "totalSize": resp.TotalSize}
	if resp.NextPageToken == "" && b.missingNextToken {
		delete(m, "nextPageToken")
	}
	if resp.NextPageToken == "" && b.nullNextToken {
		m["nextPageToken"] = nil
	}
	if len(resp.Tasks) == 0 && b.tasksNullWhenEmpty {
		m["tasks"] = nil
	}
	return m
}

// renderTask builds the wire Task for a row. historySet false means the
// server default; includeArtifacts false omits the field (LT-ART-1).
func (s *Server) renderTask(ctx context.Context, r taskRow, historyLength int, historySet, includeArtifacts bool) (Task, error) {
	t := Task{ID: r.ID, ContextID: r.ContextID, Status: TaskStatus{State: r.State.String(), Timestamp: FormatTimestamp(r.TS)}}
	limit := s.cfg.defaultHistory
	if historySet {
		limit = historyLength
	}
	if s.b.historyIgnored {
		limit = -1
	}
	if limit != 0 {
		msgs, err := s.store.Messages(ctx, r.ID, r.ContextID, limit)
		if err != nil {
			return t, err
		}
		if len(msgs) > 0 {
			t.History = &msgs
		}
	}
	if includeArtifacts {
		arts, err := s.store.Artifacts(ctx, r.ID)
		if err != nil {
			return t, err
		}
		t.Artifacts = &arts
	}
	return t, nil
}

// rpcErr converts err to an *Error and applies the wrong-error-code fault.
func (s *Server) rpcErr(err error) *Error {
	e := asError(err)
	if s.b.wrongErrorCode && e.Kind == KindInvalidParams {
		c := *e
		c.Code = -32600
		return &c
	}
	return e
}

// ---- GetTask, CancelTask ----

func (s *Server) getTask(ctx context.Context, rc *reqInfo, p GetParams) (any, *Error) {
	owner := rc.principal
	if s.b.getTaskCrossPrincipal {
		owner = ""
	}
	r, err := s.store.Get(ctx, owner, p.Tenant, p.ID)
	if err != nil {
		return nil, s.rpcErr(err)
	}
	t, err := s.renderTask(ctx, r, p.HistoryLength, p.HistorySet, true)
	if err != nil {
		return nil, s.rpcErr(err)
	}
	rc.rows = 1
	return t, nil
}

func (s *Server) cancelTask(ctx context.Context, rc *reqInfo, p GetParams) (any, *Error) {
	r, err := s.store.Get(ctx, rc.principal, p.Tenant, p.ID)
	if err != nil {
		return nil, s.rpcErr(err)
	}
	if r.State.Terminal() {
		return nil, &Error{Kind: KindTaskNotCancelable, Field: "id",
			Message: "id: task " + p.ID + " is " + r.State.String() + " and cannot be canceled"}
	}
	if err := s.store.Update(ctx, r.ID, StateCanceled, s.now(), nil, nil); err != nil {
		return nil, s.rpcErr(err)
	}
	return s.getTask(ctx, rc, GetParams{Tenant: p.Tenant, ID: p.ID, HistorySet: false})
}
