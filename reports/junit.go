package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/pagewalk/pagewalk/scenarios"
)

// JUnit writes the run as JUnit XML for CI parsers (GitHub, GitLab,
// Jenkins): one testcase per case and binding, named "LT-… [binding]",
// with the case's area as classname; a failing case has a <failure> whose
// message is its worst finding and whose body holds the findings with
// their witnesses, once; an Error case has an <error>; a skipped case a
// <skipped> with the reason. The suite's properties record the target, the
// Agent Card's URL and sha256, the harness version and commit, the spec
// version, the profile and the strictness. The file stays under
// JUnitBudget: witnesses and messages are capped, and each case's body gets
// an equal share of the room.
//
// It uses Ginkgo's JUnit XML types, which CI parsers are known to read, but
// not Ginkgo's generator (reporters.GenerateJUnitReport): that one names a
// testcase "[It] <container text> <spec text>", sets classname to the suite
// description and the suite's package to the suite's source path (a
// temporary directory for a built binary), and repeats every report entry
// in a property, the failure message, the body and system-err. pagewalk's
// cases are not Ginkgo specs; they are listed here as what they are.
func (c *Conformance) JUnit(w io.Writer) error {
	j := scenarios.Judgement{Profile: c.Profile, Strict: c.Strict}
	suite := reporters.JUnitTestSuite{
		Name:      "pagewalk conformance: " + specOr(c.SpecVersion) + " ListTasks",
		Package:   "github.com/pagewalk/pagewalk/scenarios",
		Timestamp: c.Started.UTC().Format("2006-01-02T15:04:05Z"),
		Time:      c.Duration.Seconds(),
	}
	props := [][2]string{
		{"target", c.Target}, {"card.url", c.CardURL}, {"card.sha256", c.CardSHA256},
		{"harness.version", c.Version}, {"harness.commit", c.Commit}, {"spec.version", specOr(c.SpecVersion)},
		{"profile", string(c.Profile)}, {"strict", fmt.Sprint(c.Strict)}, {"fail-on-skip", fmt.Sprint(c.FailOnSkip)},
		{"bindings", strings.Join(c.Bindings, ",")}, {"verdict", c.Verdict}, {"summary", c.Line()},
	}
	if c.Partial {
		props = append(props, [2]string{"partial", fmt.Sprintf("%s; %d cases did not run", c.StopReason, c.NotRun)})
	}
	for _, p := range props {
		suite.Properties.Properties = append(suite.Properties.Properties, reporters.JUnitProperty{Name: p[0], Value: p[1]})
	}
	withBody := 0
	for _, r := range c.Cases {
		if judged(r) {
			withBody++
		}
	}
	share := min(max(JUnitBudget/max(withBody, 1)-1024, 2<<10), 64<<10)
	for _, r := range c.Cases {
		tc := reporters.JUnitTestCase{Name: r.Name(), Classname: r.Area, Status: strings.ToLower(string(r.Verdict)), Time: r.Duration.Seconds()}
		suite.Tests++
		switch {
		case r.Verdict == scenarios.Skipped:
			suite.Skipped++
			tc.Skipped = &reporters.JUnitSkipped{Message: OneLine(r.Skip, MessageCap)}
		case r.Verdict == scenarios.Errored:
			suite.Errors++
			tc.Error = &reporters.JUnitError{Message: OneLine(r.Error, MessageCap), Type: string(r.Verdict), Description: caseBody(r, share)}
		case j.Failing(r.Verdict):
			suite.Failures++
			tc.Failure = &reporters.JUnitFailure{Message: Headline(r), Type: string(r.Verdict), Description: caseBody(r, share)}
		case judged(r):
			// A verdict that does not fail the run (Non-strict without
			// --strict): the test passes, and its findings are output.
			tc.SystemOut = caseBody(r, share)
		}
		suite.TestCases = append(suite.TestCases, tc)
	}
	doc := reporters.JUnitTestSuites{Tests: suite.Tests, Disabled: suite.Skipped, Errors: suite.Errors, Failures: suite.Failures,
		Time: suite.Time, TestSuites: []reporters.JUnitTestSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// caseBody renders a case's title, the clause it rests on, its error and
// its findings with their witnesses, in at most n bytes.
func caseBody(r *scenarios.Result, n int) string {
	d := &budget{limit: n, size: xmlLen}
	reserve := 160
	d.add(fmt.Sprintf("%s: %s\n%s\nrests on %s: %s\n", r.Name(), r.Verdict, r.Title, strings.Join(r.Reqs, ", "), Cap(r.Quote, MessageCap)), 0)
	if r.Error != "" {
		d.add("error: "+Cap(r.Error, MessageCap)+"\n", reserve)
	}
	for _, f := range r.Findings {
		part := "\n" + findingText(f) + "\n"
		if f.Witness != "" {
			// The room left, in raw bytes: escaping can double a
			// transcript's size.
			room := (d.room()-xmlLen(part)-reserve)/2 - 16
			if room > 256 {
				part += "witness:\n" + Cap(f.Witness, min(WitnessCap, room)) + "\n"
			}
		}
		d.add(part, reserve)
	}
	if d.omitted > 0 {
		fmt.Fprintf(&d.b, "\n(+%d more findings; the JSON report has them all)\n", d.omitted)
	}
	return d.b.String()
}
