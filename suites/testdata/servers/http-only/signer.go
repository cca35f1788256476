package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// signer issues page tokens "c.<micros>.<num>.<expiry>.<mac>": a readable
// cursor, signed with HMAC-SHA256 over the caller and the filter set too.
type signer struct {
	key []byte
	ttl time.Duration
}

// cursor is the last task served.
type cursor struct{ micros, num int64 }

func newSigner(seed int64, ttl time.Duration) *signer {
	k := sha256.Sum256([]byte(fmt.Sprintf("http-only cursor key %d", seed)))
	return &signer{key: k[:], ttl: ttl}
}

func (s *signer) mac(caller, filters, body string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(caller + "\n" + filters + "\n" + body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:15])
}

func (s *signer) sign(caller, filters string, c cursor) string {
	body := fmt.Sprintf("c.%d.%d.%d", c.micros, c.num, time.Now().Add(s.ttl).Unix())
	return body + "." + s.mac(caller, filters, body)
}

func (s *signer) open(tok, caller, filters string) (cursor, *apiErr) {
	bad := badField("pageToken", "not a page token issued to you for these filters")
	i := strings.LastIndexByte(tok, '.')
	if i < 0 || !hmac.Equal([]byte(tok[i+1:]), []byte(s.mac(caller, filters, tok[:i]))) {
		return cursor{}, bad
	}
	f := strings.Split(tok[:i], ".")
	if len(f) != 4 || f[0] != "c" {
		return cursor{}, bad
	}
	var n [3]int64
	for k := range n {
		v, err := strconv.ParseInt(f[k+1], 10, 64)
		if err != nil {
			return cursor{}, bad
		}
		n[k] = v
	}
	if time.Now().Unix() > n[2] {
		return cursor{}, badField("pageToken", "the page token has expired; list from the start")
	}
	return cursor{micros: n[0], num: n[1]}, nil
}
