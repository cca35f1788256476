package reports

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/pagewalk/pagewalk/scenarios"
)

// SchemaManifest identifies a certification bundle's manifest.json.
const SchemaManifest = "pagewalk/bundle/v1"

// The files of a certification bundle, in the order they are written.
const (
	BundleReportJSON   = "report.json"
	BundleJUnit        = "junit.xml"
	BundleMarkdown     = "report.md"
	BundleHTML         = "report.html"
	BundleCard         = "agent-card.json"
	BundleGolden       = "conformance.yaml"
	BundleRequirements = RequirementsDoc
	BundleManifest     = "manifest.json"
)

// Manifest describes a certification bundle: what was checked, by which
// harness, how, with which verdict, and the sha256 of every other file.
// Every field but Files repeats a field of report.json, so that a changed
// manifest is caught as surely as a changed file.
type Manifest struct {
	Schema      string            `json:"schema"`
	Target      string            `json:"target"`
	CardURL     string            `json:"cardUrl"`
	CardSHA256  string            `json:"cardSha256"`
	Time        time.Time         `json:"time"`
	Tool        string            `json:"tool"`
	Version     string            `json:"version"`
	Commit      string            `json:"commit,omitempty"`
	SpecVersion string            `json:"specVersion"`
	Profile     scenarios.Profile `json:"profile"`
	Strict      bool              `json:"strict"`
	FailOnSkip  bool              `json:"failOnSkip,omitempty"`
	Flags       []string          `json:"flags,omitempty"`
	Partial     bool              `json:"partial,omitempty"`
	Verdict     string            `json:"verdict"`
	Line        string            `json:"line"`
	Files       []ManifestFile    `json:"files"`
}

// ManifestFile is one file of the bundle and its digest.
type ManifestFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// gzipHeader is the exact header WriteCertBundle writes (no name, no
// time, default compression, OS unknown). Verification requires it, since
// gzip's checksum covers the data but not the header.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// maxBundleFile bounds one file read back from a bundle.
const maxBundleFile = 256 << 20

// CertBundle writes a certification bundle (a .tar.gz) of run c to w: the
// JSON, JUnit, Markdown and HTML reports, the Agent Card as fetched
// (card), conformance.yaml and docs/requirements.md as this harness
// generates them, and manifest.json.
func CertBundle(w io.Writer, c *Conformance, card []byte) error {
	if c == nil {
		return errors.New("certification bundle: no conformance run")
	}
	files := map[string][]byte{BundleCard: card}
	var err error
	if files[BundleReportJSON], err = json.MarshalIndent(c, "", "  "); err != nil {
		return err
	}
	files[BundleReportJSON] = append(files[BundleReportJSON], '\n')
	for name, render := range map[string]func(io.Writer) error{
		BundleJUnit:    c.JUnit,
		BundleMarkdown: Bundle{Conformance: c}.Markdown,
		BundleHTML:     Bundle{Conformance: c}.HTML,
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			return fmt.Errorf("certification bundle: %s: %w", name, err)
		}
		files[name] = b.Bytes()
	}
	if files[BundleGolden], err = scenarios.Golden(); err != nil {
		return err
	}
	files[BundleRequirements] = scenarios.RequirementsDoc()
	m := manifestOf(c)
	order := []string{BundleReportJSON, BundleJUnit, BundleMarkdown, BundleHTML, BundleCard, BundleGolden, BundleRequirements}
	for _, name := range order {
		sum := sha256.Sum256(files[name])
		m.Files = append(m.Files, ManifestFile{Name: name, Size: int64(len(files[name])), SHA256: hex.EncodeToString(sum[:])})
	}
	mb, err := encodeManifest(m)
	if err != nil {
		return err
	}
	files[BundleManifest] = mb
	order = append(order, BundleManifest)

	gz, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	mtime := c.Started.UTC().Truncate(time.Second)
	for _, name := range order {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(files[name])), Mode: 0o644, ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(files[name]); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// manifestOf fills a manifest's fields from the run (not its files).
func manifestOf(c *Conformance) Manifest {
	return Manifest{Schema: SchemaManifest, Target: c.Target, CardURL: c.CardURL, CardSHA256: c.CardSHA256, Time: c.Started.UTC(),
		Tool: c.Tool, Version: c.Version, Commit: c.Commit, SpecVersion: specOr(c.SpecVersion), Profile: c.Profile, Strict: c.Strict,
		FailOnSkip: c.FailOnSkip, Flags: c.Flags, Partial: c.Partial, Verdict: c.Verdict, Line: c.Line()}
}

func encodeManifest(m Manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), err
}

// Verified is a bundle that passed VerifyCertBundle.
type Verified struct {
	Manifest    Manifest
	Conformance *Conformance
}

