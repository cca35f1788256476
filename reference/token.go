package reference

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
)

// Claims is what a page token carries: the pager's cursor (where the next
// page starts), the principal, tenant and filter set it is bound to, its
// expiry, the walk's totalSize and the id of the key that signed it.
type Claims struct {
	KeyID uint32
	// Cursor is the pager's position, opaque to the codec: for the clean
	// keyset pager, the status timestamp and id of the last row served.
	Cursor     string
	Principal  string
	Tenant     string
	FilterHash [16]byte
	Expires    int64 // µs
	TotalSize  int64
}

// tokenCodec turns claims into an opaque string and back. Decode checks the
// encoding and the signature only; expiry and binding are checked by the
// access policy so that every codec reports them the same way.
type tokenCodec interface {
	Encode(c Claims, kr *KeyRing) string
	Decode(tok string, kr *KeyRing, nowMicros int64) (Claims, *Error)
}

const (
	tokenVersion = 2
	macLen       = sha256.Size
)

var tokenB64 = base64.RawURLEncoding.Strict()

// decodeB64 decodes a token's base64url, and only its one spelling: even in
// strict mode encoding/base64 skips \r and \n, which would give a token a
// second spelling that decodes to the same signed bytes.
func decodeB64(s string) ([]byte, error) {
	return canonical(tokenB64, s)
}

// canonical decodes s with enc and refuses any s that is not exactly the
// encoding of what it decodes to.
func canonical(enc *base64.Encoding, s string) ([]byte, error) {
	b, err := enc.DecodeString(s)
	if err == nil && enc.EncodeToString(b) != s {
		err = errors.New("not in canonical form")
	}
	return b, err
}

var (
	errMalformed = &Error{Kind: KindInvalidParams, Field: "pageToken", Token: TokenMalformed,
		Message: "pageToken: malformed: this is not a page token issued by this server; pass nextPageToken back unchanged"}
	errSignature = &Error{Kind: KindInvalidParams, Field: "pageToken", Token: TokenSignature,
		Message: "pageToken: signature invalid: the token was altered or its signing key has been retired; restart the walk without pageToken"}
)

// binaryCodec is the reference format: a compact binary body followed by an
// HMAC-SHA256 over it, in unpadded base64url.
type binaryCodec struct{}

func (binaryCodec) Encode(c Claims, kr *KeyRing) string {
	body := claimsBody(kr.CurrentID(), c)
	_, sum := kr.Sign(body)
	return tokenB64.EncodeToString(append(body, sum...))
}

func (binaryCodec) Decode(tok string, kr *KeyRing, now int64) (Claims, *Error) {
	body, sum, kid, ok := splitToken(tok)
	if !ok {
		return Claims{}, errMalformed
	}
	return verifiedClaims(kr.check(kid, body, sum, now), func() (Claims, bool) { return parseClaims(body[1:]) }, now)
}

// splitToken reads the frame of a reference-format token: its signed body
// (from the version byte), its MAC and the id of the key that signed it.
// ok is false for a string that is no token of this format at all, before
// any key is consulted.
func splitToken(tok string) (body, sum []byte, kid uint32, ok bool) {
	raw, err := decodeB64(tok)
	if err != nil || len(raw) <= macLen+1 || raw[0] != tokenVersion {
		return nil, nil, 0, false
	}
	body, sum = raw[:len(raw)-macLen], raw[len(raw)-macLen:]
	id, n := binary.Uvarint(body[1:])
	if n <= 0 || id > 1<<32-1 {
		return nil, nil, 0, false
	}
	return body, sum, uint32(id), true
}

// claimsBody writes the binary token body: the version byte, then the key
// id, expiry, totalSize, filter hash, cursor, principal and tenant.
func claimsBody(kid uint32, c Claims) []byte {
	var b bytes.Buffer
	b.WriteByte(tokenVersion)
	putUvarint(&b, uint64(kid))
	putVarint(&b, c.Expires)
	putUvarint(&b, uint64(c.TotalSize))
	b.Write(c.FilterHash[:])
	putString(&b, c.Cursor)
	putString(&b, c.Principal)
	putString(&b, c.Tenant)
	return b.Bytes()
}

// parseClaims reads a body written by claimsBody, after its version byte.
func parseClaims(p []byte) (Claims, bool) {
	r := bytes.NewReader(p)
	var c Claims
	kid, err1 := binary.ReadUvarint(r)
	exp, err2 := binary.ReadVarint(r)
	total, err3 := binary.ReadUvarint(r)
	if err := errors.Join(err1, err2, err3); err != nil || kid > 1<<32-1 || total > 1<<62 {
		return c, false
	}
	if _, err := io.ReadFull(r, c.FilterHash[:]); err != nil {
		return c, false
	}
	var ok1, ok2, ok3 bool
	c.Cursor, ok1 = getString(r)
	c.Principal, ok2 = getString(r)
	c.Tenant, ok3 = getString(r)
	if !ok1 || !ok2 || !ok3 || r.Len() != 0 {
		return c, false
	}
	c.KeyID, c.Expires, c.TotalSize = uint32(kid), exp, int64(total)
	return c, true
}

func putUvarint(b *bytes.Buffer, v uint64) { b.Write(binary.AppendUvarint(nil, v)) }
func putVarint(b *bytes.Buffer, v int64)   { b.Write(binary.AppendVarint(nil, v)) }
func putString(b *bytes.Buffer, s string) {
	putUvarint(b, uint64(len(s)))
	b.WriteString(s)
}

func getString(r *bytes.Reader) (string, bool) {
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(r.Len()) {
		return "", false
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", false
	}
	return string(buf), true
}
