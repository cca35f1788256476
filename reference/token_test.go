package reference

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// firstToken returns the nextPageToken of alice's first 1-task page.
func firstToken(t *testing.T, ts *testServer, params map[string]any) string {
	t.Helper()
	p := map[string]any{"pageSize": 1}
	for k, v := range params {
		p[k] = v
	}
	tok := ts.rpc("alice-token", "ListTasks", p).result(t)["nextPageToken"].(string)
	if tok == "" {
		t.Fatal("no next page")
	}
	return tok
}

func wantTokenError(t *testing.T, r resp, fragment string) {
	t.Helper()
	code, msg := r.rpcError(t)
	if code != -32602 || !strings.Contains(msg, fragment) || r.fieldViolation() != "pageToken" {
		t.Fatalf("want -32602 naming pageToken with %q, got %d %q (field %q)", fragment, code, msg, r.fieldViolation())
	}
}

func TestTokenErrorsAreDistinct(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("a", "alice", 3), task("b", "alice", 2), task("c", "alice", 1), task("x", "bob", 1))
	tok := firstToken(t, ts, nil)

	// Malformed: not base64, or not our layout.
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": "not a token!"}), "malformed")
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": "AAAA"}), "malformed")

	// Bad signature: one byte of the body changed, re-encoded.
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	raw[5] ^= 0x01
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": base64.RawURLEncoding.EncodeToString(raw)}), "signature")

	// Another principal.
	wantTokenError(t, ts.rpc("bob-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": tok}), "different principal")

	// Another tenant.
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": tok, "tenant": "acme"}), "different tenant")

	// Each bound filter changed in turn.
	for _, change := range []map[string]any{
		{"contextId": "ctx-1"}, {"status": "TASK_STATE_COMPLETED"}, {"statusTimestampAfter": FormatTimestamp(ts0)},
		{"historyLength": 0}, {"includeArtifacts": true},
	} {
		p := map[string]any{"pageSize": 1, "pageToken": tok}
		for k, v := range change {
			p[k] = v
		}
		wantTokenError(t, ts.rpc("alice-token", "ListTasks", p), "different filter set")
	}
	// pageSize is not bound: it may change between pages.
	ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 2, "pageToken": tok}).result(t)

	// Expired: forced with the clock, never waited for.
	ts.control("POST", "/clock", map[string]any{"advance": "10m1s"})
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": tok}), "expired")
	// The same errors over HTTP+JSON are 400 with a BadRequest naming pageToken.
	r := ts.do("GET", "/tasks?pageSize=1&pageToken="+tok, "alice-token", nil)
	if r.Code != 400 || r.fieldViolation() != "pageToken" || !strings.Contains(string(r.Body), "expired") {
		t.Fatalf("HTTP expired token: %s", r)
	}
}

func TestTokenTTLFlag(t *testing.T) {
	ts := newTestServer(t, WithTokenTTL(time.Minute))
	ts.seed(task("a", "alice", 2), task("b", "alice", 1))
	ts.control("POST", "/clock", map[string]any{"now": FormatTimestamp(ts0)})
	tok := firstToken(t, ts, nil)
	ts.control("POST", "/clock", map[string]any{"advance": "59s"})
	ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": tok}).result(t)
	ts.control("POST", "/clock", map[string]any{"advance": "1s"})
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": tok}), "expired")
}

func TestTokenSurvivesKeyRotationForOneTTL(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("a", "alice", 2), task("b", "alice", 1))
	ts.control("POST", "/clock", map[string]any{"now": FormatTimestamp(ts0)})
	old := firstToken(t, ts, nil)
	ts.control("POST", "/keys:rotate", nil)
	// An old token still verifies after a rotation; a new one is signed by
	// the new key.
	ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": old}).result(t)
	fresh := firstToken(t, ts, nil)
	if fresh[:4] == old[:4] {
		t.Error("new token has the old key id")
	}
	// Rotating again, a full TTL later, retires the first key.
	ts.control("POST", "/clock", map[string]any{"advance": "10m"})
	ts.control("POST", "/keys:rotate", nil)
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": old}), "")
}

func TestTokenSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	for _, keyFile := range []string{"", filepath.Join(dir, "keys.json")} {
		db := filepath.Join(dir, "restart"+filepath.Base(keyFile)+".db")
		opts := []Option{WithPrincipal("alice", "alice-token"), WithControlToken("ctl"), WithDB(db)}
		if keyFile != "" {
			opts = append(opts, WithKeyFile(keyFile))
		}
		s1, err := New(context.Background(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		ts := &testServer{t, s1}
		ts.seed(task("a", "alice", 2), task("b", "alice", 1))
		tok := firstToken(t, ts, nil)
		if err := s1.Close(); err != nil {
			t.Fatal(err)
		}
		s2, err := New(context.Background(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		ts2 := &testServer{t, s2}
		res := ts2.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": tok}).result(t)
		if got := ids(res); len(got) != 1 || got[0] != "b" {
			t.Errorf("key file %q: after restart got %v", keyFile, got)
		}
		s2.Close()
	}
}

func TestKeyFileErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := FileKeyStore(bad).SaveKeys(context.Background(), []Key{{ID: 1, Secret: []byte("short")}}); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), WithPrincipal("a", "b"), WithKeyFile(bad))
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Param != "key-file" || !strings.Contains(pe.Msg, "shorter than 16 bytes") {
		t.Fatalf("short key: err = %v, want a ParamError naming key-file", err)
	}
}

// tokenFixture builds a key ring with a fixed key (so tokens, and the
// committed fuzz corpora, are the same on every run) and a valid token.
func tokenFixture(t testing.TB) (*KeyRing, string, Claims) {
	t.Helper()
	kr := &KeyRing{keys: []Key{{ID: 1, Secret: []byte("pagewalk-fuzz-fixture-key-000001"), Created: ts0}}, grace: 600e6, store: memKeyStore{}}
	c := Claims{Cursor: keysetCursor(taskRow{TS: ts0, ID: "task-42"}), Principal: "alice", Tenant: "acme", Expires: ts0 + 600e6, TotalSize: 99}
	c.FilterHash = ListParams{ContextID: "ctx"}.filterHash()
	return kr, binaryCodec{}.Encode(c, kr), c
}

func TestTokenRoundTrip(t *testing.T) {
	kr, tok, c := tokenFixture(t)
	got, err := binaryCodec{}.Decode(tok, kr, ts0)
	if err != nil {
		t.Fatal(err)
	}
	c.KeyID = got.KeyID
	if got != c {
		t.Fatalf("round trip: %+v != %+v", got, c)
	}
	for _, codec := range []tokenCodec{jsonCodec{}, unsignedCodec{}} {
		got, err := codec.Decode(codec.Encode(c, kr), kr, ts0)
		if err != nil {
			t.Fatal(err)
		}
		got.KeyID = c.KeyID
		if got != c {
			t.Errorf("%T round trip: %+v", codec, got)
		}
	}
}
