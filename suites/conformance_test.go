package suites

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// Flags for go test; each has an environment fallback so ./... runs work.
var (
	flagTarget     = flag.String("pagewalk.target", os.Getenv("PAGEWALK_TARGET"), "agent card or base URL to check (default: launch the reference)")
	flagPrincipals = flag.String("pagewalk.principals", os.Getenv("PAGEWALK_PRINCIPALS"), "comma-separated NAME=TOKEN principals for --pagewalk.target")
	flagControl    = flag.String("pagewalk.control", os.Getenv("PAGEWALK_CONTROL"), "control API URL for --pagewalk.target")
	flagCtlToken   = flag.String("pagewalk.control-token", os.Getenv("PAGEWALK_CONTROL_TOKEN"), "control API token")
	flagProfile    = flag.String("pagewalk.profile", envOr("PAGEWALK_PROFILE", "hardened"), "default or hardened")
	flagStrict     = flag.Bool("pagewalk.strict", os.Getenv("PAGEWALK_STRICT") != "0", "fail on Non-strict verdicts too")
	flagJSON       = flag.String("pagewalk.json-report", os.Getenv("PAGEWALK_JSON_REPORT"), "write the JSON report here")
)

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// TestConformance runs every scenario. With no target it launches the
// reference server (container, or in-process without Docker) and runs the
// hardened profile in strict mode, where the clean reference must have 0
// Fail, 0 Non-strict and 0 Hardened verdicts.
func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	var target *scenarios.Target
	var targetName string
	_, err := Define(Config{
		Judgement:  scenarios.Judgement{Profile: scenarios.Profile(*flagProfile), Strict: *flagStrict},
		JSONReport: *flagJSON,
		Target:     func() *scenarios.Target { return target },
		TargetName: func() string { return targetName },
		Version:    "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	BeforeSuite(func(ctx SpecContext) {
		hc := &http.Client{Timeout: 30 * time.Second}
		if *flagTarget != "" {
			target, targetName = externalTarget(ctx, hc), *flagTarget
			return
		}
		By("launching the reference server")
		ref, kind, err := Launch(ctx, os.Stdout)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ref.Close)
		target, err = ReferenceTarget(ctx, ref, hc)
		Expect(err).NotTo(HaveOccurred())
		targetName = "reference (" + kind + ")"
		fmt.Printf("pagewalk: checking the reference server, %s, at %s\n", kind, target.Card.URL)
	}, NodeTimeout(5*time.Minute))
	sc, rc := GinkgoConfiguration()
	sc.FailOnEmpty = true
	RunSpecs(t, "pagewalk conformance", sc, rc)
}

func externalTarget(ctx context.Context, hc *http.Client) *scenarios.Target {
	var vals []string
	for _, p := range strings.Split(*flagPrincipals, ",") {
		if p = strings.TrimSpace(p); p != "" {
			vals = append(vals, p)
		}
	}
	ps, err := a2aclient.ParsePrincipals(vals)
	Expect(err).NotTo(HaveOccurred())
	t, err := ExternalTarget(ctx, TargetOptions{URL: *flagTarget, Principals: ps, ControlURL: *flagControl, ControlToken: *flagCtlToken, HTTP: hc})
	Expect(err).NotTo(HaveOccurred())
	return t
}
