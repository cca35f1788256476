package reference

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// Key is one page-token signing key.
type Key struct {
	ID      uint32 `json:"id"`
	Secret  []byte `json:"secret"`
	Created int64  `json:"createdMicros"`
	// Retired is when a newer key replaced this one (µs); 0 for the current
	// key. A retired key still verifies tokens for one TTL after Retired.
	Retired int64 `json:"retiredMicros,omitempty"`
}

// KeyRing holds the current signing key and the retired keys that still
// verify, so that tokens survive a key rotation for one token lifetime.
// Keys are persisted through a KeyStore so that tokens survive a restart.
type KeyRing struct {
	mu    sync.RWMutex
	keys  []Key // keys[len-1] is current
	store KeyStore
	// grace is how long (µs) a retired key keeps verifying: one ttl for the
	// clean key policy.
	grace int64
}

// KeyStore persists a key ring.
type KeyStore interface {
	LoadKeys(ctx context.Context) ([]Key, error)
	SaveKeys(ctx context.Context, keys []Key) error
}

// FileKeyStore keeps keys in a JSON file, written atomically with mode 0600.
type FileKeyStore string

// LoadKeys reads the file; a missing file is an empty ring.
func (f FileKeyStore) LoadKeys(context.Context) ([]Key, error) {
	b, err := os.ReadFile(string(f))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, paramErr("key-file", "%v", err)
	}
	var doc struct {
		Keys []Key `json:"keys"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, paramErr("key-file", "%s is not a pagewalk key file: %v", string(f), err)
	}
	for _, k := range doc.Keys {
		if len(k.Secret) < 16 {
			return nil, paramErr("key-file", "%s: key %d has a secret shorter than 16 bytes", string(f), k.ID)
		}
	}
	return doc.Keys, nil
}

// SaveKeys writes the file atomically.
func (f FileKeyStore) SaveKeys(_ context.Context, keys []Key) error {
	b, err := json.MarshalIndent(map[string]any{"keys": keys}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(string(f)), ".pagewalk-keys-*")
	if err != nil {
		return paramErr("key-file", "%v", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), string(f))
}

type memKeyStore struct{}

func (memKeyStore) LoadKeys(context.Context) ([]Key, error) { return nil, nil }
func (memKeyStore) SaveKeys(context.Context, []Key) error   { return nil }

// NewKeyRing loads the ring from store (nil: in memory only), creating a
// first key if the store holds none. ttlMicros is the token lifetime, which
// is also how long a retired key keeps verifying.
func NewKeyRing(ctx context.Context, store KeyStore, ttlMicros, nowMicros int64) (*KeyRing, error) {
	return newKeyRing(ctx, store, ttlMicros, nowMicros)
}

// newKeyRing is NewKeyRing given how long a retired key keeps verifying.
func newKeyRing(ctx context.Context, store KeyStore, graceMicros, nowMicros int64) (*KeyRing, error) {
	if store == nil {
		store = memKeyStore{}
	}
	keys, err := store.LoadKeys(ctx)
	if err != nil {
		return nil, err
	}
	kr := &KeyRing{keys: keys, store: store, grace: graceMicros}
	if len(kr.keys) == 0 {
		if err := kr.Rotate(ctx, nowMicros); err != nil {
			return nil, err
		}
	}
	return kr, nil
}

// retiredKept is how many keys past their grace the ring remembers. They
// verify no token that continues a walk, but a token they signed is
// genuine, so its expiry can be trusted: such a token gets the expired
// error, not "signature invalid".
const retiredKept = 64

// Rotate makes a fresh random key current. The previous key keeps verifying
// for its grace period (one TTL); the newest retiredKept keys past it are
// remembered to recognise their tokens as expired, older ones are dropped.
func (kr *KeyRing) Rotate(ctx context.Context, nowMicros int64) error {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	kr.mu.Lock()
	defer kr.mu.Unlock()
	var next uint32 = 1
	var kept, past []Key
	for _, k := range kr.keys {
		if k.Retired == 0 {
			k.Retired = nowMicros
		}
		if k.ID >= next {
			next = k.ID + 1
		}
		if nowMicros < k.Retired+kr.grace {
			kept = append(kept, k)
		} else {
			past = append(past, k)
		}
	}
	past = past[max(0, len(past)-retiredKept):] // keys are in id order: keep the newest
	kr.keys = append(append(past, kept...), Key{ID: next, Secret: secret, Created: nowMicros})
	return kr.store.SaveKeys(ctx, kr.keys)
}

// current returns the signing key.
func (kr *KeyRing) current() Key {
	kr.mu.RLock()
	defer kr.mu.RUnlock()
	return kr.keys[len(kr.keys)-1]
}

// CurrentID returns the id of the signing key.
func (kr *KeyRing) CurrentID() uint32 { return kr.current().ID }

// Sign returns HMAC-SHA256(current key, msg) and the key id.
func (kr *KeyRing) Sign(msg []byte) (uint32, []byte) {
	k := kr.current()
	return k.ID, mac(k.Secret, msg)
}

// macVerdict is what the key ring says of a token's MAC.
type macVerdict int

const (
	// macInvalid: an unknown key or a wrong MAC; nothing in the token can
	// be trusted.
	macInvalid macVerdict = iota
	// macValid: the key verifies; the token may continue its walk.
	macValid
	// macRetired: a genuine MAC by a key past its grace. The claims are
	// the server's own, but the key no longer continues walks.
	macRetired
)

// Verify checks sum against msg under key id at time now. It fails for an
// unknown key, a key retired for longer than its grace, or a wrong sum.
func (kr *KeyRing) Verify(id uint32, msg, sum []byte, nowMicros int64) bool {
	return kr.check(id, msg, sum, nowMicros) == macValid
}

// check says whether sum is key id's MAC of msg, and whether that key
// still verifies at now.
func (kr *KeyRing) check(id uint32, msg, sum []byte, nowMicros int64) macVerdict {
	kr.mu.RLock()
	defer kr.mu.RUnlock()
	for _, k := range kr.keys {
		if k.ID != id {
			continue
		}
		switch {
		case !hmac.Equal(sum, mac(k.Secret, msg)):
			return macInvalid
		case k.Retired != 0 && nowMicros >= k.Retired+kr.grace:
			return macRetired
		}
		return macValid
	}
	return macInvalid
}

// verifiedClaims finishes decoding a token whose MAC got verdict v: claims
// parsed from a body with a valid MAC are returned; those from a retired
// key only to report their expiry, never to continue a walk. The expiry
// of a token whose MAC did not verify is never read, so a forged token
// gets "signature invalid" whatever expiry it claims.
func verifiedClaims(v macVerdict, parse func() (Claims, bool), now int64) (Claims, *Error) {
	if v == macInvalid {
		return Claims{}, errSignature
	}
	c, ok := parse()
	switch {
	case !ok:
		return Claims{}, errMalformed
	case v == macRetired && now >= c.Expires:
		return Claims{}, expiredError(c.Expires)
	case v == macRetired:
		return Claims{}, errSignature
	}
	return c, nil
}

func mac(secret, msg []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write(msg)
	return h.Sum(nil)
}
