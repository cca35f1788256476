package reference

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTokenDecode fuzzes the decoding of page tokens. For any input
// string no codec panics; a string the reference (binary) or the JSON
// codec accepts is exactly the token the server would issue for the claims
// it decodes to (an accepted token has one spelling, so nobody can make a
// second one); every refusal names pageToken; and no single-byte change to
// a valid token is accepted.
func FuzzTokenDecode(f *testing.F) {
	kr, tok, _ := tokenFixture(f)
	jtok := jsonCodec{}.Encode(Claims{Cursor: "c", Principal: "alice", Expires: ts0 + 1}, kr)
	f.Add(tok, 0, byte(1))
	f.Add(tok, len(tok)-1, byte('A'))
	f.Add(jtok, 4, byte('x'))
	f.Add("", 0, byte(0))
	f.Add("AQ", 1, byte(0xff))
	f.Fuzz(func(t *testing.T, s string, pos int, b byte) {
		for _, codec := range []tokenCodec{binaryCodec{}, jsonCodec{}} {
			c, err := codec.Decode(s, kr, ts0)
			if err != nil {
				if err.Field != "pageToken" || !strings.HasPrefix(err.Message, "pageToken: ") {
					t.Fatalf("%T: an error that does not name pageToken: %+v", codec, err)
				}
				continue
			}
			if again := codec.Encode(c, kr); again != s {
				t.Fatalf("%T accepted %q, which is not the token it issues for its claims (%q)", codec, s, again)
			}
		}
		unsignedCodec{}.Decode(s, kr, ts0) // must not panic
		decodeKeyset(s)                    // must not panic

		for _, c := range []struct {
			codec tokenCodec
			tok   string
		}{{binaryCodec{}, tok}, {jsonCodec{}, jtok}} {
			p := pos % len(c.tok)
			if p < 0 {
				p = -p
			}
			if c.tok[p] == b {
				continue
			}
			mut := []byte(c.tok)
			mut[p] = b
			if _, err := c.codec.Decode(string(mut), kr, ts0); err == nil {
				t.Fatalf("%T accepted a token with byte %d changed to %q", c.codec, p, b)
			}
		}
	})
}

// FuzzTokenRoundTrip: any claims survive encode then decode in every codec,
// and the keyset cursor reads back what it wrote.
func FuzzTokenRoundTrip(f *testing.F) {
	kr, _, _ := tokenFixture(f)
	f.Add("cursor", "alice", "", int64(ts0), int64(3))
	f.Add("", "bob", "acme", int64(-1), int64(0))
	f.Add("\xff\x00", "a", "b", int64(1<<62), int64(1<<62))
	f.Fuzz(func(t *testing.T, cursor, principal, tenant string, expires, total int64) {
		if total < 0 || total > 1<<62 {
			return // totalSize is a count
		}
		want := Claims{Cursor: cursor, Principal: principal, Tenant: tenant, Expires: expires, TotalSize: total,
			FilterHash: ListParams{ContextID: cursor}.filterHash()}
		for _, codec := range []tokenCodec{binaryCodec{}, jsonCodec{}, unsignedCodec{}} {
			if _, isJSON := codec.(jsonCodec); isJSON && !(utf8.ValidString(principal) && utf8.ValidString(tenant)) {
				continue // JSON holds text; principals and tenants are UTF-8 (parameters are checked)
			}
			got, err := codec.Decode(codec.Encode(want, kr), kr, ts0)
			if err != nil {
				t.Fatalf("%T: a token it issued does not decode: %v", codec, err)
			}
			got.KeyID = 0
			if got != want {
				t.Fatalf("%T round trip: %+v, want %+v", codec, got, want)
			}
		}
		if ts, id, ok := decodeKeyset(keysetCursor(taskRow{TS: expires, ID: cursor})); !ok || ts != expires || id != cursor {
			t.Fatalf("keyset cursor round trip: %d %q %v", ts, id, ok)
		}
	})
}
