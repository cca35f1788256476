package loadgen

import "time"

// Clock tells the time. The Harvester takes one so tests can decide token
// expiry without sleeping.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }
