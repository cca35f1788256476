package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver the server uses, to inspect its file
)

// guard bounds how long the test waits on the server: a correct server
// answers long before it; it only stops a broken one from hanging the test.
const guard = 60 * time.Second

// refProcess is a running pagewalk-reference serve.
type refProcess struct {
	cmd *exec.Cmd
	url string
}

func startRef(t *testing.T, bin string, args ...string) *refProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
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
	const prefix = "pagewalk serve: listening on "
	if err != nil || !strings.HasPrefix(line, prefix) {
		t.Fatalf("serve printed %q, %v", line, err)
	}
	go io.Copy(io.Discard, stdout)
	return &refProcess{cmd: cmd, url: strings.Fields(strings.TrimPrefix(line, prefix))[0]}
}

func (p *refProcess) do(t *testing.T, method, path, token, body string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, p.url+path, strings.NewReader(body))
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

type page struct {
	Tasks         []struct{ ID string } `json:"tasks"`
	NextPageToken string                `json:"nextPageToken"`
	TotalSize     int                   `json:"totalSize"`
}

func (p *refProcess) page(t *testing.T, token string) page {
	t.Helper()
	code, body := p.do(t, "GET", "/tasks?pageSize=100&historyLength=0&pageToken="+token, "alice-token", "")
	var pg page
	if err := json.Unmarshal(body, &pg); err != nil || code != 200 {
		t.Fatalf("ListTasks: %d %.300s", code, body)
	}
	return pg
}

// socketSlack is more than the bytes the kernel can hold between the test
// and the server on loopback: the server's largest receive buffer
// (tcp_rmem's maximum), the test's fixed 16 KiB send buffer, and a margin
// for the server's read buffers. Once that much more has been written, the
// server has read the rest.
func socketSlack() int {
	rmem := 6 << 20
	if b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_rmem"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 3 {
			if n, err := strconv.Atoi(f[2]); err == nil {
				rmem = n
			}
		}
	}
	return rmem + 64<<10 + 1<<20
}

