package reference

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Claims is what a page token carries: the keyset of the last row served,
// the principal, tenant and filter set it is bound to, its expiry, the walk's
// totalSize and the id of the key that signed it.
type Claims struct {
	KeyID      uint32
	TS         int64  // status timestamp of the last row served, µs
	ID         string // task id of the last row served
	Offset     int64  // rows already served; used only by the offset-cursor fault
	Principal  string
	Tenant     string
	FilterHash [16]byte
	Expires    int64 // µs
	TotalSize  int64
}

// tokenCodec turns claims into an opaque string and back. Decode checks the
// encoding and the signature only; expiry and binding are checked by the
// caller so that every codec reports them the same way.
type tokenCodec interface {
	Encode(c Claims, kr *KeyRing) string
	Decode(tok string, kr *KeyRing, nowMicros int64) (Claims, *Error)
}

const (
	tokenVersion = 1
	macLen       = sha256.Size
)

var tokenB64 = base64.RawURLEncoding.Strict()

var (
	errMalformed = &Error{Kind: KindInvalidParams, Field: "pageToken", Token: TokenMalformed,
		Message: "pageToken: malformed: this is not a page token issued by this server; pass nextPageToken back unchanged"}
	errSignature = &Error{Kind: KindInvalidParams, Field: "pageToken", Token: TokenSignature,
		Message: "pageToken: signature invalid: the token was altered or its signing key has been retired; restart the walk without pageToken"}
)

// binaryCodec is the reference format: a compact binary body followed by an
// HMAC-SHA256 over it, in unpadded base64url.
type binaryCodec struct {
	unsigned bool // the unsigned-token fault: no MAC is written or checked
}

func (bc binaryCodec) Encode(c Claims, kr *KeyRing) string {
	var b bytes.Buffer
	b.WriteByte(tokenVersion)
	kid := kr.CurrentID()
	if bc.unsigned {
		kid = 0
	}
	putUvarint(&b, uint64(kid))
	putVarint(&b, c.Expires)
	putVarint(&b, c.TS)
	putUvarint(&b, uint64(c.Offset))
	putUvarint(&b, uint64(c.TotalSize))
	b.Write(c.FilterHash[:])
	putString(&b, c.ID)
	putString(&b, c.Principal)
	putString(&b, c.Tenant)
	if !bc.unsigned {
		_, sum := kr.Sign(b.Bytes())
		b.Write(sum)
	}
	return tokenB64.EncodeToString(b.Bytes())
}

func (bc binaryCodec) Decode(tok string, kr *KeyRing, now int64) (Claims, *Error) {
	raw, err := tokenB64.DecodeString(tok)
	if err != nil || len(raw) < 2 || raw[0] != tokenVersion {
		return Claims{}, errMalformed
	}
	if !bc.unsigned {
		if len(raw) <= macLen+1 {
			return Claims{}, errMalformed
		}
		body, sum := raw[:len(raw)-macLen], raw[len(raw)-macLen:]
		kid, n := binary.Uvarint(body[1:])
		if n <= 0 || kid > 1<<32-1 {
			return Claims{}, errMalformed
		}
		if !kr.Verify(uint32(kid), body, sum, now) {
			return Claims{}, errSignature
		}
		raw = body
	}
	c, ok := parseClaims(raw[1:])
	if !ok {
		return Claims{}, errMalformed
	}
	return c, nil
}

func parseClaims(p []byte) (Claims, bool) {
	r := bytes.NewReader(p)
	var c Claims
	kid, err1 := binary.ReadUvarint(r)
	exp, err2 := binary.ReadVarint(r)
	ts, err3 := binary.ReadVarint(r)
	off, err4 := binary.ReadUvarint(r)
	total, err5 := binary.ReadUvarint(r)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil || kid > 1<<32-1 || off > 1<<62 || total > 1<<62 {
		return c, false
	}
	if _, err := io.ReadFull(r, c.FilterHash[:]); err != nil {
		return c, false
	}
	var ok1, ok2, ok3 bool
	c.ID, ok1 = getString(r)
	c.Principal, ok2 = getString(r)
	c.Tenant, ok3 = getString(r)
	if !ok1 || !ok2 || !ok3 || r.Len() != 0 {
		return c, false
	}
	c.KeyID, c.Expires, c.TS, c.Offset, c.TotalSize = uint32(kid), exp, ts, int64(off), int64(total)
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

// jsonCodec is the opaque-token-format legal variant: the same claims as
// JSON, base64-encoded with padding, and a hex HMAC, joined by dots. It is
// signed and bound exactly like the reference format, so it must pass every
// check: token format is the server's business.
type jsonCodec struct{}

type jsonClaims struct {
	K uint32 `json:"k"`
	T int64  `json:"t"`
	I string `json:"i"`
	O int64  `json:"o"`
	P string `json:"p"`
	N string `json:"n"`
	F string `json:"f"`
	E int64  `json:"e"`
	S int64  `json:"s"`
}

func (jsonCodec) Encode(c Claims, kr *KeyRing) string {
	body, _ := json.Marshal(jsonClaims{K: kr.CurrentID(), T: c.TS, I: c.ID, O: c.Offset, P: c.Principal,
		N: c.Tenant, F: hex.EncodeToString(c.FilterHash[:]), E: c.Expires, S: c.TotalSize})
	_, sum := kr.Sign(body)
	return "pw2." + base64.StdEncoding.EncodeToString(body) + "." + hex.EncodeToString(sum)
}

func (jsonCodec) Decode(tok string, kr *KeyRing, now int64) (Claims, *Error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] != "pw2" {
		return Claims{}, errMalformed
	}
	body, err1 := base64.StdEncoding.Strict().DecodeString(parts[1])
	sum, err2 := hex.DecodeString(parts[2])
	if err1 != nil || err2 != nil || hex.EncodeToString(sum) != parts[2] {
		return Claims{}, errMalformed
	}
	var jc jsonClaims
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jc); err != nil {
		return Claims{}, errMalformed
	}
	if !kr.Verify(jc.K, body, sum, now) {
		return Claims{}, errSignature
	}
	c := Claims{KeyID: jc.K, TS: jc.T, ID: jc.I, Offset: jc.O, Principal: jc.P, Tenant: jc.N, Expires: jc.E, TotalSize: jc.S}
	fh, err := hex.DecodeString(jc.F)
	if err != nil || len(fh) != len(c.FilterHash) {
		return Claims{}, errMalformed
	}
	copy(c.FilterHash[:], fh)
	return c, nil
}
