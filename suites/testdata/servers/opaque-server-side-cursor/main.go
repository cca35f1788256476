// Command opaque-server-side-cursor is a small, independent A2A 1.0
// server: one of pagewalk's witnesses (suites/testdata/servers). It is
// REST-first: the HTTP+JSON handlers are the implementation and JSON-RPC is
// an adapter over them. Tasks live in a JSON Lines file (one line per write,
// the last line of a task wins), stamped in whole seconds and numbered 1, 2,
// 3, ...
//
// Legal variation: page tokens are random ids of cursors kept server-side
// (bound to the caller and the filters, expiring), so a token carries no
// data at all; the cursor is (timestamp, number), so tasks tied in the same
// second are neither skipped nor repeated at page boundaries.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

type server struct {
	base    string
	callers map[string]string
	store   *fileStore
	pages   *pageTable
	binds   []string // interfaces the card declares
}

func main() {
	var (
		addr    = flag.String("addr", "127.0.0.1:0", "listen address")
		dataDir = flag.String("data", "", "directory of the task file (default: a new temporary directory)")
		seed    = flag.Int64("seed", 2026, "seed of the pre-existing data and of cursor ids")
		tasks   = flag.Int("tasks", 900, "pre-existing tasks of the first principal")
		step    = flag.Duration("clock-step", 0, "if set, timestamps come from a logical clock advancing this much per write")
		ttl     = flag.Duration("token-ttl", 15*time.Minute, "page token lifetime")
		users   []string
	)
	flag.Func("principal", "NAME=TOKEN (repeatable; default alice and bob)", func(s string) error { users = append(users, s); return nil })
	flag.Parse()
	if len(users) == 0 {
		users = []string{"alice=alice-token", "bob=bob-token"}
	}
	s := &server{callers: map[string]string{}, pages: newPageTable(*seed, *ttl), binds: []string{"JSONRPC", "HTTP+JSON"}}
	var names []string
	for _, u := range users {
		n, t, ok := strings.Cut(u, "=")
		if !ok || n == "" || t == "" {
			log.Fatalf("bad -principal %q, want NAME=TOKEN", u)
		}
		s.callers[t] = n
		names = append(names, n)
	}
	dir := *dataDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "a2a-witness-*"); err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}
	var err error
	if s.store, err = openFileStore(dir, names, *tasks, *seed, *step); err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	s.base = "http://" + ln.Addr().String()
	fmt.Println("listening on " + s.base)
	if err := http.Serve(ln, s.routes()); err != nil {
		log.Print(err)
	}
}

func (s *server) routes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /.well-known/agent-card.json", s.card)
	m.HandleFunc("GET /api/tasks", s.authed(s.restList))
	m.HandleFunc("GET /api/tasks/{id}", s.authed(s.restGet))
	m.HandleFunc("POST /api/tasks/{id}", s.authed(s.restCancel))
	m.HandleFunc("POST /api/message:send", s.authed(s.restSend))
	m.HandleFunc("POST /api/rpc", s.rpc)
	return m
}

func (s *server) card(w http.ResponseWriter, r *http.Request) {
	var ifaces []string
	for _, b := range s.binds {
		path := "/api"
		if b == "JSONRPC" {
			path = "/api/rpc"
		}
		ifaces = append(ifaces, fmt.Sprintf(`{"url": %q, "protocolBinding": %q, "protocolVersion": "1.0"}`, s.base+path, b))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	fmt.Fprintf(w, `{
  "name": "opaque-server-side-cursor",
  "description": "Independent A2A 1.0 test agent: reminders.",
  "version": "6.0.2",
  "supportedInterfaces": [%s],
  "capabilities": {"streaming": false, "pushNotifications": false},
  "securitySchemes": {"apiToken": {"httpAuthSecurityScheme": {"scheme": "Bearer", "description": "per-user API token"}}},
  "securityRequirements": [{"schemes": {"apiToken": {"list": []}}}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "remind", "name": "Reminders", "description": "Keeps a reminder open until it is done.", "tags": ["test"]}]
}
`, strings.Join(ifaces, ", "))
}
