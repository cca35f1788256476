package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// tokens issues compact page tokens: base64url of a binary record, "~",
// and base64url of a truncated HMAC over the record, the caller and the
// filter set.
type tokens struct {
	key []byte
	ttl time.Duration
}

func newTokens(seed int64, ttl time.Duration) *tokens {
	k := sha256.Sum256([]byte(fmt.Sprintf("second-ties page tokens %d", seed)))
	return &tokens{key: k[:], ttl: ttl}
}

// position is where the next page starts: after every task stamped at or
// after this second.
type position struct {
	at time.Time
}

// passed reports whether t comes after the position.
func (p *position) passed(t *ticket) bool { return t.at.Before(p.at) }

func (k *tokens) sum(who, key string, rec []byte) []byte {
	m := hmac.New(sha256.New, k.key)
	m.Write([]byte(who + "\x00" + key + "\x00"))
	m.Write(rec)
	return m.Sum(nil)[:12]
}

func (k *tokens) write(who, key string, last *ticket) string {
	rec := make([]byte, 17)
	rec[0] = 1
	binary.BigEndian.PutUint64(rec[1:], uint64(last.at.Unix()))
	binary.BigEndian.PutUint64(rec[9:], uint64(time.Now().Add(k.ttl).Unix()))
	return base64.RawURLEncoding.EncodeToString(rec) + "~" + base64.RawURLEncoding.EncodeToString(k.sum(who, key, rec))
}

func (k *tokens) read(tok, who, key string) (*position, *rpcError) {
	bad := invalidParams("pageToken", "pageToken is invalid, or was issued for another caller or other filters")
	a, b, ok := strings.Cut(tok, "~")
	rec, err1 := base64.RawURLEncoding.Strict().DecodeString(a)
	sig, err2 := base64.RawURLEncoding.Strict().DecodeString(b)
	if !ok || err1 != nil || err2 != nil || len(rec) != 17 || rec[0] != 1 || !hmac.Equal(sig, k.sum(who, key, rec)) {
		return nil, bad
	}
	if time.Now().Unix() > int64(binary.BigEndian.Uint64(rec[9:])) {
		return nil, invalidParams("pageToken", "pageToken has expired; start the listing again")
	}
	return &position{at: time.Unix(int64(binary.BigEndian.Uint64(rec[1:])), 0).UTC()}, nil
}
