package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagVocabulary: one flag vocabulary across commands (issue 13 item
// 5): --principal is repeatable and --binding defaults to all wherever
// they exist; -v is --verbose wherever it exists; --version exists only on
// the root command; no command has a task count named --seed that is not
// deprecated; every output flag takes "-" for stdout (said in its usage).
func TestFlagVocabulary(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		name := c.CommandPath()
		c.Flags().VisitAll(func(f *pflag.Flag) {
			switch {
			case f.Name == "principal" && f.Value.Type() != "stringArray":
				t.Errorf("%s --principal is %s, want repeatable (stringArray)", name, f.Value.Type())
			case f.Name == "binding" && f.DefValue != "all":
				t.Errorf("%s --binding defaults to %q, want all", name, f.DefValue)
			case f.Shorthand == "v" && f.Name != "verbose":
				t.Errorf("%s -v is --%s, want --verbose", name, f.Name)
			case f.Name == "version" && c.HasParent():
				t.Errorf("%s has --version; only the root command has it", name)
			case f.Name == "seed" && f.Deprecated == "":
				t.Errorf("%s --seed is not deprecated; the task count is --seed-tasks", name)
			case f.Name == "out" && name == "pagewalk demo":
				// a directory
			case (strings.HasSuffix(f.Name, "-report") || f.Name == "json" || f.Name == "bundle") && !strings.Contains(f.Usage, "- for stdout"):
				t.Errorf("%s --%s: the usage does not say - means stdout", name, f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	root := rootCmd()
	walk(root)
	if root.Flags().Lookup("version") == nil || root.Flags().ShorthandLookup("v") != nil {
		t.Error("the root command should have --version and no -v")
	}
}

// TestVersionAndVerbose: pagewalk --version prints the version; pagewalk
// -v does not (on old main, cobra gave --version the -v shorthand).
func TestVersionAndVerbose(t *testing.T) {
	out, _, code := pwRun(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "pagewalk ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	out, stderr, code := pwRun(t, "-v")
	if code != 2 || strings.HasPrefix(out, "pagewalk ") || !strings.Contains(stderr, "-v") {
		t.Errorf("-v on the root: exit %d, stdout %q, stderr %q; want an unknown-flag error", code, out, stderr)
	}
	out, _, code = pwRun(t, "check", "--target", "builtin", "--focus", "LT-WALK-EMPTY", "-v")
	if code != 0 || !strings.Contains(out, "=== LT-WALK-EMPTY [jsonrpc]") || !strings.Contains(out, "--- Pass") {
		t.Errorf("check -v does not narrate: exit %d\n%s", code, out)
	}
}

// TestVersionFromBuildInfo: a binary installed with go install carries
// its module version (and a pseudo-version its commit); a local build its
// VCS revision.
func TestVersionFromBuildInfo(t *testing.T) {
	defer func() { buildInfo = debug.ReadBuildInfo }()
	for _, c := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.3", nil, "pagewalk v1.2.3 go"},
		{"v0.0.0-20261130175155-ed53de126977", nil, "pagewalk v0.0.0-20261130175155-ed53de126977 (commit ed53de126977) go"},
		{"(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}, "pagewalk dev (commit abc123-dirty) go"},
	} {
		buildInfo = func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/pagewalk/pagewalk", Version: c.main}, Settings: c.settings}, true
		}
		if got := versionLine(); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q...", c.main, got, c.want)
		}
	}
}

// TestOutputDashIsStdout: "-" writes a report to stdout (on old main,
// check --json-report - created a file named "-"), and the console lines
// go to stderr so that stdout holds only the report.
func TestOutputDashIsStdout(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(pwBinary(t), "check", "--target", "builtin", "--focus", "LT-WALK-EMPTY", "--json-report", "-")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var c map[string]any
	if err := json.Unmarshal(out.Bytes(), &c); err != nil || c["schema"] != "pagewalk/conformance/v1" {
		t.Errorf("stdout is not the JSON report: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error(`a file named "-" was created`)
	}
	if !strings.Contains(errb.String(), "conformance: 2 passed, 0 failed, 0 skipped") {
		t.Errorf("the closing line is not on stderr: %s", errb.String())
	}
	for flag, start := range map[string]string{"--junit-report": "<?xml", "--md-report": "# pagewalk report", "--html-report": "<!DOCTYPE html>", "--bundle": "\x1f\x8b"} {
		o, e, code := pwRun(t, "check", "--target", "builtin", "--focus", "LT-WALK-EMPTY", flag, "-")
		if code != 0 || !strings.HasPrefix(o, start) || !strings.Contains(e, "conformance: 2 passed") {
			t.Errorf("%s -: exit %d, stdout starts %q, want %q\n%s", flag, code, o[:min(len(o), 20)], start, e)
		}
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestConsoleColourAndNoise runs check on a terminal (a pty from
// script(1)): colour by default, none with NO_COLOR (old main coloured
// regardless); and never Ginkgo's random seed or harness source lines.
func TestConsoleColourAndNoise(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed (util-linux)")
	}
	p := startServe(t, "--fault", "ascending-order", "--control-token", "ctl")
	args := []string{pwBinary(t), "check", "--target", p.url, "--principal", "alice=alice-token", "--principal", "bob=bob-token", "--control-token", "ctl", "--focus", "LT-WALK-ORDER"}
	run := func(noColor bool) string {
		cmd := exec.Command("script", "-qec", strings.Join(args, " "), "/dev/null")
		cmd.Env = append(os.Environ(), "TERM=xterm")
		if noColor {
			cmd.Env = append(cmd.Env, "NO_COLOR=1")
		} else {
			var env []string
			for _, e := range cmd.Env {
				if !strings.HasPrefix(e, "NO_COLOR=") {
					env = append(env, e)
				}
			}
			cmd.Env = env
		}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	coloured := run(false)
	if !ansi.MatchString(coloured) || !strings.Contains(ansi.ReplaceAllString(coloured, ""), "Fail") {
		t.Errorf("no colour on a terminal:\n%q", coloured)
	}
	plain := run(true)
	if ansi.MatchString(plain) {
		t.Errorf("NO_COLOR=1 still prints ANSI colour:\n%q", plain)
	}
	for _, out := range []string{coloured, plain} {
		if strings.Contains(out, "Random Seed") || regexp.MustCompile(`\.go:\d+`).MatchString(out) || strings.Contains(out, "[FAILED]") {
			t.Errorf("Ginkgo's seed or harness source lines in the output:\n%s", out)
		}
	}
	// One line per failing case and binding, then the closing line.
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(strings.ReplaceAll(plain, "\r", "")), "\n") {
		if !strings.HasPrefix(l, "pagewalk") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "Fail       LT-WALK-ORDER [") || lines[2] != "conformance: 0 passed, 2 failed, 0 skipped" {
		t.Errorf("console output is not one line per failing case and binding, then the closing line:\n%s", strings.Join(lines, "\n"))
	}
}
