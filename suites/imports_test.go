package suites

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/pagewalk/pagewalk"

// deps lists the packages pkg imports, directly or not (go list -deps).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// TestImportRules holds the architecture to its rules (README,
// "Architecture"): the harness judges servers only over the wire, the
// reference knows nothing of the harness, both share only the control
// API's contract, and the product binary carries no test machinery.
func TestImportRules(t *testing.T) {
	for _, c := range []struct {
		pkg    string
		banned []string
		why    string
	}{
		{module + "/scenarios/...", []string{module + "/reference", module + "/suites", module + "/loadgen"}, "the cases judge servers over the wire only"},
		{module + "/loadgen", []string{module + "/reference", module + "/suites", module + "/scenarios$"}, "the load generator judges servers over the wire only, through the A2A client"},
		{module + "/reports", []string{module + "/reference", module + "/suites"}, "reports render results; they run nothing"},
		{module + "/reference/...", []string{module + "/scenarios", module + "/suites", module + "/loadgen", module + "/reports", module + "/cmd"}, "the reference knows nothing of the harness"},
		{module + "/docs/controlapi", []string{module + "/"}, "the control API's contract imports nothing of pagewalk"},
		{module + "/cmd/pagewalk", []string{"github.com/testcontainers/", "github.com/moby/", "github.com/docker/", module + "/suites/container"}, "the product binary carries no test machinery"},
		{module + "/cmd/pagewalk-reference", []string{module + "/scenarios", module + "/suites", module + "/loadgen", module + "/reports", "github.com/onsi/", "github.com/tsenart/"}, "the reference image runs the server and nothing else"},
	} {
		for _, d := range deps(t, c.pkg) {
			for _, b := range c.banned {
				hit := strings.HasPrefix(d, b)
				if exact, ok := strings.CutSuffix(b, "$"); ok {
					hit = d == exact // the package itself, not its children
				}
				if hit && d != strings.TrimSuffix(c.pkg, "/...") && !strings.HasPrefix(d, strings.TrimSuffix(c.pkg, "...")) {
					t.Errorf("%s imports %s: %s", c.pkg, d, c.why)
				}
			}
		}
	}
}
