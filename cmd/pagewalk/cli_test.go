package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var cliBuild struct {
	once sync.Once
	path string
	err  error
	dir  string
}

// pwBinary builds the pagewalk binary once for the CLI tests.
func pwBinary(t *testing.T) string {
	t.Helper()
	cliBuild.once.Do(func() {
		cliBuild.dir, cliBuild.err = os.MkdirTemp("", "pagewalk-cli-")
		if cliBuild.err != nil {
			return
		}
		cliBuild.path = filepath.Join(cliBuild.dir, "pagewalk")
		out, err := exec.Command("go", "build", "-o", cliBuild.path, ".").CombinedOutput()
		if err != nil {
			cliBuild.err = err
			cliBuild.path = string(out)
		}
	})
	if cliBuild.err != nil {
		t.Fatalf("building pagewalk: %v\n%s", cliBuild.err, cliBuild.path)
	}
	return cliBuild.path
}

// pwRun runs the binary and returns stdout, stderr and the exit code.
func pwRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(pwBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// servedProcess is a running pagewalk serve.
type servedProcess struct {
	cmd *exec.Cmd
	url string
}

// startServe runs pagewalk serve on a free loopback port and reads the base
// URL it prints.
func startServe(t *testing.T, args ...string) *servedProcess {
	t.Helper()
	cmd := exec.Command(pwBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed nothing: %v", err)
	}
	const prefix = "pagewalk serve: listening on "
	if !strings.HasPrefix(line, prefix) {
		t.Fatalf("first line %q does not give the base URL", line)
	}
	url := strings.Fields(strings.TrimPrefix(line, prefix))[0]
	go io.Copy(io.Discard, stdout)
	return &servedProcess{cmd: cmd, url: url}
}

func TestServePrintsURLAndShutsDownWithoutLosingTasks(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ref.db")
	args := []string{"--db", db, "--principal", "alice=alice-token", "--control-token", "ctl"}
	p := startServe(t, args...)
	req, _ := http.NewRequest("POST", p.url+"/control/seed", strings.NewReader(`{"generate":{"count":2500,"owner":"alice"}}`))
	req.Header.Set("Authorization", "Bearer ctl")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("seed: %v %v", resp, err)
	}
	resp.Body.Close()
	// SIGTERM: a graceful shutdown, exit status 0.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit after SIGTERM")
	}
	// Restart on the same database: every committed task is there.
	p2 := startServe(t, args...)
	req, _ = http.NewRequest("GET", p2.url+"/tasks?pageSize=1", nil)
	req.Header.Set("Authorization", "Bearer alice-token")
	req.Header.Set("A2A-Version", "1.0")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		TotalSize int `json:"totalSize"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	if body.TotalSize != 2500 {
		t.Errorf("after restart totalSize = %d, want 2500", body.TotalSize)
	}
}

func TestServeBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--fault", "nope"}, "--fault"},
		{[]string{"serve", "--principal", "alice"}, "--principal"},
		{[]string{"serve", "--token-ttl", "-1s"}, "--token-ttl"},
		{[]string{"serve", "--addr", "256.0.0.1:99999"}, "--addr"},
		{[]string{"serve", "--log-format", "xml"}, "--log-format"},
	} {
		_, stderr, code := pwRun(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want a non-zero exit naming %s", c.args, code, stderr, c.want)
		}
	}
}

func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	// The built-in reference passes: exit 0, the verdict line last, reports written.
	out, _, code := pwRun(t, "check", "--target", "builtin", "--json-report", filepath.Join(dir, "c.json"), "--junit-report", filepath.Join(dir, "j.xml"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.HasPrefix(lines[len(lines)-1], "conformance: ") || !strings.Contains(lines[len(lines)-1], " 0 failed") {
		t.Fatalf("check against the reference: exit %d, output:\n%s", code, out)
	}
	for _, f := range []string{"c.json", "j.xml"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	// A server that breaks a MUST: exit 1.
	p := startServe(t, "--fault", "ascending-order", "--control-token", "ctl")
	out, _, code = pwRun(t, "check", "--target", p.url, "--principal", "alice=alice-token", "--principal", "bob=bob-token", "--control-token", "ctl", "--focus", "LT-WALK-ORDER")
	if code != 1 || !strings.Contains(out, "Fail") || !strings.Contains(out, "LT-ORDER-2") {
		t.Errorf("check against ascending-order: exit %d\n%s", code, out)
	}
	// A SHOULD break is Non-strict: exit 0, and 1 with --strict.
	q := startServe(t, "--fault", "artifacts-empty-array", "--control-token", "ctl")
	base := []string{"check", "--target", q.url, "--principal", "alice=alice-token", "--control-token", "ctl", "--focus", "LT-ARTIFACTS-OMIT"}
	if out, _, code = pwRun(t, base...); code != 0 || !strings.Contains(out, "Non-strict") {
		t.Errorf("Non-strict without --strict: exit %d\n%s", code, out)
	}
	if _, _, code = pwRun(t, append(base, "--strict")...); code != 1 {
		t.Errorf("Non-strict with --strict: exit %d", code)
	}
	// Bad flags and unreachable targets: exit 2, naming the flag.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--target", "builtin", "--profile", "paranoid"}, "--profile"},
		{[]string{"check", "--target", "builtin", "--focus", "LT-NOPE"}, "--focus"},
		{[]string{"check", "--target", "ftp://x"}, "--target"},
		{[]string{"check", "--target", "http://127.0.0.1:1", "--principal", "a=b"}, "agent card"},
		{[]string{"check", "--target", p.url}, "--principal"},
		{[]string{"check", "--target", "builtin", "--binding", "grpc"}, "--binding"},
		{[]string{"check", "--target", "builtin", "--json-report", "/nonexistent/dir/r.json"}, "--json-report"},
		{[]string{"check", "--target", "builtin", "--json-report", "-", "--md-report", "-"}, "--md-report"},
		{[]string{"check", "--target", "builtin", "--request-timeout", "0s"}, "--request-timeout"},
		{[]string{"check", "--target", "builtin", "--max-time", "-1s"}, "--max-time"},
		{[]string{"check", "--target", "builtin", "--max-response-bytes", "10"}, "--max-response-bytes"},
	} {
		_, stderr, code := pwRun(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", c.args, code, stderr, c.want)
		}
	}
}

func TestCheckList(t *testing.T) {
	out, _, code := pwRun(t, "check", "--list")
	if code != 0 || !strings.Contains(out, "LT-TIE-BOUNDARY") || !strings.Contains(out, "hardened") || strings.Contains(out, "conformance:") {
		t.Errorf("--list: exit %d\n%s", code, out)
	}
}

func TestReportRender(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "c.json")
	if _, _, code := pwRun(t, "check", "--target", "builtin", "--focus", "LT-WALK-EMPTY", "--json-report", js); code != 0 {
		t.Fatal("check failed")
	}
	html := filepath.Join(dir, "r.html")
	if _, stderr, code := pwRun(t, "report", "render", "--in", js, "--format", "html", "--out", html); code != 0 {
		t.Fatalf("render: %d %s", code, stderr)
	}
	b, _ := os.ReadFile(html)
	if !strings.Contains(string(b), "LT-WALK-EMPTY") {
		t.Error("rendered HTML lacks the case")
	}
	// Bad input: a clear error naming the file, and the existing output kept.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema":"pagewalk/conformance/v1","cases":[`), 0o644)
	_, stderr, code := pwRun(t, "report", "render", "--in", bad, "--out", html)
	if code != 2 || !strings.Contains(stderr, "bad.json") {
		t.Errorf("bad input: exit %d, %q", code, stderr)
	}
	if b2, _ := os.ReadFile(html); !bytes.Equal(b, b2) {
		t.Error("a failed render overwrote the previous output")
	}
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := pwRun(t, "demo", "--out", dir, "--seed-tasks", "3000", "--rate", "20", "--duration", "1s")
	// 20 samples a depth are too few to judge the depth cost, whatever the
	// machine's speed: the load verdict is inconclusive, which does not
	// fail the demo, and never says PASS.
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "\nload: inconclusive\n") || !strings.Contains(out, "verdict: INCONCLUSIVE: max-depth-ratio: too few samples") ||
		strings.Contains(out, "verdict: PASS") {
		t.Errorf("demo's load with 20 samples a depth should be inconclusive, and say why:\n%s", out)
	}
	for _, f := range []string{"check.json", "junit.xml", "load.json", "report.html", "report.md"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("demo did not write %s: %v", f, err)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "conformance: ") || !strings.Contains(last, " 0 failed, 0 skipped") {
		t.Errorf("demo's last line: %q", last)
	}
	// The demo's reference is served over HTTP: no report calls it "in
	// process" (old main did), and the requirements link resolves in --out.
	for _, f := range []string{"check.json", "report.html", "report.md"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if strings.Contains(string(b), "in process") || !strings.Contains(string(b), "served over HTTP") {
			t.Errorf("%s labels the reference wrongly", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "docs", "requirements.md")); err != nil {
		t.Errorf("report.html links to docs/requirements.md, which demo did not write: %v", err)
	}
	if !strings.Contains(out+stderr, "load:") {
		t.Error("demo did not print the load verdict")
	}
}
