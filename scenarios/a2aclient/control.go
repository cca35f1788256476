package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/docs/controlapi"
)

// Control drives a server's control API (docs/control-api.md): seeding,
// moving tasks, the server clock, reset and key rotation.
type Control struct {
	HTTP  *http.Client
	URL   string // base URL, e.g. http://127.0.0.1:8080/control
	Token string
}

// The control API's request and reply types are its contract package's
// (docs/controlapi); these aliases keep callers of this client short.
type (
	// SeedTask is one task for Seed.
	SeedTask = controlapi.SeedTask
	// Generate asks the server to generate tasks.
	Generate = controlapi.Generate
	// ControlInfo is the reply of GET /info.
	ControlInfo = controlapi.Info
	// Clock is the reply of the clock endpoints.
	Clock = controlapi.Clock
)

func (c *Control) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.URL, "/")+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, b, err := exchange(c.HTTP, req)
	if err != nil {
		return fmt.Errorf("control %s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		pe := parseStatusError(resp.StatusCode, b)
		return fmt.Errorf("control %s %s: HTTP %d: %s", method, path, resp.StatusCode, pe.Message)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("control %s %s: reply: %w", method, path, err)
		}
	}
	return nil
}

// Info returns the server's control info (token TTL, principals).
func (c *Control) Info(ctx context.Context) (ControlInfo, error) {
	var i ControlInfo
	return i, c.call(ctx, http.MethodGet, controlapi.PathInfo, nil, &i)
}

// TokenTTL asks the control API (GET /info) for the server's page-token
// lifetime; it returns 0 when the server does not report one.
func (c *Control) TokenTTL(ctx context.Context) (time.Duration, error) {
	info, err := c.Info(ctx)
	if err != nil || info.TokenTTLSeconds <= 0 {
		return 0, err
	}
	return time.Duration(info.TokenTTLSeconds) * time.Second, nil
}

// Seed inserts tasks in one transaction.
func (c *Control) Seed(ctx context.Context, tasks []SeedTask) error {
	return c.call(ctx, http.MethodPost, controlapi.PathSeed, controlapi.SeedRequest{Tasks: tasks}, nil)
}

// SeedGenerate inserts generated tasks in one transaction.
func (c *Control) SeedGenerate(ctx context.Context, g Generate) error {
	return c.call(ctx, http.MethodPost, controlapi.PathSeed, controlapi.SeedRequest{Generate: &g}, nil)
}

// Move changes a task's state (if state is not "") and sets its timestamp
// (if ts is not nil; otherwise the server clock's now).
func (c *Control) Move(ctx context.Context, id, state string, ts *int64) error {
	body := controlapi.MoveRequest{State: state, TimestampMicros: ts}
	return c.call(ctx, http.MethodPost, controlapi.PathMovePrefix+url.PathEscape(id)+controlapi.PathMoveSuffix, body, nil)
}

// SetClock freezes the server clock at t.
func (c *Control) SetClock(ctx context.Context, t time.Time) error {
	return c.call(ctx, http.MethodPost, controlapi.PathClock, controlapi.ClockRequest{NowMicros: Ptr(t.UnixMicro())}, nil)
}

// Advance moves the server clock forward by d.
func (c *Control) Advance(ctx context.Context, d time.Duration) error {
	return c.call(ctx, http.MethodPost, controlapi.PathClock, controlapi.ClockRequest{AdvanceMicros: Ptr(d.Microseconds())}, nil)
}

// RunClock unfreezes the server clock (it goes on from its current value).
func (c *Control) RunClock(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, controlapi.PathClock, controlapi.ClockRequest{Run: true}, nil)
}

// Now returns the server clock.
func (c *Control) Now(ctx context.Context) (Clock, error) {
	var k Clock
	return k, c.call(ctx, http.MethodGet, controlapi.PathClock, nil, &k)
}

// Reset deletes what r names: the tasks whose id starts with r.IDPrefix or
// whose context is one of r.ContextIDs (r.All, the whole store, only where
// the server allows it). It returns how many tasks were deleted.
func (c *Control) Reset(ctx context.Context, r controlapi.ResetRequest) (int, error) {
	var out controlapi.ResetReply
	err := c.call(ctx, http.MethodPost, controlapi.PathReset, r, &out)
	return out.Deleted, err
}

// RotateKeys makes the server sign with a new key.
func (c *Control) RotateKeys(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, controlapi.PathRotate, nil, nil)
}
