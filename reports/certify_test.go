package reports

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeBundle(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	c := sampleRun()
	c.CardURL, c.Version, c.Commit, c.Flags = "http://x/.well-known/agent-card.json", "v1.0.0", "abc123", []string{"--principal=alice=REDACTED", "--profile=default"}
	card := []byte(`{"name":"x"}`)
	c.CardSHA256 = Digest(card)
	var b bytes.Buffer
	if err := CertBundle(&b, c, card); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "bundle.tar.gz")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, b.Bytes()
}

// TestCertBundleRoundTrip: a bundle verifies as written and lists every
// file; any one-byte change anywhere in it makes verification fail.
func TestCertBundleRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p, raw := writeBundle(t, dir)
	v, err := VerifyCertBundle(p)
	if err != nil {
		t.Fatalf("a fresh bundle does not verify: %v", err)
	}
	var names []string
	for _, f := range v.Manifest.Files {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "report.json junit.xml report.md report.html agent-card.json conformance.yaml docs/requirements.md" {
		t.Errorf("files %s", got)
	}
	if v.Conformance.Line() != "conformance: 2 passed, 1 failed, 1 skipped" || v.Manifest.Commit != "abc123" {
		t.Errorf("verified %q %+v", v.Conformance.Line(), v.Manifest)
	}
	// Flip one byte at positions spread over the whole file (the gzip
	// header, the compressed data, the trailer).
	step := max(len(raw)/300, 1)
	for i := 0; i < len(raw); i += step {
		for _, pos := range []int{i, len(raw) - 1 - i%8} {
			b := bytes.Clone(raw)
			b[pos] ^= 0x01
			q := filepath.Join(dir, "flipped.tar.gz")
			os.WriteFile(q, b, 0o644)
			if _, err := VerifyCertBundle(q); err == nil {
				t.Fatalf("flipping byte %d of %d went unnoticed", pos, len(raw))
			} else if !strings.Contains(err.Error(), "flipped.tar.gz") {
				t.Fatalf("the error does not name the bundle: %v", err)
			}
		}
	}
}

// repack rewrites a bundle with edit applied to its files, as someone
// changing a file and re-compressing it would.
func repack(t *testing.T, raw []byte, edit func(name string, b []byte) []byte) []byte {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		b, _ := io.ReadAll(tr)
		b = edit(h.Name, b)
		h.Size = int64(len(b))
		tw.WriteHeader(h)
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	return out.Bytes()
}

func TestCertBundleEditedFiles(t *testing.T) {
	dir := t.TempDir()
	_, raw := writeBundle(t, dir)
	for _, c := range []struct {
		name string
		edit func(name string, b []byte) []byte
		want string
	}{
		{"a report edited", func(n string, b []byte) []byte {
			if n == BundleMarkdown {
				b[len(b)/2] ^= 1
			}
			return b
		}, "report.md was changed"},
		{"the verdict edited in report.json and its hash in the manifest", func(n string, b []byte) []byte {
			if n == BundleReportJSON {
				return bytes.Replace(b, []byte(`"verdict": "FAIL"`), []byte(`"verdict": "PASS"`), 1)
			}
			return b
		}, "report.json was changed"},
		{"the manifest's verdict edited", func(n string, b []byte) []byte {
			if n == BundleManifest {
				return bytes.Replace(b, []byte(`"verdict": "FAIL"`), []byte(`"verdict": "PASS"`), 1)
			}
			return b
		}, "disagrees with report.json"},
		{"the manifest reindented", func(n string, b []byte) []byte {
			if n == BundleManifest {
				return bytes.Replace(b, []byte("\n  "), []byte("\n\t"), 1)
			}
			return b
		}, "manifest.json was changed"},
	} {
		q := filepath.Join(dir, "edited.tar.gz")
		os.WriteFile(q, repack(t, raw, c.edit), 0o644)
		_, err := VerifyCertBundle(q)
		var be *BundleError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// Not a bundle at all, and a missing file: clear errors naming it.
	txt := filepath.Join(dir, "notes.txt")
	os.WriteFile(txt, []byte("hello"), 0o644)
	if _, err := VerifyCertBundle(txt); err == nil || !strings.Contains(err.Error(), "notes.txt: not a pagewalk certification bundle") {
		t.Errorf("text file: %v", err)
	}
	if _, err := VerifyCertBundle(filepath.Join(dir, "missing.tar.gz")); err == nil || !strings.Contains(err.Error(), "missing.tar.gz") {
		t.Errorf("missing file: %v", err)
	}
}
