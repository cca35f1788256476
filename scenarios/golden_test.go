package scenarios

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite ../conformance.yaml from the code")

// TestGoldenList fails when conformance.yaml differs from the cases in the
// code; run `make golden` to regenerate it.
func TestGoldenList(t *testing.T) {
	got, err := Golden()
	if err != nil {
		t.Fatal(err)
	}
	const path = "../conformance.yaml"
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run make golden)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("conformance.yaml is stale: the cases in the code differ from the golden list; review the change and run `make golden`")
	}
}

// TestRequirementsDoc fails when docs/requirements.md differs from the
// catalogue and the cases in the code; run `make golden` to regenerate it.
func TestRequirementsDoc(t *testing.T) {
	got := RequirementsDoc()
	const path = "../docs/requirements.md"
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run make golden)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/requirements.md is stale; run `make golden`")
	}
}
