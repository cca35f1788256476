package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/reports"
)

// TestCheckGuardRails: no verdict from a broken set-up (issue 9 item 6).
func TestCheckGuardRails(t *testing.T) {
	p := startServe(t, "--control-token", "ctl")
	// An empty --target (an unset variable) is an error naming --target,
	// not a run against something else.
	for _, args := range [][]string{{"check", "--target", "", "--principal", "alice=alice-token"}, {"check", "--principal", "alice=alice-token"}} {
		out, stderr, code := pwRun(t, args...)
		if code != reports.ExitSetup || !strings.Contains(stderr, "--target") || strings.Contains(out, "conformance:") {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 naming --target and no verdict", args, code, stderr, out)
		}
	}
	// A rejected credential: exit 2, the principal named, no spec verdict.
	out, stderr, code := pwRun(t, "check", "--target", p.url, "--principal", "alice=WRONG", "--json-report", filepath.Join(t.TempDir(), "r.json"))
	if code != reports.ExitSetup || !strings.Contains(stderr, "credentials for alice were rejected (HTTP 401") || strings.Contains(out, "Fail") || strings.Contains(out, "conformance:") {
		t.Errorf("wrong token: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	out, stderr, code = pwRun(t, "check", "--target", p.url, "--principal", "alice=alice-token", "--principal", "bob=WRONG")
	if code != reports.ExitSetup || !strings.Contains(stderr, "credentials for bob were rejected") {
		t.Errorf("second principal's wrong token: exit %d\n%s%s", code, out, stderr)
	}
	// A run that judged nothing: exit 4, with the reason.
	out, stderr, code = pwRun(t, "check", "--target", "builtin", "--focus", "LT-TIE-BOUNDARY")
	if code != reports.ExitNothingChecked || !strings.Contains(stderr, "nothing was checked") || !strings.Contains(out, "conformance: 0 passed, 0 failed, 2 skipped") {
		t.Errorf("all skipped: exit %d\n%s%s", code, out, stderr)
	}
	// --fail-on-skip: one case passes, another is skipped (it needs a
	// second principal): exit 0 without the flag, 1 with it.
	base := []string{"check", "--target", p.url, "--principal", "alice=alice-token", "--focus", "LT-WALK-EMPTY,LT-SCOPE-LIST", "--binding", "jsonrpc"}
	if out, stderr, code = pwRun(t, base...); code != reports.ExitPass || !strings.Contains(out, "1 passed, 0 failed, 1 skipped") {
		t.Errorf("one skip without --fail-on-skip: exit %d\n%s%s", code, out, stderr)
	}
	if out, stderr, code = pwRun(t, append(base, "--fail-on-skip")...); code != reports.ExitFail || !strings.Contains(stderr, "--fail-on-skip") {
		t.Errorf("one skip with --fail-on-skip: exit %d\n%s%s", code, out, stderr)
	}
	// A hardened practice skipped by the default profile is not a skip
	// --fail-on-skip counts.
	if out, stderr, code = pwRun(t, "check", "--target", "builtin", "--focus", "LT-WALK-EMPTY,LT-TIE-BOUNDARY", "--fail-on-skip"); code != reports.ExitPass {
		t.Errorf("profile skip with --fail-on-skip: exit %d\n%s%s", code, out, stderr)
	}
}

// hangingProxy forwards to target until it has passed let requests, then
// holds every later request until the client gives up or release is
// called (after which it forwards again); hung is closed when the first
// request is held.
type hangingProxy struct {
	*httptest.Server
	hung    chan struct{}
	release func()
}

func startHangingProxy(t *testing.T, target string, let int64) *hangingProxy {
	t.Helper()
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	h := &hangingProxy{hung: make(chan struct{})}
	var n atomic.Int64
	var once sync.Once
	released := make(chan struct{})
	var releaseOnce sync.Once
	h.release = func() { releaseOnce.Do(func() { close(released) }) }
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > let {
			once.Do(func() { close(h.hung) })
			select {
			case <-r.Context().Done():
				return
			case <-released:
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { h.release(); h.Close() })
	return h
}

// startPW starts pagewalk with args and returns a function that waits for
// it (with a hang guard) and returns stdout, stderr and the exit code.
func startPW(t *testing.T, args ...string) (*exec.Cmd, func() (string, string, int)) {
	t.Helper()
	cmd := exec.Command(pwBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, func() (string, string, int) {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(2 * time.Minute): // a hang guard, not a timing assertion
			cmd.Process.Kill()
			t.Fatalf("pagewalk %v did not exit\n%s%s", args, out.String(), errb.String())
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
}

// TestCheckInterrupted: SIGINT (and SIGTERM) stop the run, write the
// reports of the cases that finished, marked partial, and exit 3.
func TestCheckInterrupted(t *testing.T) {
	p := startServe(t, "--control-token", "ctl")
	for _, sig := range []os.Signal{os.Interrupt, syscallSIGTERM} {
		proxy := startHangingProxy(t, p.url, 80)
		dir := t.TempDir()
		js, ju, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "j.xml"), filepath.Join(dir, "r.md")
		cmd, wait := startPW(t, "check", "--target", proxy.URL, "--principal", "alice=alice-token", "--principal", "bob=bob-token", "--control-token", "ctl",
			"--json-report", js, "--junit-report", ju, "--md-report", md)
		select {
		case <-proxy.hung:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatal("the check never reached the held request")
		}
		cmd.Process.Signal(sig)
		// The server answers again, so the cut-off case can delete its
		// data before pagewalk exits.
		proxy.release()
		out, stderr, code := wait()
		if code != reports.ExitIncomplete || !strings.Contains(stderr, "interrupted") {
			t.Fatalf("%v: exit %d\n%s%s", sig, code, out, stderr)
		}
		c, err := reports.ReadConformance(js)
		if err != nil {
			t.Fatalf("%v: no partial JSON report: %v", sig, err)
		}
		if !c.Partial || c.NotRun == 0 || len(c.Cases) == 0 || c.Verdict != reports.VerdictIncomplete {
			t.Errorf("%v: report partial=%v notRun=%d cases=%d verdict %s", sig, c.Partial, c.NotRun, len(c.Cases), c.Verdict)
		}
		for _, r := range c.Cases {
			if strings.Contains(r.Error, "context canceled") {
				t.Errorf("%v: the interrupted case %s is reported as if judged: %s", sig, r.Name(), r.Error)
			}
		}
		for _, f := range []string{ju, md} {
			if b, err := os.ReadFile(f); err != nil || !bytes.Contains(b, []byte("INCOMPLETE")) && !bytes.Contains(b, []byte("partial")) {
				t.Errorf("%v: %s not written as partial: %v", sig, f, err)
			}
		}
	}
}

// TestCheckBudgets: a server that stops answering cannot hold a check
// past its budgets: the per-request timeout ends the preflight (exit 2,
// naming --request-timeout), and --max-time ends a run (exit 3, partial).
func TestCheckBudgets(t *testing.T) {
	f := checkCmd().Flags()
	for name, want := range map[string]string{"request-timeout": "30s", "max-time": "15m0s", "max-wait": "2m0s", "max-response-bytes": "8388608", "observe-tasks": "2000"} {
		if got := f.Lookup(name).DefValue; got != want {
			t.Errorf("--%s defaults to %s, want %s", name, got, want)
		}
	}
	p := startServe(t, "--control-token", "ctl")
	// The card comes back, then nothing does.
	proxy := startHangingProxy(t, p.url, 1)
	_, wait := startPW(t, "check", "--target", proxy.URL, "--principal", "alice=alice-token", "--request-timeout", "1s")
	out, stderr, code := wait()
	if code != reports.ExitSetup || !strings.Contains(stderr, "--request-timeout 1s") || strings.Contains(out, "conformance:") {
		t.Errorf("silent server, preflight: exit %d\n%s%s", code, out, stderr)
	}
	// Preflight answered, then silence: --max-time ends the run.
	proxy = startHangingProxy(t, p.url, 40)
	dir := t.TempDir()
	_, wait = startPW(t, "check", "--target", proxy.URL, "--principal", "alice=alice-token", "--max-time", "3s", "--json-report", filepath.Join(dir, "r.json"))
	out, stderr, code = wait()
	if code != reports.ExitIncomplete || !strings.Contains(stderr, "--max-time 3s ran out") {
		t.Errorf("silent server, run: exit %d\n%s%s", code, out, stderr)
	}
	var c reports.Conformance
	b, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	if err := json.Unmarshal(b, &c); err != nil || !c.Partial {
		t.Errorf("no partial report after --max-time: %v", err)
	}
}
