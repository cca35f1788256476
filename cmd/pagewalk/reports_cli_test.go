package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"

	"github.com/pagewalk/pagewalk/reports"
)

// TestCheckJUnit: check --junit-report writes one testcase per case and
// binding, named "LT-… [binding]" with the area as classname, the target
// and harness in the properties, no temporary path, no Ginkgo names, and
// a failure whose message is the worst finding (on old main: "[It] A2A
// 1.0 …", 66 testcases for 65 specs, package a temporary path).
func TestCheckJUnit(t *testing.T) {
	p := startServe(t, "--fault", "ascending-order", "--control-token", "ctl")
	dir := t.TempDir()
	ju, js := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "r.json")
	_, stderr, code := pwRun(t, "check", "--target", p.url, "--principal", "alice=alice-token", "--principal", "bob=bob-token", "--control-token", "ctl",
		"--focus", "LT-WALK-ORDER,LT-WALK-EMPTY,LT-TIE-BOUNDARY", "--junit-report", ju, "--json-report", js)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	suites, err := junit.IngestFile(ju)
	if err != nil || len(suites) != 1 {
		t.Fatalf("junit.xml: %v (%d suites)", err, len(suites))
	}
	c, err := reports.ReadConformance(js)
	if err != nil {
		t.Fatal(err)
	}
	s := suites[0]
	if len(s.Tests) != len(c.Cases) || len(s.Tests) != 6 {
		t.Errorf("%d testcases for %d cases, want 6", len(s.Tests), len(c.Cases))
	}
	if s.Properties["target"] != p.url || s.Properties["card.sha256"] != c.CardSHA256 || len(c.CardSHA256) != 64 || s.Properties["spec.version"] != "A2A 1.0" || s.Properties["harness.version"] == "" {
		t.Errorf("properties %v", s.Properties)
	}
	if b, _ := os.ReadFile(js); strings.Contains(string(b), "alice-token") || strings.Contains(string(b), "bob-token") || !strings.Contains(string(b), `"--principal=alice=REDACTED"`) {
		t.Error("the JSON report holds a token, or not the redacted flags")
	}
	raw, _ := os.ReadFile(ju)
	if strings.Contains(string(raw), os.TempDir()+"/") || strings.Contains(string(raw), "[It]") || strings.Contains(string(raw), "alice-token") {
		t.Error("junit.xml holds a temporary path, Ginkgo's [It] names or a token")
	}
	failed := 0
	for _, tc := range s.Tests {
		if !strings.HasPrefix(tc.Name, "LT-") || !strings.HasSuffix(tc.Name, "]") || tc.Classname == "" {
			t.Errorf("testcase %q classname %q", tc.Name, tc.Classname)
		}
		if tc.Status == junit.StatusFailed {
			failed++
			if !strings.HasPrefix(tc.Name, "LT-WALK-ORDER [") || !strings.Contains(tc.Message, "LT-ORDER-2") || tc.Classname != "walk" {
				t.Errorf("failure %s (%s): %q", tc.Name, tc.Classname, tc.Message)
			}
		}
	}
	if failed != 2 {
		t.Errorf("%d failed testcases, want 2 (LT-WALK-ORDER on both bindings)", failed)
	}
}

// TestCheckBundle: check --bundle writes a bundle that report verify
// accepts, printing the verdict line; changing one byte makes verify fail.
func TestCheckBundle(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "out.tar.gz")
	if _, stderr, code := pwRun(t, "check", "--target", "builtin", "--focus", "LT-WALK-EMPTY,LT-WALK-EXACT", "--bundle", b); code != 0 {
		t.Fatalf("check --bundle: exit %d\n%s", code, stderr)
	}
	out, stderr, code := pwRun(t, "report", "verify", b)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.Contains(out, "intact: 7 files match manifest.json") || lines[len(lines)-1] != "conformance: 4 passed, 0 failed, 0 skipped" {
		t.Fatalf("verify: exit %d\n%s%s", code, out, stderr)
	}
	raw, _ := os.ReadFile(b)
	raw[len(raw)/2] ^= 0x20
	os.WriteFile(b, raw, 0o644)
	if out, stderr, code = pwRun(t, "report", "verify", b); code != 1 || !strings.Contains(stderr, "out.tar.gz") {
		t.Errorf("verify of a changed bundle: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code = pwRun(t, "report", "verify", filepath.Join(dir, "none.tar.gz")); code != 2 || !strings.Contains(stderr, "none.tar.gz") {
		t.Errorf("verify of a missing file: exit %d %s", code, stderr)
	}
}
