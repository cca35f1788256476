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
	ttl   int64 // µs
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
	return newKeyRing(ctx, store, ttlMicros, ttlMicros, nowMicros)
}

// newKeyRing is NewKeyRing with the grace period of retired keys.
func newKeyRing(ctx context.Context, store KeyStore, ttlMicros, graceMicros, nowMicros int64) (*KeyRing, error) {
	if store == nil {
		store = memKeyStore{}
	}
	keys, err := store.LoadKeys(ctx)
	if err != nil {
		return nil, err
	}
	kr := &KeyRing{keys: keys, ttl: ttlMicros, store: store, grace: graceMicros}
	if len(kr.keys) == 0 {
		if err := kr.Rotate(ctx, nowMicros); err != nil {
			return nil, err
		}
	}
	return kr, nil
}

// Rotate makes a fresh random key current. The previous key keeps verifying
// for one TTL; keys older than that are dropped.
func (kr *KeyRing) Rotate(ctx context.Context, nowMicros int64) error {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	kr.mu.Lock()
	defer kr.mu.Unlock()
	var next uint32 = 1
	kept := kr.keys[:0:0]
	for _, k := range kr.keys {
		if k.Retired == 0 {
			k.Retired = nowMicros
		}
		if k.ID >= next {
			next = k.ID + 1
		}
		if nowMicros < k.Retired+kr.grace {
			kept = append(kept, k)
		}
	}
	kr.keys = append(kept, Key{ID: next, Secret: secret, Created: nowMicros})
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

// Verify checks sum against msg under key id at time now. It fails for an
// unknown key, a key retired for longer than one TTL, or a wrong sum.
func (kr *KeyRing) Verify(id uint32, msg, sum []byte, nowMicros int64) bool {
	kr.mu.RLock()
	defer kr.mu.RUnlock()
	for _, k := range kr.keys {
		if k.ID != id {
			continue
		}
		if k.Retired != 0 && nowMicros >= k.Retired+kr.grace {
			return false
		}
		return hmac.Equal(sum, mac(k.Secret, msg))
	}
	return false
}

func mac(secret, msg []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write(msg)
	return h.Sum(nil)
}
