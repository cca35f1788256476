package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// version and commit are set by the build (make build: -ldflags "-X
// main.version=... -X main.commit=..."). Without them, the module version
// and VCS revision recorded in the binary are used: go install
// github.com/pagewalk/pagewalk/cmd/pagewalk@v1.2.3 records v1.2.3.
var (
	version = "dev"
	commit  = ""
)

// buildInfo is debug.ReadBuildInfo, a variable for tests.
var buildInfo = debug.ReadBuildInfo

// harness returns the harness version and VCS commit ("" when unknown).
func harness() (ver, rev string) {
	ver, rev = version, commit
	bi, ok := buildInfo()
	if !ok {
		return ver, rev
	}
	if ver == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		ver = bi.Main.Version
	}
	if rev == "" {
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" && modified {
			rev += "-dirty"
		}
	}
	// A pseudo-version (v0.0.0-20260101000000-abcdef123456) names the
	// commit it was built from.
	if rev == "" {
		if i := strings.LastIndexByte(ver, '-'); i > 0 && strings.Count(ver, "-") >= 2 && len(ver)-i-1 == 12 {
			rev = ver[i+1:]
		}
	}
	return ver, rev
}

// versionString is the harness version alone.
func versionString() string {
	v, _ := harness()
	return v
}

// versionLine is what pagewalk --version prints.
func versionLine() string {
	v, rev := harness()
	s := "pagewalk " + v
	if rev != "" {
		s += " (commit " + rev + ")"
	}
	return s + " " + runtime.Version()
}
