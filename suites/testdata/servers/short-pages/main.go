// Command short-pages is a small, independent A2A 1.0 server: one of
// pagewalk's witnesses (suites/testdata/servers). It keeps its tasks in
// memory, stamps them in nanoseconds, names them with random UUIDs and signs
// its page tokens with HMAC-SHA256.
//
// Legal variation: a ListTasks page never spans two UTC days of status
// timestamps (the store is partitioned by day and a request reads one
// partition), so pages are often shorter than pageSize. The proto allows it:
// "The service may return fewer than this value." The tokens stay exact.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	seed := flag.Int64("seed", 1, "seed of the pre-existing data and of new ids")
	tasks := flag.Int("tasks", 700, "pre-existing tasks of the first principal (later ones get fewer)")
	step := flag.Duration("clock-step", 0, "if set, a logical clock that advances this much per write instead of the wall clock")
	ttl := flag.Duration("token-ttl", 10*time.Minute, "page token lifetime")
	principals := map[string]string{} // token -> name
	var order []string
	flag.Func("principal", "NAME=TOKEN (repeatable; default alice=alice-token and bob=bob-token)", func(v string) error {
		name, tok, ok := strings.Cut(v, "=")
		if !ok || name == "" || tok == "" {
			return fmt.Errorf("want NAME=TOKEN, got %q", v)
		}
		principals[tok] = name
		order = append(order, name)
		return nil
	})
	flag.Parse()
	if len(principals) == 0 {
		principals = map[string]string{"alice-token": "alice", "bob-token": "bob"}
		order = []string{"alice", "bob"}
	}

	st := newStore(*seed)
	seedData(st, *seed, order, *tasks)
	clk := newClock(*step, st.newest())
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	srv := &server{store: st, clock: clk, principals: principals, base: base,
		tokens: newSigner(fmt.Sprintf("short-pages/%d", *seed), *ttl)}
	fmt.Println("listening on " + base)
	os.Stdout.Sync()
	log.Fatal(http.Serve(ln, srv.routes()))
}

// server holds everything a request needs.
type server struct {
	store      *store
	clock      *clock
	principals map[string]string
	base       string
	tokens     *signer
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-card.json", s.card)
	mux.HandleFunc("/a2a/jsonrpc", s.rpc)
	mux.HandleFunc("GET /a2a/rest/tasks", s.restList)
	mux.HandleFunc("GET /a2a/rest/tasks/{id}", s.restGet)
	mux.HandleFunc("POST /a2a/rest/tasks/{idop}", s.restCancel)
	mux.HandleFunc("POST /a2a/rest/message:send", s.restSend)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeREST(w, errNotFoundPath(r.URL.Path))
	})
	return mux
}

func (s *server) card(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{
  "name": "short-pages",
  "description": "Independent A2A 1.0 test agent: pages end at UTC day boundaries.",
  "version": "1.4.2",
  "supportedInterfaces": [
    {"url": %q, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    {"url": %q, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
  ],
  "capabilities": {"streaming": false, "pushNotifications": false},
  "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
  "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "notes", "name": "Notes", "description": "Takes notes until told to finish.", "tags": ["test"]}]
}
`, s.base+"/a2a/jsonrpc", s.base+"/a2a/rest")
}

// caller authenticates r and checks its A2A-Version; it writes nothing.
func (s *server) caller(r *http.Request) (string, *apiError) {
	auth := r.Header.Get("Authorization")
	scheme, tok, _ := strings.Cut(auth, " ")
	name, ok := s.principals[strings.TrimSpace(tok)]
	if !strings.EqualFold(scheme, "Bearer") || !ok {
		return "", errUnauthenticated()
	}
	v := r.Header.Get("A2A-Version")
	if v == "" {
		v = r.URL.Query().Get("A2A-Version")
	}
	if !speaks(v) {
		return "", errVersion(v)
	}
	return name, nil
}

// speaks reports whether this agent speaks A2A version v: 1.0, with or
// without a patch number (patch numbers "MUST not be considered when
// clients and servers negotiate protocol versions", §3.6).
func speaks(v string) bool {
	v = strings.TrimSpace(v)
	patch, ok := strings.CutPrefix(v, "1.0.")
	if !ok {
		return v == "1.0"
	}
	_, err := strconv.ParseUint(patch, 10, 32)
	return err == nil
}
