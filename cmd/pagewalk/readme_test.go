package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestREADMECurlExamples runs the README's curl examples verbatim (only the
// port differs) against pagewalk serve.
func TestREADMECurlExamples(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "<!-- curl-examples")
	if i < 0 {
		t.Fatal("README has no curl-examples block")
	}
	block := readme[i:]
	block = block[strings.Index(block, "```sh\n")+6:]
	block = block[:strings.Index(block, "```")]
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if !strings.HasPrefix(lines[0], "bin/pagewalk serve --addr 127.0.0.1:8080 --control-token ctl") {
		t.Fatalf("first line should start the server, got %q", lines[0])
	}
	p := startServe(t, "--control-token", "ctl")
	host := strings.TrimPrefix(p.url, "http://")
	var script strings.Builder
	script.WriteString("set -e\n")
	for _, l := range lines[1:] {
		script.WriteString(strings.ReplaceAll(l, "127.0.0.1:8080", host) + "\necho\necho '----'\n")
	}
	out, err := exec.Command("bash", "-c", script.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("examples failed: %v\n%s", err, out)
	}
	parts := strings.Split(string(out), "----\n")
	if len(parts) < 6 {
		t.Fatalf("want 6 outputs, got %d:\n%s", len(parts), out)
	}
	checks := []struct {
		idx  int
		want []string
	}{
		{0, []string{`"inserted":5`}},
		{1, []string{`"g-00000000"`, `"g-00000001"`, `"nextPageToken":"A`, `"totalSize":5`}},
		{3, []string{`"g-00000002"`, `"g-00000003"`}},
		{4, []string{`"jsonrpc":"2.0"`, `"result"`, `"g-00000000"`}},
		{5, []string{`"code":400`, `pageSize: must be between 1 and 100 inclusive, got 500`}},
	}
	for _, c := range checks {
		for _, w := range c.want {
			if !strings.Contains(parts[c.idx], w) {
				t.Errorf("output %d lacks %s:\n%s", c.idx, w, parts[c.idx])
			}
		}
	}
	if strings.Contains(parts[3], `"g-00000000"`) {
		t.Errorf("page 2 repeats page 1:\n%s", parts[3])
	}
}
