package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// signer issues page tokens: base64url(JSON payload) "." base64url(HMAC).
// A token is bound to the principal and the filter set it was issued for,
// and expires after ttl.
type signer struct {
	key []byte
	ttl time.Duration
}

func newSigner(secret string, ttl time.Duration) *signer {
	k := sha256.Sum256([]byte(secret))
	return &signer{key: k[:], ttl: ttl}
}

type tokenBody struct {
	Principal string `json:"p"`
	Filters   string `json:"f"`
	TS        int64  `json:"t"`
	ID        string `json:"i"`
	Expires   int64  `json:"e"`
}

func (s *signer) mac(b []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(b)
	return m.Sum(nil)[:18]
}

func (s *signer) issue(principal, filters string, c cursor) string {
	b, _ := json.Marshal(tokenBody{Principal: principal, Filters: filters, TS: c.TS.UnixNano(), ID: c.ID, Expires: time.Now().Add(s.ttl).Unix()})
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(s.mac(b))
}

func (s *signer) open(tok, principal, filters string) (*cursor, *apiError) {
	p, sig, ok := strings.Cut(tok, ".")
	body, err1 := base64.RawURLEncoding.Strict().DecodeString(p)
	mac, err2 := base64.RawURLEncoding.Strict().DecodeString(sig)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(body)) {
		return nil, invalid("pageToken", "pageToken is not a token this server issued")
	}
	var t tokenBody
	if json.Unmarshal(body, &t) != nil {
		return nil, invalid("pageToken", "pageToken is malformed")
	}
	if time.Now().Unix() > t.Expires {
		return nil, invalid("pageToken", "pageToken has expired; start the listing again")
	}
	if t.Principal != principal || t.Filters != filters {
		return nil, invalid("pageToken", "pageToken was issued for another caller or another set of filters")
	}
	return &cursor{TS: time.Unix(0, t.TS).UTC(), ID: t.ID}, nil
}
