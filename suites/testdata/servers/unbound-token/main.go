// Command unbound-token is a small, independent A2A 1.0 server: one of
// pagewalk's witnesses (suites/testdata/servers). Its core speaks JSON-RPC;
// the HTTP+JSON binding is an adapter that turns each REST call into the
// same core call. It keeps tasks in an append-only slice, stamps them in
// microseconds, names them with random UUIDs and signs its page tokens with
// HMAC-SHA256. A token is a signed snapshot of the query: the owner whose
// tasks are listed, the filter set, the cursor (tie-safe) and an expiry.
//
// Defect: a continuation page runs the query the token describes, for the
// owner it names, without checking that the caller is that owner. A token
// passed to (or stolen by) another principal lists the issuer's tasks. The
// spec: "Implementations MUST implement appropriate authorization scoping to
// ensure clients can only access authorized tasks." (§3.1.4); the seed: bind
// tokens "to principal, tenant and filters, and always re-apply
// authorization in the query."
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

func main() {
	cfg := config{}
	flag.StringVar(&cfg.addr, "addr", "127.0.0.1:0", "address to listen on")
	flag.Int64Var(&cfg.seed, "seed", 42, "seed for the pre-existing data and new ids")
	flag.IntVar(&cfg.tasks, "tasks", 520, "pre-existing tasks of the first principal")
	flag.DurationVar(&cfg.step, "clock-step", 0, "use a logical clock that advances this much per write (0: wall clock)")
	flag.DurationVar(&cfg.ttl, "token-ttl", 10*time.Minute, "lifetime of page tokens")
	flag.Func("principal", "NAME=TOKEN (repeatable)", func(v string) error {
		cfg.principals = append(cfg.principals, v)
		return nil
	})
	flag.Parse()
	if len(cfg.principals) == 0 {
		cfg.principals = []string{"alice=alice-token", "bob=bob-token"}
	}
	svc, err := newService(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		log.Fatal(err)
	}
	svc.url = "http://" + ln.Addr().String()
	fmt.Println("listening on " + svc.url)
	log.Fatal(http.Serve(ln, svc.mux()))
}

// name is this server's name.
const name = "unbound-token"

type config struct {
	addr       string
	seed       int64
	tasks      int
	step, ttl  time.Duration
	principals []string
}

func newService(cfg config) (*service, error) {
	s := &service{keys: map[string]string{}, tokens: newTokens(cfg.seed, cfg.ttl)}
	var names []string
	for _, p := range cfg.principals {
		name, key, ok := strings.Cut(p, "=")
		if !ok || name == "" || key == "" {
			return nil, fmt.Errorf("-principal %q: want NAME=TOKEN", p)
		}
		s.keys[key] = name
		names = append(names, name)
	}
	s.repo = newRepo(cfg.seed)
	last := s.repo.fill(names, cfg.tasks, cfg.seed)
	s.clock = newClock(cfg.step, last)
	return s, nil
}

func (s *service) mux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /.well-known/agent-card.json", s.card)
	m.HandleFunc("POST /jsonrpc/v1", s.serveRPC)
	m.HandleFunc("/rest/v1/", s.serveREST)
	return m
}

func (s *service) card(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"name":"unbound-token","description":"Independent A2A 1.0 test agent: a help desk.","version":"2.2.0",`+
		`"supportedInterfaces":[{"url":"%[1]s/jsonrpc/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"},`+
		`{"url":"%[1]s/rest/v1","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],`+
		`"capabilities":{"streaming":false,"pushNotifications":false},`+
		`"securitySchemes":{"bearerAuth":{"httpAuthSecurityScheme":{"scheme":"bearer"}}},`+
		`"securityRequirements":[{"schemes":{"bearerAuth":{"list":[]}}}],`+
		`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],`+
		`"skills":[{"id":"desk","name":"Help desk","description":"Keeps a ticket open until it is resolved.","tags":["test"]}]}`+"\n", s.url)
}
