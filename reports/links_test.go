package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink   = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	mdRef    = regexp.MustCompile(`(?m)^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)`)
	htmlLink = regexp.MustCompile(`(?i)\b(?:href|src)\s*=\s*"([^"]*)"`)
)

// relativeLinks returns the relative link targets in a Markdown or HTML
// text (not URLs with a scheme, not in-page anchors), without fragments.
func relativeLinks(text string) []string {
	var out []string
	for _, re := range []*regexp.Regexp{mdLink, mdRef, htmlLink} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			l := m[1]
			if l == "" || strings.HasPrefix(l, "#") || regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`).MatchString(l) {
				continue
			}
			if i := strings.IndexAny(l, "#?"); i >= 0 {
				l = l[:i]
			}
			out = append(out, l)
		}
	}
	return out
}

// TestRelativeLinksResolve: every relative link in README.md, docs/*.md
// and the reports pagewalk renders points to a file in the repository
// (the README and the HTML footer of old main pointed to a requirements
// file outside it).
func TestRelativeLinksResolve(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files := append([]string{filepath.Join(root, "README.md")}, docs...)
	type doc struct{ name, dir, text string }
	var all []doc
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		all = append(all, doc{rel, filepath.Dir(f), string(b)})
	}
	// The rendered reports link relative to the repository root (a
	// certification bundle has the same layout).
	var html, md bytes.Buffer
	b := Bundle{Conformance: sampleRun(), Load: sampleLoad()}
	if err := b.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := b.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	all = append(all, doc{"report.html (rendered)", root, html.String()}, doc{"report.md (rendered)", root, md.String()})
	checked := 0
	for _, d := range all {
		for _, l := range relativeLinks(d.text) {
			checked++
			target := filepath.Join(d.dir, filepath.FromSlash(l))
			if strings.HasPrefix(l, "/") {
				target = filepath.Join(root, filepath.FromSlash(l))
			}
			rel, err := filepath.Rel(root, target)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Errorf("%s: link %s points outside the repository", d.name, l)
				continue
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %s: no such file in the repository (%s)", d.name, l, rel)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d relative links found; is the link pattern broken?", checked)
	}
	if !strings.Contains(html.String(), `href="`+RequirementsDoc+`"`) || !strings.Contains(md.String(), "]("+RequirementsDoc+")") {
		t.Error("the reports do not link to the requirement catalogue")
	}
}
