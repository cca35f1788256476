package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Control drives a server's control API (docs/control-api.md): seeding,
// moving tasks, the server clock, reset and key rotation.
type Control struct {
	HTTP  *http.Client
	URL   string // base URL, e.g. http://127.0.0.1:8080/control
	Token string
}

// SeedTask is one task for Seed. Timestamp is in microseconds since the
// epoch.
type SeedTask struct {
	ID              string `json:"id"`
	Owner           string `json:"owner"`
	Tenant          string `json:"tenant,omitempty"`
	ContextID       string `json:"contextId,omitempty"`
	State           string `json:"state"`
	TimestampMicros int64  `json:"timestampMicros"`
	HistoryMessages int    `json:"historyMessages,omitempty"`
	Artifacts       int    `json:"artifacts,omitempty"`
}

// Generate asks the server to generate Count tasks.
type Generate struct {
	Count           int      `json:"count"`
	Owner           string   `json:"owner"`
	Tenant          string   `json:"tenant,omitempty"`
	IDPrefix        string   `json:"idPrefix,omitempty"`
	ContextIDs      []string `json:"contextIds,omitempty"`
	States          []string `json:"states,omitempty"`
	StartMicros     *int64   `json:"startMicros,omitempty"`
	StepMicros      *int64   `json:"stepMicros,omitempty"`
	HistoryMessages int      `json:"historyMessages,omitempty"`
	Artifacts       int      `json:"artifacts,omitempty"`
}

// ControlInfo is the reply of GET /info.
type ControlInfo struct {
	TokenTTLSeconds int64    `json:"tokenTtlSeconds"`
	Principals      []string `json:"principals"`
}

// Clock is the reply of the clock endpoints.
type Clock struct {
	NowMicros int64 `json:"nowMicros"`
	Frozen    bool  `json:"frozen"`
}

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
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("control %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
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
	return i, c.call(ctx, http.MethodGet, "/info", nil, &i)
}

// Seed inserts tasks in one transaction.
func (c *Control) Seed(ctx context.Context, tasks []SeedTask) error {
	return c.call(ctx, http.MethodPost, "/seed", map[string]any{"tasks": tasks}, nil)
}

// SeedGenerate inserts generated tasks in one transaction.
func (c *Control) SeedGenerate(ctx context.Context, g Generate) error {
	return c.call(ctx, http.MethodPost, "/seed", map[string]any{"generate": g}, nil)
}

// Move changes a task's state (if state is not "") and sets its timestamp
// (if ts is not nil; otherwise the server clock's now).
func (c *Control) Move(ctx context.Context, id, state string, ts *int64) error {
	body := map[string]any{}
	if state != "" {
		body["state"] = state
	}
	if ts != nil {
		body["timestampMicros"] = *ts
	}
	return c.call(ctx, http.MethodPost, "/tasks/"+id+":move", body, nil)
}

// SetClock freezes the server clock at t.
func (c *Control) SetClock(ctx context.Context, t time.Time) error {
	return c.call(ctx, http.MethodPost, "/clock", map[string]any{"nowMicros": t.UnixMicro()}, nil)
}

// Advance moves the server clock forward by d.
func (c *Control) Advance(ctx context.Context, d time.Duration) error {
	return c.call(ctx, http.MethodPost, "/clock", map[string]any{"advanceMicros": d.Microseconds()}, nil)
}

// RunClock unfreezes the server clock (it goes on from its current value).
func (c *Control) RunClock(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/clock", map[string]any{"run": true}, nil)
}

// Now returns the server clock.
func (c *Control) Now(ctx context.Context) (Clock, error) {
	var k Clock
	return k, c.call(ctx, http.MethodGet, "/clock", nil, &k)
}

// Reset empties the server's store.
func (c *Control) Reset(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/reset", nil, nil)
}

// RotateKeys makes the server sign with a new key.
func (c *Control) RotateKeys(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/keys:rotate", nil, nil)
}
