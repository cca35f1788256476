package servecmd

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServePreseedWithoutControl runs the serve command in process with
// --preseed and no control token: each principal lists its N tasks, the
// control API is off and the card does not declare it, and cancelling the
// command's context shuts the server down cleanly.
func TestServePreseedWithoutControl(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := Command("test")
	out, w := io.Pipe()
	cmd.SetOut(w)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"--addr", "127.0.0.1:0", "--preseed", "150", "--preseed-seed", "3", "--read-timeout", "5s",
		"--principal", "alice=alice-token", "--principal", "bob=bob-token"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx); w.Close() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed nothing: %v (%v)", err, <-done)
	}
	go io.Copy(io.Discard, out)
	url := strings.Fields(strings.TrimPrefix(line, "pagewalk serve: listening on "))[0]
	get := func(path, token string) (int, []byte) {
		req, _ := http.NewRequest("GET", url+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("A2A-Version", "1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, tok := range []string{"alice-token", "bob-token"} {
		code, body := get("/tasks?pageSize=1", tok)
		var page struct{ TotalSize int }
		if json.Unmarshal(body, &page); code != 200 || page.TotalSize != 150 {
			t.Errorf("%s: %d %s, want 150 preseeded tasks", tok, code, body)
		}
	}
	if _, card := get("/.well-known/agent-card.json", ""); strings.Contains(string(card), "/control") {
		t.Errorf("the card declares a control API: %s", card)
	}
	if code, _ := get("/control/info", "ctl"); code == 200 {
		t.Error("the control API answers without --control-token")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve after its context ended: %v", err)
	}
}
