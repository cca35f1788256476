package scenarios

import (
	"bytes"
	"encoding/base64"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSeverityTable pins the one severity table: a finding's class follows
// from the level of the requirement it breaks, and an ambiguity caps it at
// Non-strict.
func TestSeverityTable(t *testing.T) {
	for id, want := range map[string]Class{
		"LT-RESP-2":  ClassFail,      // MUST
		"LT-ERR-5":   ClassNonStrict, // SHOULD
		"LT-REQ-9":   ClassNonStrict, // lower-case should
		"LT-REQ-4":   ClassNonStrict, // proto comment
		"LT-ERR-2":   ClassNonStrict, // spec sentence without a keyword
		"LT-PAGE-4":  ClassNonStrict, // normative example
		"LT-JSON-5":  ClassNonStrict, // ADR
		"LT-AUTHZ-8": ClassInfo,      // MAY
		"LT-PAGE-3":  ClassInfo,      // silent
		"LT-RESP-4":  ClassInfo,      // a client's rule
		"LT-SEED-2":  ClassHardened,  // the seed's practice
		"LT-TSA-3":   ClassHardened,  // the seed
	} {
		if got := ClassFor(id, false); got != want {
			t.Errorf("%s: class %s, want %s", id, got, want)
		}
		if got := Breach(R(id), "x").Class; got != want {
			t.Errorf("Breach(%s): class %s, want %s", id, got, want)
		}
	}
	if got := ClassFor("LT-RESP-2", true); got != ClassNonStrict {
		t.Errorf("an ambiguous MUST: %s, want Non-strict", got)
	}
	if got := Breach(R("LT-ERR-1"), "x").Ambiguous("A8").Class; got != ClassNonStrict {
		t.Errorf("Ambiguous: %s", got)
	}
	if got := Breach(R("LT-SEED-3"), "x").Ambiguous("A20").Class; got != ClassHardened {
		t.Errorf("an ambiguity never raises a class: %s", got)
	}
	if got := Observe(R("LT-RESP-2"), "x").Class; got != ClassInfo {
		t.Errorf("Observe: %s", got)
	}
	for _, r := range Requirements() {
		if _, ok := severity[r.Level]; !ok {
			t.Errorf("%s: level %q has no class in the severity table", r.ID, r.Level)
		}
	}
}

var reqIDPattern = regexp.MustCompile(`"(LT-[A-Z]+-\d+)"`)

// TestCheckersNameRequirementsNotClasses enforces the rule behind the
// severity table: outside the engine (finding.go, requirements.go, env.go)
// no scenario code names a finding class or builds a Finding by hand, and
// every requirement ID it names is in the catalogue.
func TestCheckersNameRequirementsNotClasses(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	engine := map[string]bool{"finding.go": true, "requirements.go": true, "env.go": true, "catalogue.go": true}
	classes := map[string]bool{"ClassFail": true, "ClassNonStrict": true, "ClassHardened": true, "ClassInfo": true}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || engine[f] {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range reqIDPattern.FindAllStringSubmatch(string(src), -1) {
			if _, ok := LookupRequirement(m[1]); !ok {
				t.Errorf("%s names %s, which is not in the requirement catalogue", f, m[1])
			}
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Ident:
				if classes[x.Name] {
					t.Errorf("%s: %s names the class %s; checkers name requirements (Breach, Observe), never classes", f, fset.Position(x.Pos()), x.Name)
				}
			case *ast.CompositeLit:
				if id, ok := x.Type.(*ast.Ident); ok && id.Name == "Finding" {
					t.Errorf("%s: %s builds a Finding by hand; use Breach or Observe", f, fset.Position(x.Pos()))
				}
			}
			return true
		})
	}
	if checked < 8 {
		t.Fatalf("only %d scenario files checked; is the test running in the scenarios folder?", checked)
	}
	for _, s := range All() {
		for _, r := range s.Reqs {
			if _, ok := LookupRequirement(r); !ok {
				t.Errorf("%s names %s, which is not in the requirement catalogue", s.ID, r)
			}
		}
	}
}

// TestGroupFindings: the same defect seen many times in one case is one
// entry with a count, the affected subjects and the smallest witness.
func TestGroupFindings(t *testing.T) {
	var fs []Finding
	for i, id := range []string{"t1", "t2", "t3"} {
		fs = append(fs, Breach(R("LT-OP-4"), "task %s was never served", id).Of("missing", id).WithWitness(strings.Repeat("w", 10-i)))
	}
	fs = append(fs, Breach(R("LT-ORDER-2"), "order").Of("order", "t9"))
	g := Group(fs)
	if len(g) != 2 || g[0].Count != 3 || len(g[0].Subjects) != 3 || g[0].Witness != "wwwwwwww" || !strings.Contains(g[0].Message, "t3") {
		t.Fatalf("grouped: %+v", g)
	}
	if g[1].Count != 0 {
		t.Errorf("a single finding keeps count 0: %+v", g[1])
	}
	r := &Result{Verdict: VFail, Findings: append(g, Observe(R("LT-PAGE-3"), "moved"))}
	if h := r.Headline(); !strings.HasPrefix(h, "[Fail LT-OP-4] task t3 was never served (and 2 more like it: t1, t2, t3) (+1 more)") {
		t.Errorf("headline %q", h)
	}
	// Messages that differ only in numbers are one defect without a kind.
	g = Group([]Finding{Breach(R("LT-RESP-7"), "page 1: bad"), Breach(R("LT-RESP-7"), "page 2: bad")})
	if len(g) != 1 || g[0].Count != 2 {
		t.Errorf("by masked message: %+v", g)
	}
}

// TestTamperMeansDifferentBytes: an edited token that decodes to the same
// bytes (the unused low bits of the last base64 character) is not a tamper,
// for tokens of every length mod 4, in both base64 alphabets, padded and
// unpadded; and every variant that is kept does decode to other bytes.
func TestTamperMeansDifferentBytes(t *testing.T) {
	for n := 24; n < 28; n++ { // every length mod 4 of the encoded form
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(i*37 + n) // fixed, no randomness needed
		}
		for name, enc := range map[string]*base64.Encoding{"url": base64.URLEncoding, "raw-url": base64.RawURLEncoding,
			"std": base64.StdEncoding, "raw-std": base64.RawStdEncoding} {
			tok := enc.EncodeToString(raw)
			for _, v := range TamperVariants(tok, 10_000) {
				if got, err := enc.DecodeString(v.Token); err == nil && bytes.Equal(got, raw) {
					t.Errorf("%s, %d bytes: variant %q (%s) decodes to the original bytes", name, n, v.Token, v.How)
				}
			}
			// The slack bits: the last character changed within its unused
			// low bits is the same token.
			if len(tok)%4 != 0 || strings.HasSuffix(tok, "=") {
				last := strings.TrimRight(tok, "=")
				i := len(last) - 1
				alt := []byte(tok)
				alt[i] ^= 1
				if got, err := enc.DecodeString(string(alt)); err == nil && bytes.Equal(got, raw) && !sameBytes(tok, string(alt)) {
					t.Errorf("%s, %d bytes: %q and %q are the same bytes but sameBytes says no", name, n, tok, alt)
				}
			}
		}
	}
	if sameBytes("pw2.YWJj.00", "pw2.YWJk.00") {
		t.Error("different bytes in a dotted token count as the same")
	}
}
