package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// signer issues page tokens "v1.<offset>.<expiry>.<mac>": the MAC covers the
// caller and the filter set too, so a token is refused when another caller
// or other filters present it, or when it was edited or has expired.
type signer struct {
	key []byte
	ttl time.Duration
}

func newSigner(seed uint64, ttl time.Duration) *signer {
	k := sha256.Sum256([]byte(fmt.Sprintf("offset-token signing key %d", seed)))
	return &signer{key: k[:], ttl: ttl}
}

func (s *signer) mac(who, binding string, offset int, exp int64) string {
	m := hmac.New(sha256.New, s.key)
	fmt.Fprintf(m, "%s\n%s\n%d\n%d", who, binding, offset, exp)
	return hex.EncodeToString(m.Sum(nil)[:16])
}

func (s *signer) sign(who, binding string, offset int) string {
	exp := time.Now().Add(s.ttl).Unix()
	return fmt.Sprintf("v1.%d.%d.%s", offset, exp, s.mac(who, binding, offset, exp))
}

func (s *signer) open(tok, who, binding string) (int, *failure) {
	bad := badParam("pageToken", "pageToken: not a valid page token for this request")
	f := strings.Split(tok, ".")
	if len(f) != 4 || f[0] != "v1" {
		return 0, bad
	}
	off, err1 := strconv.Atoi(f[1])
	exp, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || off < 0 || strconv.Itoa(off) != f[1] || strconv.FormatInt(exp, 10) != f[2] ||
		!hmac.Equal([]byte(f[3]), []byte(s.mac(who, binding, off, exp))) {
		return 0, bad
	}
	if time.Now().Unix() > exp {
		return 0, badParam("pageToken", "pageToken: expired, list again from the first page")
	}
	return off, nil
}