// VerifyCertBundle reads the certification bundle at p and checks that
// nothing in it was changed since CertBundle wrote it: the archive is
// whole, it holds exactly the files the manifest lists, each with its
// size and sha256, and every field of the manifest agrees with report.json
// and the Agent Card. Errors name the bundle and what is wrong.
func VerifyCertBundle(p string) (*Verified, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 4*maxBundleFile))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	fail := func(format string, args ...any) (*Verified, error) {
		return nil, &BundleError{Path: p, Msg: fmt.Sprintf(format, args...)}
	}
	if len(raw) < len(gzipHeader) || raw[0] != 0x1f || raw[1] != 0x8b {
		return fail("not a pagewalk certification bundle (not gzip data)")
	}
	if !bytes.Equal(raw[:len(gzipHeader)], gzipHeader) {
		return fail("the gzip header was changed (want % x, got % x)", gzipHeader, raw[:len(gzipHeader)])
	}
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return fail("damaged gzip stream: %v", err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail("damaged archive: %v", err)
		}
		name := hdr.Name
		if hdr.Typeflag != tar.TypeReg {
			return fail("%s: not a regular file (type %q); a bundle holds only files", name, hdr.Typeflag)
		}
		if name != path.Clean(name) || path.IsAbs(name) || strings.HasPrefix(name, "..") {
			return fail("%s: not a plain relative file name", name)
		}
		if _, dup := files[name]; dup {
			return fail("%s: appears twice", name)
		}
		if hdr.Size > maxBundleFile {
			return fail("%s: %d bytes, more than a bundle file may hold (%d)", name, hdr.Size, maxBundleFile)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return fail("%s: damaged archive: %v", name, err)
		}
		files[name], names = b, append(names, name)
	}
	// Read to the end of the gzip stream: its checksum is checked there,
	// and anything appended after it is an error.
	if _, err := io.Copy(io.Discard, gz); err != nil {
		return fail("damaged gzip stream: %v", err)
	}
	mb, ok := files[BundleManifest]
	if !ok {
		return fail("no %s", BundleManifest)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(mb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return fail("%s: not a pagewalk manifest: %v", BundleManifest, err)
	}
	if m.Schema != SchemaManifest {
		return fail("%s: schema %q, want %q", BundleManifest, m.Schema, SchemaManifest)
	}
	if canon, err := encodeManifest(m); err != nil || !bytes.Equal(canon, mb) {
		return fail("%s was changed (it is not as pagewalk writes it)", BundleManifest)
	}
	listed := map[string]bool{BundleManifest: true}
	for _, mf := range m.Files {
		b, ok := files[mf.Name]
		if !ok {
			return fail("%s: listed in %s but missing", mf.Name, BundleManifest)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != mf.SHA256 || int64(len(b)) != mf.Size {
			return fail("%s was changed: sha256 %s (%d bytes), the manifest says %s (%d bytes)", mf.Name, got, len(b), mf.SHA256, mf.Size)
		}
		listed[mf.Name] = true
	}
	for _, n := range names {
		if !listed[n] {
			return fail("%s: not listed in %s", n, BundleManifest)
		}
	}
	for _, need := range []string{BundleReportJSON, BundleCard} {
		if !listed[need] {
			return fail("no %s", need)
		}
	}
	c, err := DecodeConformance(p+": "+BundleReportJSON, bytes.NewReader(files[BundleReportJSON]))
	if err != nil {
		return nil, &BundleError{Path: p, Msg: err.Error()}
	}
	want := manifestOf(c)
	want.Files = m.Files
	if !manifestsEqual(want, m) {
		return fail("%s disagrees with %s (target, harness, profile, flags or verdict)", BundleManifest, BundleReportJSON)
	}
	cardSum := sha256.Sum256(files[BundleCard])
	if hex.EncodeToString(cardSum[:]) != m.CardSHA256 && m.CardSHA256 != "" {
		return fail("%s: sha256 differs from the card hash the run recorded", BundleCard)
	}
	return &Verified{Manifest: m, Conformance: c}, nil
}

func manifestsEqual(a, b Manifest) bool {
	ja, _ := encodeManifest(a)
	jb, _ := encodeManifest(b)
	return bytes.Equal(ja, jb) && slices.Equal(a.Flags, b.Flags)
}

// BundleError is a certification bundle that failed verification: damaged
// or changed.
type BundleError struct {
	Path string
	Msg  string
}

// Error names the bundle and what is wrong.
func (e *BundleError) Error() string { return e.Path + ": " + e.Msg }

// Digest returns the hex sha256 of b (the Agent Card hash a run records).
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
