package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"
)

// sealer seals page tokens with AES-256-GCM: the cursor, the principal, the
// filter set and the expiry are encrypted and authenticated, so a token is
// opaque and any edit is refused.
type sealer struct {
	aead cipher.AEAD
	ttl  time.Duration
	ctr  uint64
}

func newSealer(seed uint64, ttl time.Duration) *sealer {
	key := sha256.Sum256([]byte(fmt.Sprintf("pagesize-unvalidated token key %d", seed)))
	block, _ := aes.NewCipher(key[:])
	aead, _ := cipher.NewGCM(block)
	return &sealer{aead: aead, ttl: ttl}
}

type sealed struct {
	Who     string `json:"w"`
	Binding string `json:"b"`
	Stamp   int64  `json:"s"` // unix ms
	ID      string `json:"i"`
	Expires int64  `json:"x"`
}

// seal is called with the db lock held (ctr needs no lock of its own).
func (s *sealer) seal(c sealed) string {
	c.Expires = time.Now().Add(s.ttl).Unix()
	plain, _ := json.Marshal(c)
	s.ctr++
	nonce := make([]byte, s.aead.NonceSize())
	binary.BigEndian.PutUint64(nonce[4:], s.ctr)
	binary.BigEndian.PutUint32(nonce[:4], uint32(time.Now().UnixNano()))
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, nil))
}

func (s *sealer) open(tok, who, binding string) (*sealed, *failure) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(tok)
	ns := s.aead.NonceSize()
	if err != nil || len(raw) < ns+s.aead.Overhead() {
		return nil, badParam("pageToken", "pageToken: not a token issued by this server")
	}
	plain, err := s.aead.Open(nil, raw[:ns], raw[ns:], nil)
	var c sealed
	if err != nil || json.Unmarshal(plain, &c) != nil {
		return nil, badParam("pageToken", "pageToken: not a token issued by this server")
	}
	switch {
	case time.Now().Unix() > c.Expires:
		return nil, badParam("pageToken", "pageToken: expired, list again from the first page")
	case c.Who != who:
		return nil, badParam("pageToken", "pageToken: issued to another caller")
	case c.Binding != binding:
		return nil, badParam("pageToken", "pageToken: issued for other filters; keep the filters of the first page")
	}
	return &c, nil
}
