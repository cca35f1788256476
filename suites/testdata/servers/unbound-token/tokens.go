package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// tokens issues page tokens: base64url(JSON snapshot of the query) "." and
// base64url(HMAC-SHA256 over it). The snapshot names the owner whose tasks
// are listed, the filter set, the cursor and the expiry.
type tokens struct {
	key []byte
	ttl time.Duration
}

func newTokens(seed int64, ttl time.Duration) *tokens {
	k := sha256.Sum256([]byte(fmt.Sprintf("%s page tokens %d", name, seed)))
	return &tokens{key: k[:], ttl: ttl}
}

// position is the query a token continues: whose tasks, and after which.
type position struct {
	owner string
	at    time.Time
	num   int64
}

// passed reports whether t sorts after the position.
func (p *position) passed(t *ticket) bool {
	return t.at.Before(p.at) || (t.at.Equal(p.at) && t.num < p.num)
}

type snapshot struct {
	Owner   string `json:"owner"`
	Filters string `json:"filters"`
	At      int64  `json:"at"`
	Num     int64  `json:"num"`
	Exp     int64  `json:"exp"`
}

func (k *tokens) sum(b []byte) []byte {
	m := hmac.New(sha256.New, k.key)
	m.Write(b)
	return m.Sum(nil)
}

func (k *tokens) write(owner, filters string, last *ticket) string {
	b, _ := json.Marshal(snapshot{Owner: owner, Filters: filters, At: last.at.UnixNano(), Num: last.num, Exp: time.Now().Add(k.ttl).Unix()})
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(k.sum(b))
}

// read checks the signature, the expiry and the filter set, and returns
// the query to continue.
func (k *tokens) read(tok, filters string) (*position, *rpcError) {
	bad := invalidParams("pageToken", "pageToken is invalid")
	a, b, ok := strings.Cut(tok, ".")
	body, err1 := base64.RawURLEncoding.Strict().DecodeString(a)
	sig, err2 := base64.RawURLEncoding.Strict().DecodeString(b)
	var s snapshot
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(sig, k.sum(body)) || json.Unmarshal(body, &s) != nil {
		return nil, bad
	}
	if time.Now().Unix() > s.Exp {
		return nil, invalidParams("pageToken", "pageToken has expired; start the listing again")
	}
	if s.Filters != filters {
		return nil, invalidParams("pageToken", "pageToken was issued for other filters")
	}
	return &position{owner: s.Owner, at: time.Unix(0, s.At).UTC(), num: s.Num}, nil
}
