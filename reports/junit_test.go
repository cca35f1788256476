package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"

	"github.com/pagewalk/pagewalk/scenarios"
)

// TestJUnitParsesAsCIReadsIt parses the JUnit file with an independent
// parser (github.com/joshdk/go-junit, as CI tools read JUnit) and checks
// the fields CI shows: one testcase per case and binding named "LT-…
// [binding]", the area as classname, the worst finding as the failure
// message, the witness once in the body, errors, skips, and the suite's
// properties.
func TestJUnitParsesAsCIReadsIt(t *testing.T) {
	c := sampleRun()
	c.Cases = append(c.Cases, &scenarios.Result{ID: "LT-WALK-EMPTY", Title: "empty", Area: "walk", Level: scenarios.MUST, Reqs: []string{"LT-RESP-3"},
		Binding: "jsonrpc", Verdict: scenarios.Errored, Error: "ListTasks page 1: connection refused"})
	for _, r := range c.Cases {
		r.Area = "walk"
	}
	c = NewConformance(c.Cases, scenarios.Judgement{Profile: scenarios.ProfileDefault})
	c.Target, c.CardURL, c.CardSHA256, c.Version, c.Commit = "http://127.0.0.1:9/", "http://127.0.0.1:9/.well-known/agent-card.json", "ab12", "v1.2.3", "deadbeef"
	c.Started, c.Duration = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), 3*time.Second
	var b bytes.Buffer
	if err := c.JUnit(&b); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(b.Bytes())
	if err != nil {
		t.Fatalf("the JUnit file does not parse: %v\n%s", err, b.String())
	}
	if len(suites) != 1 {
		t.Fatalf("%d suites, want 1", len(suites))
	}
	s := suites[0]
	for k, want := range map[string]string{"target": "http://127.0.0.1:9/", "card.url": c.CardURL, "card.sha256": "ab12", "harness.version": "v1.2.3",
		"harness.commit": "deadbeef", "spec.version": "A2A 1.0", "profile": "default", "strict": "false"} {
		if s.Properties[k] != want {
			t.Errorf("property %s = %q, want %q", k, s.Properties[k], want)
		}
	}
	if strings.Contains(b.String(), "/tmp/") || strings.Contains(b.String(), "[It]") {
		t.Error("the JUnit file holds a temporary path or Ginkgo's [It] names")
	}
	if len(s.Tests) != len(c.Cases) {
		t.Fatalf("%d testcases for %d cases", len(s.Tests), len(c.Cases))
	}
	byName := map[string]junit.Test{}
	for _, tc := range s.Tests {
		byName[tc.Name] = tc
	}
	order := byName["LT-WALK-ORDER [jsonrpc]"]
	if order.Status != junit.StatusFailed || order.Classname != "walk" {
		t.Errorf("LT-WALK-ORDER: status %s classname %q", order.Status, order.Classname)
	}
	if !strings.HasPrefix(order.Message, "[Fail LT-ORDER-2] task <b> follows a") {
		t.Errorf("failure message %q is not the worst finding", order.Message)
	}
	if body := order.Error.Error(); !strings.Contains(body, "--> POST /jsonrpc") {
		t.Errorf("the failure body lacks the witness:\n%s", body)
	}
	if n := strings.Count(b.String(), "--&gt; POST /jsonrpc"); n != 1 {
		t.Errorf("the witness appears %d times in the file, want once", n)
	}
	if e := byName["LT-WALK-EMPTY [jsonrpc]"]; e.Status != junit.StatusError || !strings.Contains(e.Message, "connection refused") {
		t.Errorf("Error case: %s %q", e.Status, e.Message)
	}
	if sk := byName["LT-TIE-BOUNDARY [http]"]; sk.Status != junit.StatusSkipped || sk.Message != "hardened practice" {
		t.Errorf("skipped case: %s %q", sk.Status, sk.Message)
	}
	// Non-strict without --strict does not fail the run: the test passes
	// and carries its findings as output.
	if ns := byName["LT-ARTIFACTS-OMIT [http]"]; ns.Status != junit.StatusPassed || !strings.Contains(ns.SystemOut, "artifacts []") {
		t.Errorf("Non-strict case: %s %q", ns.Status, ns.SystemOut)
	}
	if s.Totals.Tests != 5 || s.Totals.Failed != 1 || s.Totals.Error != 1 || s.Totals.Skipped != 1 {
		t.Errorf("totals %+v", s.Totals)
	}
}

// floodRun is a synthetic run of a server that produces hundreds of big
// findings: 70 failing cases, each with 200 distinct findings carrying a
// 20 KiB witness, and one 1.4 MB message.
func floodRun() *Conformance {
	var rs []*scenarios.Result
	for i := range 70 {
		r := &scenarios.Result{ID: fmt.Sprintf("LT-FLOOD-%02d", i), Title: "flood", Area: "ties", Level: scenarios.MUST, Reqs: []string{"LT-OP-4"},
			Quote: "MUST", Binding: []string{"jsonrpc", "http"}[i%2], Verdict: scenarios.VFail}
		for k := range 200 {
			msg := fmt.Sprintf("finding %d of case %d: task t-%d missing ", k, i, k) + strings.Repeat("m", 2000)
			if i == 0 && k == 0 {
				msg = strings.Repeat("huge message ", 110_000)
			}
			r.Findings = append(r.Findings, scenarios.Finding{Class: scenarios.ClassFail, Reqs: []string{fmt.Sprintf("LT-REQ-%d", k)},
				Message: msg, Witness: strings.Repeat(fmt.Sprintf("--> POST /jsonrpc page %d\n", k), 250)})
		}
		rs = append(rs, r)
	}
	return NewConformance(rs, scenarios.Judgement{Profile: scenarios.ProfileDefault})
}

// TestFloodStaysWithinCaps: the Markdown summary stays under 64 KiB and
// the JUnit file under 1 MiB, witnesses are capped with the note, and the
// JSON report keeps everything.
func TestFloodStaysWithinCaps(t *testing.T) {
	c := floodRun()
	var md, ju, js bytes.Buffer
	if err := (Bundle{Conformance: c}).Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if md.Len() > 64<<10 {
		t.Errorf("Markdown is %d bytes, over 64 KiB", md.Len())
	}
	for _, want := range []string{"## Conformance: FAIL", "conformance: 0 passed, 70 failed, 0 skipped", "LT-FLOOD-69", "the JSON report has them all", TruncationNote} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Count(md.String(), "```")%2 != 0 {
		t.Error("Markdown leaves a code fence open")
	}
	if err := c.JUnit(&ju); err != nil {
		t.Fatal(err)
	}
	if ju.Len() > 1<<20 {
		t.Errorf("JUnit is %d bytes, over 1 MiB", ju.Len())
	}
	suites, err := junit.Ingest(ju.Bytes())
	if err != nil || len(suites) != 1 || len(suites[0].Tests) != 70 {
		t.Fatalf("capped JUnit does not parse into 70 testcases: %v", err)
	}
	for _, tc := range suites[0].Tests {
		if len(tc.Message) > MessageCap || tc.Status != junit.StatusFailed || !strings.Contains(tc.Error.Error(), "more findings") {
			t.Errorf("%s: message %d bytes, status %s", tc.Name, len(tc.Message), tc.Status)
		}
	}
	if err := json.NewEncoder(&js).Encode(c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), strings.Repeat("huge message ", 1000)) || js.Len() < 70*200*6_000 {
		t.Errorf("the JSON report lost findings (%d bytes)", js.Len())
	}
}