// TestCrashMidSeed runs the reference image's binary on a file database,
// seeds acknowledged batches, starts a walk, then kills the server with
// SIGKILL while a large seed request is being read and inserted, and
// restarts it on the same database. The database must pass SQLite's
// integrity check, hold every acknowledged batch whole and nothing of the
// interrupted one, and the walk must resume with its old page token.
//
// "Mid-seed" is established without the clock: the seed request carries
// "Expect: 100-continue", so the server's 100 Continue says its handler is
// reading the body, and the test then writes more than the kernel can
// buffer between the two (socketSlack) beyond the first batches, so when
// its writes return the server has read, and inserted into its open
// transaction, hundreds of batches.
func TestCrashMidSeed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the reference binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pagewalk-reference")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "crash.db")
	args := []string{"--db", db, "--principal", "alice=alice-token", "--control-token", "ctl"}
	p := startRef(t, bin, args...)

	// Acknowledged batches: each seed request that got its 200.
	const batches, perBatch = 4, 1500
	for k := range batches {
		body := fmt.Sprintf(`{"generate":{"count":%d,"owner":"alice","idPrefix":"ack-%d-","historyMessages":2,"artifacts":1,"startMicros":%d,"stepMicros":-1000}}`,
			perBatch, k, 1_800_000_000_000_000-int64(k)*perBatch*1000)
		if code, reply := p.do(t, "POST", "/control/seed", "ctl", body); code != 200 {
			t.Fatalf("seed batch %d: %d %s", k, code, reply)
		}
	}
	// A walk starts before the crash.
	first := p.page(t, "")
	if first.TotalSize != batches*perBatch || first.NextPageToken == "" {
		t.Fatalf("first page: totalSize %d, token %q", first.TotalSize, first.NextPageToken)
	}

	// The interrupted seed: a body declared at 512 MiB, streamed until the
	// server has read well past its first batches.
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetWriteBuffer(16 << 10)
	conn.SetDeadline(time.Now().Add(guard))
	fmt.Fprintf(conn, "POST /control/seed HTTP/1.1\r\nHost: ref\r\nAuthorization: Bearer ctl\r\nContent-Type: application/json\r\n"+
		"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n", 512<<20)
	interim, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || interim.StatusCode != http.StatusContinue {
		t.Fatalf("want 100 Continue once the seed handler reads the body: %v %v", interim, err)
	}
	// Each task is padded with 4 KiB of JSON whitespace, so the bytes that
	// prove progress cost the server little work: 4 MiB beyond the slack is
	// about 1,000 tasks, ten batches.
	w := bufio.NewWriterSize(conn, 64<<10)
	w.WriteString(`{"tasks":[`)
	pad := strings.Repeat(" ", 4<<10)
	written, want, tasks := 0, socketSlack()+(4<<20), 0
	for ; written < want; tasks++ {
		if tasks > 0 {
			w.WriteByte(',')
		}
		n, _ := fmt.Fprintf(w, `%s{"id":"partial-%08d","owner":"alice","state":"TASK_STATE_WORKING","timestampMicros":%d,"historyMessages":1}`,
			pad, tasks, 1_900_000_000_000_000+int64(tasks))
		written += n + 1
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("writing the seed body: %v", err)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait()
	t.Logf("killed the server after streaming %.1f MB (%d tasks) of an unfinished seed; it had read at least the first %.1f MB",
		float64(written)/1e6, tasks, float64(written-socketSlack())/1e6)

	// The file as the crash left it.
	sdb, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := sdb.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	for k := range batches {
		var tasks, msgs, arts int
		prefix := fmt.Sprintf("ack-%d-", k)
		sdb.QueryRow("SELECT COUNT(*) FROM tasks WHERE substr(id, 1, ?) = ?", len(prefix), prefix).Scan(&tasks)
		sdb.QueryRow("SELECT COUNT(*) FROM messages WHERE substr(task_id, 1, ?) = ?", len(prefix), prefix).Scan(&msgs)
		sdb.QueryRow("SELECT COUNT(*) FROM artifacts WHERE substr(task_id, 1, ?) = ?", len(prefix), prefix).Scan(&arts)
		if tasks != perBatch || msgs != 2*perBatch || arts != perBatch {
			t.Errorf("acknowledged batch %d: %d tasks, %d messages, %d artifacts; want %d, %d, %d", k, tasks, msgs, arts, perBatch, 2*perBatch, perBatch)
		}
	}
	var partial, partialMsgs int
	sdb.QueryRow("SELECT COUNT(*) FROM tasks WHERE id LIKE 'partial-%'").Scan(&partial)
	sdb.QueryRow("SELECT COUNT(*) FROM messages WHERE task_id LIKE 'partial-%'").Scan(&partialMsgs)
	if partial != 0 || partialMsgs != 0 {
		t.Errorf("the interrupted seed left %d tasks and %d messages", partial, partialMsgs)
	}
	sdb.Close()

	// Restart on the same database; the walk resumes with its old token.
	p2 := startRef(t, bin, args...)
	seen := map[string]bool{}
	for _, tk := range first.Tasks {
		seen[tk.ID] = true
	}
	token, pages := first.NextPageToken, 1
	for token != "" {
		pg := p2.page(t, token)
		if pg.TotalSize != batches*perBatch {
			t.Fatalf("page %d after the restart: totalSize %d", pages+1, pg.TotalSize)
		}
		for _, tk := range pg.Tasks {
			if seen[tk.ID] {
				t.Fatalf("%s served twice", tk.ID)
			}
			seen[tk.ID] = true
		}
		token, pages = pg.NextPageToken, pages+1
	}
	if len(seen) != batches*perBatch {
		t.Errorf("the resumed walk saw %d tasks in %d pages, want %d", len(seen), pages, batches*perBatch)
	}
}
