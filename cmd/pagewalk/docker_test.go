package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// harnessImage is the image make image-pagewalk builds.
const harnessImage = "pagewalk:dev"

// TestHarnessImage runs exactly what the README documents:
//
//	docker run --rm --network host pagewalk:dev check --target http://127.0.0.1:PORT ...
//
// against a running reference, and checks the image carries the CA
// certificates HTTPS targets need. (On old main the only image was the
// reference server, which answered "unknown flag: --target".) It needs a
// Docker engine and the image (make image); without them it skips, except
// where PAGEWALK_REQUIRE_DOCKER=1 (CI), where it fails.
func TestHarnessImage(t *testing.T) {
	need := func(why string) {
		if os.Getenv("PAGEWALK_REQUIRE_DOCKER") == "1" {
			t.Fatalf("PAGEWALK_REQUIRE_DOCKER=1: %s", why)
		}
		t.Skip(why)
	}
	if _, err := exec.LookPath("docker"); err != nil {
		need("no docker CLI")
	}
	if out, err := exec.Command("docker", "version", "--format", "{{.Server.Version}}").CombinedOutput(); err != nil {
		need("no Docker engine answers: " + strings.TrimSpace(string(out)))
	}
	if err := exec.Command("docker", "image", "inspect", harnessImage).Run(); err != nil {
		need(harnessImage + " is not built (make image)")
	}
	p := startServe(t, "--control-token", "ctl")
	out, err := exec.Command("docker", "run", "--rm", "--network", "host", harnessImage, "check", "--target", p.url,
		"--principal", "alice=alice-token", "--principal", "bob=bob-token", "--control-token", "ctl",
		"--focus", "LT-WALK-EMPTY,LT-WALK-ORDER", "--junit-report", "-").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "conformance: 4 passed, 0 failed, 0 skipped") || !strings.Contains(string(out), `<testcase name="LT-WALK-ORDER [http]"`) {
		t.Fatalf("docker run %s check: %v\n%s", harnessImage, err, out)
	}
	// --target builtin needs a writable temporary directory in the image.
	out, err = exec.Command("docker", "run", "--rm", harnessImage, "check", "--target", "builtin", "--focus", "LT-WALK-EMPTY").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "conformance: 2 passed, 0 failed, 0 skipped") {
		t.Errorf("docker run %s check --target builtin: %v\n%s", harnessImage, err, out)
	}
	if out, err := exec.Command("docker", "run", "--rm", harnessImage, "--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "pagewalk ") {
		t.Errorf("docker run %s --version: %v %s", harnessImage, err, out)
	}
	// The CA certificates are in the image.
	id, err := exec.Command("docker", "create", harnessImage).Output()
	if err != nil {
		t.Fatal(err)
	}
	cid := strings.TrimSpace(string(id))
	defer exec.Command("docker", "rm", "-f", cid).Run()
	ca, err := exec.Command("docker", "cp", cid+":/etc/ssl/certs/ca-certificates.crt", "-").Output()
	if err != nil || !strings.Contains(string(ca), "BEGIN CERTIFICATE") {
		t.Errorf("no CA certificates in %s: %v", harnessImage, err)
	}
}
