// Command id-order is a small, independent A2A 1.0 server: one of
// pagewalk's witnesses (suites/testdata/servers). It handles JSON as loosely
// typed maps and routes by hand, keeps its tasks in memory in per-owner
// indexes, stamps status in milliseconds, names tasks with ULIDs, and keeps
// page cursors server-side behind random token ids.
//
// Defect: ListTasks is ordered by task id, newest ULID first. ULIDs sort by
// creation time, so the order looks right until a task changes state after
// it was created. The spec: "Implementations MUST return tasks sorted by
// their status timestamp time in descending order (most recently updated
// tasks first)." (§3.1.4)
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

type app struct {
	db      *db
	clock   *clock
	users   map[string]string // bearer token -> principal
	base    string
	cursors *cursors
}

func main() {
	var principals []string
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	seed := flag.Uint64("seed", 7, "seed of the pre-existing data and of new ids")
	n := flag.Int("tasks", 800, "pre-existing tasks of the first principal")
	step := flag.Duration("clock-step", 0, "advance a logical clock this much per write instead of reading the wall clock")
	ttl := flag.Duration("token-ttl", 10*time.Minute, "page token lifetime")
	flag.Func("principal", "NAME=TOKEN, repeatable (default: $A2A_PRINCIPALS, else alice=alice-token,bob=bob-token)", func(v string) error {
		principals = append(principals, v)
		return nil
	})
	flag.Parse()
	if len(principals) == 0 {
		env := os.Getenv("A2A_PRINCIPALS")
		if env == "" {
			env = "alice=alice-token,bob=bob-token"
		}
		principals = strings.Split(env, ",")
	}
	a := &app{users: map[string]string{}, cursors: newCursors(*seed, *ttl)}
	var names []string
	for _, p := range principals {
		name, tok, ok := strings.Cut(p, "=")
		if !ok || name == "" || tok == "" {
			log.Fatalf("-principal %q: want NAME=TOKEN", p)
		}
		a.users[tok] = name
		names = append(names, name)
	}
	a.db = newDB(*seed)
	newest := a.db.preload(names, *n, *seed)
	a.clock = &clock{step: *step, last: newest.Add(24 * time.Hour).Truncate(24 * time.Hour)}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	a.base = "http://" + ln.Addr().String()
	fmt.Printf("listening on %s\n", a.base)
	log.Fatal(http.Serve(ln, a))
}

// ServeHTTP routes every request.
func (a *app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/.well-known/agent-card.json" && r.Method == http.MethodGet:
		a.card(w)
	case p == "/rpc":
		a.jsonrpc(w, r)
	case strings.HasPrefix(p, "/v1/"):
		a.rest(w, r, strings.TrimPrefix(p, "/v1"))
	default:
		a.restError(w, failure{http: 404, grpc: "NOT_FOUND", msg: "nothing at " + p})
	}
}

func (a *app) card(w http.ResponseWriter) {
	writeJSON(w, 200, "application/json", map[string]any{
		"name":        "id-order",
		"description": "Independent A2A 1.0 test agent: an approvals desk.",
		"version":     "1.2.0",
		"supportedInterfaces": []any{
			map[string]any{"url": a.base + "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
			map[string]any{"url": a.base + "/v1", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
		},
		"capabilities":         map[string]any{"streaming": false, "pushNotifications": false},
		"securitySchemes":      map[string]any{"token": map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "Bearer", "bearerFormat": "opaque"}}},
		"securityRequirements": []any{map[string]any{"schemes": map[string]any{"token": map[string]any{"list": []any{}}}}},
		"defaultInputModes":    []any{"text/plain"},
		"defaultOutputModes":   []any{"text/plain", "application/json"},
		"skills": []any{map[string]any{"id": "approve", "name": "Approvals", "tags": []any{"test"},
			"description": "Holds each request until it is approved or rejected; lists requests newest first."}},
	})
}

// principal authenticates r and checks the A2A-Version header.
func (a *app) principal(r *http.Request) (string, *failure) {
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return "", &failure{http: 401, rpc: -32000, grpc: "UNAUTHENTICATED", msg: "bearer token required"}
	}
	who, ok := a.users[strings.TrimSpace(h[7:])]
	if !ok {
		return "", &failure{http: 401, rpc: -32000, grpc: "UNAUTHENTICATED", msg: "bearer token not recognised"}
	}
	// Only major.minor counts: "1.0.3" is 1.0 (§3.6: patch numbers "MUST
	// not be considered").
	switch v := r.Header.Get("A2A-Version"); {
	case v == "":
		return "", versionFailure("none (so 0.3)")
	case v == "1.0" || (strings.HasPrefix(v, "1.0.") && strings.Trim(v[4:], "0123456789") == "" && len(v) > 4):
		return who, nil
	default:
		return "", versionFailure(v)
	}
}
