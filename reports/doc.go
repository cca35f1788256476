// Package reports turns pagewalk results into files people and CI read:
// the conformance run as JSON (the source of the other formats), Markdown,
// and a self-contained HTML page; JUnit comes from Ginkgo's own reporter.
package reports
