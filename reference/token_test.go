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

// tokenFixture builds a key ring and a valid token for the fuzz target.
func tokenFixture(t testing.TB) (*KeyRing, string, Claims) {
	kr, err := NewKeyRing(context.Background(), nil, 600e6, ts0)
	if err != nil {
		t.Fatal(err)
	}
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

// FuzzTokenDecode checks that decoding never panics and that no single-byte
// change to a valid token is accepted.
func FuzzTokenDecode(f *testing.F) {
	kr, tok, _ := tokenFixture(f)
	f.Add(tok, 0, byte(1))
	f.Add(tok, len(tok)-1, byte('A'))
	f.Add("", 0, byte(0))
	f.Add("AQ", 1, byte(0xff))
	f.Fuzz(func(t *testing.T, s string, pos int, b byte) {
		// Arbitrary input: must not panic.
		binaryCodec{}.Decode(s, kr, ts0)
		jsonCodec{}.Decode(s, kr, ts0)
		// A single-byte change to the valid token must be rejected.
		if pos < 0 {
			pos = -pos
		}
		pos %= len(tok)
		if tok[pos] == b {
			return
		}
		mut := []byte(tok)
		mut[pos] = b
		if _, err := (binaryCodec{}).Decode(string(mut), kr, ts0); err == nil {
			t.Fatalf("token with byte %d changed to %q was accepted", pos, b)
		}
	})
}

// TestExpiredTokenOfARetiredKey: a genuine token past its lifetime gets the
// expired error even when its signing key has been retired past its grace
// (rotation, one TTL, rotation again).
func TestExpiredTokenOfARetiredKey(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("a", "alice", 2), task("b", "alice", 1))
	ts.control("POST", "/clock", map[string]any{"now": FormatTimestamp(ts0)})
	old := firstToken(t, ts, nil)
	ts.control("POST", "/keys:rotate", nil)
	ts.control("POST", "/clock", map[string]any{"advance": "10m"})
	ts.control("POST", "/keys:rotate", nil)
	for _, token := range []string{"alice-token", "bob-token"} {
		r := ts.rpc(token, "ListTasks", map[string]any{"pageSize": 1, "pageToken": old})
		wantTokenError(t, r, "expired")
	}
	// The same over HTTP+JSON.
	if r := ts.do("GET", "/tasks?pageSize=1&pageToken="+old, "alice-token", nil); r.Code != 400 || !strings.Contains(string(r.Body), `"tokenError":"expired"`) {
		t.Errorf("HTTP: %s", r)
	}
}

// TestForgedExpiredTokenIsNotTrusted: the expiry of a token whose MAC does
// not verify is never read. A token that claims an expiry in the past but
// is signed with a key the server does not hold, or is edited, or claims a
// retired key's id with a wrong MAC, gets "signature invalid".
func TestForgedExpiredTokenIsNotTrusted(t *testing.T) {
	ts := newTestServer(t)
	ts.seed(task("a", "alice", 2), task("b", "alice", 1))
	ts.control("POST", "/clock", map[string]any{"now": FormatTimestamp(ts0)})
	genuine := firstToken(t, ts, nil)
	fh := ListParams{HistoryLength: 0}.filterHash()
	past := Claims{Cursor: keysetCursor(taskRow{TS: ts0 + 2, ID: "a"}), Principal: "alice", FilterHash: fh, Expires: ts0 - 1, TotalSize: 2}

	// Signed by a ring of the attacker's, with the server's current key id.
	foreign, err := NewKeyRing(context.Background(), nil, 600e6, ts0)
	if err != nil {
		t.Fatal(err)
	}
	forged := binaryCodec{}.Encode(past, foreign)
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": forged}), "signature invalid")

	// The genuine token with its expiry edited to the past: the body no
	// longer matches its MAC.
	raw, _ := tokenB64.DecodeString(genuine)
	body := claimsBody(1, Claims{Cursor: keysetCursor(taskRow{TS: ts0 + 2, ID: "a"}), Principal: "alice", FilterHash: fh, Expires: ts0 - 1, TotalSize: 2})
	edited := tokenB64.EncodeToString(append(body, raw[len(raw)-macLen:]...))
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": edited}), "signature invalid")

	// After the key is retired past its grace, a forged token claiming its
	// id is still refused as a forgery.
	ts.control("POST", "/keys:rotate", nil)
	ts.control("POST", "/clock", map[string]any{"advance": "10m"})
	ts.control("POST", "/keys:rotate", nil)
	retiredForged := tokenB64.EncodeToString(append(claimsBody(1, past), make([]byte, macLen)...))
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": retiredForged}), "signature invalid")
	// And the genuine one is expired.
	wantTokenError(t, ts.rpc("alice-token", "ListTasks", map[string]any{"pageSize": 1, "pageToken": genuine}), "expired")
}

// TestKeyRingRemembersRetiredKeys: keys past their grace stop verifying,
// and the ring keeps only the newest retiredKept of them.
func TestKeyRingRemembersRetiredKeys(t *testing.T) {
	ctx := context.Background()
	kr, err := NewKeyRing(ctx, nil, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, sum := kr.Sign([]byte("m"))
	for i := int64(1); i <= retiredKept+5; i++ {
		if err := kr.Rotate(ctx, i*100); err != nil {
			t.Fatal(err)
		}
		switch v := kr.check(1, []byte("m"), sum, i*100+50); {
		case i <= retiredKept+1 && v != macRetired: // key 1 is one of the newest retiredKept keys past their grace
			t.Fatalf("after %d rotations key 1 gives %v, want macRetired", i, v)
		case i > retiredKept+1 && v != macInvalid:
			t.Fatalf("after %d rotations key 1 gives %v, want macInvalid (forgotten)", i, v)
		}
	}
	// retiredKept past their grace, the one retired by the last rotation,
	// and the current key.
	if n := len(kr.keys); n != retiredKept+2 {
		t.Errorf("the ring holds %d keys, want %d", n, retiredKept+2)
	}
}
