package reference

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var writeFuzzCorpora = flag.Bool("write-fuzz-corpora", false, "write the seed corpora of the fuzz targets to testdata/fuzz")

// fuzzTargets are the fuzz targets of this package; each has a committed
// seed corpus in testdata/fuzz/<name>.
var fuzzTargets = []string{"FuzzHandlers", "FuzzTokenDecode", "FuzzTokenRoundTrip", "FuzzJSONRPCParams", "FuzzQueryParams"}

// TestFuzzCorpora checks that every fuzz target has its committed seed
// corpus. With -write-fuzz-corpora it (re)writes the seeds this file
// derives from the malformed-input corpus and the token fixture; seeds the
// fuzzer found (regressions) are files of their own and are kept.
func TestFuzzCorpora(t *testing.T) {
	if *writeFuzzCorpora {
		for name, inputs := range fuzzSeeds(t) {
			dir := filepath.Join("testdata", "fuzz", name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, in := range inputs {
				var b strings.Builder
				b.WriteString("go test fuzz v1\n")
				for _, v := range in {
					switch v := v.(type) {
					case string:
						fmt.Fprintf(&b, "string(%q)\n", v)
					case int:
						fmt.Fprintf(&b, "int(%d)\n", v)
					case int64:
						fmt.Fprintf(&b, "int64(%d)\n", v)
					case byte:
						fmt.Fprintf(&b, "byte(%q)\n", v)
					}
				}
				sum := sha256.Sum256([]byte(b.String()))
				if err := os.WriteFile(filepath.Join(dir, "seed-"+hex.EncodeToString(sum[:8])), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, name := range fuzzTargets {
		entries, err := os.ReadDir(filepath.Join("testdata", "fuzz", name))
		if err != nil || len(entries) == 0 {
			t.Errorf("%s has no committed seed corpus in testdata/fuzz/%s (run go test -run TestFuzzCorpora -write-fuzz-corpora): %v", name, name, err)
		}
	}
}

// fuzzSeeds derives seed inputs for every fuzz target.
func fuzzSeeds(t *testing.T) map[string][][]any {
	kr, tok, c := tokenFixture(t)
	out := map[string][][]any{}
	var tokens, bodies, queries, params []string
	tokens = append(tokens, tok, jsonCodec{}.Encode(c, kr), unsignedCodec{}.Encode(c, kr), tok[:len(tok)-1], tok+"A",
		strings.ToUpper(tok), "pw2.e30=."+strings.Repeat("0", 64), strings.Repeat("A", 200))

	f, err := os.Open("testdata/malformed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		var e corpusEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		for _, r := range e.requests(t) {
			if len(r.body) > 4096 || len(r.path) > 4096 {
				continue // the fuzzer builds big inputs itself
			}
			switch r.binding {
			case "jsonrpc":
				bodies = append(bodies, string(r.body))
				var env struct{ Params json.RawMessage }
				if json.Unmarshal(r.body, &env) == nil && len(env.Params) > 0 {
					params = append(params, string(env.Params))
				}
			case "http":
				if u, err := url.Parse(r.path); err == nil && u.RawQuery != "" {
					queries = append(queries, u.RawQuery)
				} else if _, q, ok := strings.Cut(r.path, "?"); ok {
					queries = append(queries, q)
				}
			}
		}
		if v, ok := e.Params["pageToken"]; ok {
			var s string
			if json.Unmarshal(v, &s) == nil {
				tokens = append(tokens, string(expand(s)))
			}
		}
	}
	for i, tk := range tokens {
		out["FuzzTokenDecode"] = append(out["FuzzTokenDecode"], []any{tk, i * 7, byte(i)})
	}
	out["FuzzTokenRoundTrip"] = [][]any{
		{keysetCursor(taskRow{TS: ts0, ID: "t-1"}), "alice", "", int64(ts0), int64(10)},
		{string([]byte{0x80, 0xff}), "bob", "tenant-b", int64(-1 << 62), int64(1 << 62)},
		{"", "", "", int64(0), int64(0)},
	}
	for i, p := range params {
		out["FuzzJSONRPCParams"] = append(out["FuzzJSONRPCParams"], []any{p})
		if i < len(queries) {
			out["FuzzHandlers"] = append(out["FuzzHandlers"], []any{bodies[i%len(bodies)], queries[i]})
		}
	}
	for _, q := range queries {
		out["FuzzQueryParams"] = append(out["FuzzQueryParams"], []any{q})
	}
	return out
}
