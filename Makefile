# pagewalk: conformance harness and load tester for A2A 1.0 ListTasks.
#   make demo   start the reference server, check it, load it, write the report
#   make test   run every test (unit, container suite, kill matrix, load)
#   make load-stability   the demo's load 20 times each against the clean
#               reference and its offset-cursor mutant, CPU burning beside it

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BIN     := bin/pagewalk
IMAGE   ?= pagewalk-reference:dev
HARNESS_IMAGE ?= pagewalk:dev
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)

# No registry is reachable and no Ryuk image exists: see docs in README.
export TESTCONTAINERS_RYUK_DISABLED := true
export TESTCONTAINERS_HOST_OVERRIDE := 127.0.0.1
export DOCKER_AUTH_CONFIG := {}
export GINKGO_NO_COLOR := TRUE
# Static binaries everywhere: the test binaries and the image binary then
# share one build cache.
export CGO_ENABLED := 0

.PHONY: build test demo load-stability image image-pagewalk bench golden clean

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)' -o $(BIN) ./cmd/pagewalk

# image builds the reference server image FROM scratch, without pulling,
# from the small reference main (the server and nothing else).
image:
	rm -rf bin/image && mkdir -p bin/image/data
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w -X main.version=$(VERSION)' -o bin/image/pagewalk-reference ./cmd/pagewalk-reference
	cp Dockerfile bin/image/
	DOCKER_BUILDKIT=0 docker build --pull=false -t $(IMAGE) bin/image

# image also builds the harness image.
image: image-pagewalk

# image-pagewalk builds the harness image pagewalk:dev FROM scratch: the
# static pagewalk binary and Debian's CA certificates (ca-certificates).
image-pagewalk:
	rm -rf bin/image-pagewalk && mkdir -p bin/image-pagewalk/tmp
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)' -o bin/image-pagewalk/pagewalk ./cmd/pagewalk
	cp /etc/ssl/certs/ca-certificates.crt bin/image-pagewalk/ || { echo "make image-pagewalk: needs Debian's ca-certificates package (apt-get install -y ca-certificates)" >&2; exit 1; }
	cp Dockerfile.pagewalk bin/image-pagewalk/Dockerfile
	DOCKER_BUILDKIT=0 docker build --pull=false -t $(HARNESS_IMAGE) bin/image-pagewalk

# The suites package runs verbosely so its closing lines show in CI:
# "conformance: N passed, N failed, N skipped" and the kill-matrix tally.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m $$($(GO) list ./... | grep -v '/suites$$')
	$(GO) test -count=1 -timeout 20m -v ./suites/

demo: build
	$(BIN) demo --out demo-report

# load-stability counts the load verdicts of the demo's load step, 20 runs
# against the clean in-process reference and 20 against --fault
# offset-cursor, while two goroutines burn CPU (docs/load.md, "Stability").
load-stability:
	PAGEWALK_LOAD_STABILITY=1 $(GO) test -count=1 -timeout 40m -run '^TestLoadStability$$' -v ./cmd/pagewalk

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./reference/...
	$(GO) test -run '^$$' -bench Generator -benchtime 3x ./loadgen

clean:
	rm -rf bin demo-report

# golden regenerates conformance.yaml from the cases in the code.
golden:
	$(GO) test ./scenarios -run 'TestGoldenList|TestRequirementsDoc' -args -update

# fuzz runs every fuzz target of the module, in every package, for FUZZTIME
# each (go test -fuzz takes one target of one package at a time):
#   make fuzz FUZZTIME=2m
FUZZTIME ?= 10s
.PHONY: fuzz
fuzz:
	@for pkg in $$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$t for $(FUZZTIME)"; \
			$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

# peer runs only the a2a-go peer test: build suites/peers/a2ago (a nested
# module on the released SDK), check it black-box, compare with its
# expected.yaml. Regenerate that file with
#   go test ./suites -run TestPeerA2AGo -args -update
.PHONY: peer
peer:
	$(GO) test -count=1 -run '^TestPeerA2AGo$$' -v ./suites/

# soak runs 50 walkers over a static data set in the in-process reference
# while writers seed, move and send messages around it, for SOAK, and prints
# the counts (docs/reliability.md, "Soak"). Not part of make test.
SOAK ?= 60s
.PHONY: soak
soak:
	PAGEWALK_SOAK=$(SOAK) $(GO) test -count=1 -run '^TestSoak$$' -v -timeout 0 ./suites/soak/
