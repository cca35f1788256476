package reference

import (
	"sync"
	"time"
)

// Clock is the server's controllable clock. Every status timestamp and every
// token expiry is read from it, so tests force ties and expiry by setting or
// advancing it instead of sleeping.
//
// A Clock runs in real time, optionally shifted by an offset, until it is
// frozen; a frozen clock stands still until it is set or advanced again.
type Clock struct {
	mu     sync.Mutex
	real   func() time.Time
	frozen bool
	value  int64 // frozen: the instant in µs; running: the offset in µs
}

// ClockState is the persistent state of a Clock.
type ClockState struct {
	Frozen bool  `json:"frozen"`
	Value  int64 `json:"value"`
}

// NewClock returns a running Clock that reads real time from now (time.Now
// if nil).
func NewClock(now func() time.Time) *Clock {
	if now == nil {
		now = time.Now
	}
	return &Clock{real: now}
}

// NowMicros returns the current instant in microseconds since the epoch.
func (c *Clock) NowMicros() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *Clock) nowLocked() int64 {
	if c.frozen {
		return c.value
	}
	return c.real().UnixMicro() + c.value
}

// Set freezes the clock at us.
func (c *Clock) Set(us int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frozen, c.value = true, us
}

// Advance moves the clock forward (or back, for negative d) by d
// microseconds, frozen or not.
func (c *Clock) Advance(d int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.value += d
}

// Run unfreezes the clock; it continues in real time from its current value.
func (c *Clock) Run() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		c.value -= c.real().UnixMicro()
		c.frozen = false
	}
}

// Reset returns the clock to unshifted real time.
func (c *Clock) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frozen, c.value = false, 0
}

// State returns the clock's persistent state.
func (c *Clock) State() ClockState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ClockState{Frozen: c.frozen, Value: c.value}
}

// Restore loads a state saved with State.
func (c *Clock) Restore(s ClockState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frozen, c.value = s.Frozen, s.Value
}

// Frozen reports whether the clock stands still.
func (c *Clock) Frozen() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.frozen
}
