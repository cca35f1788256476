// Package reports turns pagewalk results into files people and CI read:
// the conformance run as JSON (the source of the other formats, with
// every finding whole), JUnit for CI parsers, a Markdown summary for a CI
// job summary, a self-contained HTML page, and the certification bundle
// that holds them all with a manifest of their digests. The human-facing
// formats cap witnesses and stay within fixed sizes whatever a run holds.
// It also holds the exit-code table every pagewalk command follows.
package reports
