// Command tsa-exclusive is a small, independent A2A 1.0 server: one of
// pagewalk's witnesses (suites/testdata/servers). It speaks only JSON-RPC.
// It keeps tasks in an append-only slice, stamps them in nanoseconds, names
// them with snowflake ids (milliseconds since 2024 and a sequence, in
// decimal) and signs compact binary page tokens (timestamp and sequence,
// tie-safe) with HMAC-SHA256.
//
// Defect: statusTimestampAfter keeps only tasks stamped strictly after the
// given time. The proto: "Only tasks with a status timestamp time greater
// than or equal to this value will be returned." (The seed article reads it
// as "strictly after"; the proto's words decide.)
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
	flag.IntVar(&cfg.tasks, "tasks", 1600, "pre-existing tasks of the first principal")
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
const name = "tsa-exclusive"

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
	return m
}

func (s *service) card(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"name":"tsa-exclusive","description":"Independent A2A 1.0 test agent: a help desk.","version":"0.12.1",`+
		`"supportedInterfaces":[{"url":"%[1]s/jsonrpc/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],`+
		`"capabilities":{"streaming":false,"pushNotifications":false},`+
		`"securitySchemes":{"bearerAuth":{"httpAuthSecurityScheme":{"scheme":"bearer"}}},`+
		`"securityRequirements":[{"schemes":{"bearerAuth":{"list":[]}}}],`+
		`"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],`+
		`"skills":[{"id":"desk","name":"Help desk","description":"Keeps a ticket open until it is resolved.","tags":["test"]}]}`+"\n", s.url)
}
