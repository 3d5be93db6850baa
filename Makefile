# The two quick-start commands: `make matrix` and `make test`. Both install
# redis-server and PostgreSQL when missing (scripts/setup); idemchaos then
# starts and stops its own throwaway servers.
SEEDS ?= 1
# Every go command here builds with -trimpath: a package compiled in one
# checkout is then the same in the build cache for any other, so a fresh
# clone (CI's, a second worktree) takes what an earlier run compiled
# instead of compiling everything again (without it the cache keys on the
# checkout's path). The commands the tests build as processes inherit it.
export GOFLAGS := $(strip $(filter-out -trimpath,$(GOFLAGS)) -trimpath)
# How long `make fuzz` fuzzes each target; a target whose package has a
# TestMain that starts Redis and Postgres gets FUZZTIME_SERVERS, as its fuzz
# worker starts them too before its first input (one worker there).
FUZZTIME ?= 5s
FUZZTIME_SERVERS ?= 10s
FUZZ_WORKERS ?= 1

.PHONY: matrix test test-module test-heavy test-apart test-rest test-e2e test-e2e-rest test-fuzz-apart test-bin check setup build docs fuzz test-services-long test-long test-failover-long test-explore-long conformance conformance-clients bench-compare matrix-stress test-stress

# make matrix saves its run in MATRIX_OUT (git-ignored) with its HTML
# report, MATRIX_OUT/report.html, and replaces the run saved there before
# (a directory that holds no run is never removed: the CLI refuses it).
MATRIX_OUT ?= runs/matrix
matrix: setup
	@if [ -f $(MATRIX_OUT)/idemchaos-run ]; then rm -rf $(MATRIX_OUT); fi
	go run ./cmd/idemchaos matrix --seeds $(SEEDS) --out $(MATRIX_OUT)

# The e2e module (e2e/: the deployment files, the reports in Chromium) has
# a go.mod of its own, so k8s.io/api and chromedp stay out of the
# library's; it tests this checkout through a replace directive.
# The commands the tests run as processes are built once (test-bin); the
# tests take them from IDEMCHAOS_TEST_BIN instead of building their own.
# Three lanes run side by side (make -j3): the module's two longest
# packages (HEAVY: test-heavy), TEST_P at once; the e2e module (test-e2e,
# E2E_P at once), then the module's other packages (test-rest, REST_P at
# once); the fuzz targets, then the conformance run's package (APART:
# test-apart). Each package runs TEST_PARALLEL (the e2e module
# E2E_PARALLEL) parallel tests at once. The heavy ones wait on their
# scenarios more than they compute, so the others fill the lanes beside
# them; more at once loaded the machine past what some cells' timings
# hold (docs/testing.md has the measure). `make test-module` runs the
# module's packages alone. TESTJSON=DIR writes each go test's -json, with
# the CPU time of each package (scripts/cputime), to DIR/heavy.json,
# DIR/rest.json, DIR/apart.json and DIR/e2e.json instead of the terminal:
# docs/testing.md reads them with scripts/testtime.go.
TESTBIN := $(CURDIR)/bin/test
TEST_P ?= 2
REST_P ?= 2
TEST_PARALLEL ?= 2
HEAVY := ./cmd/idemchaos ./engine
APART := ./conformance
REST = $(filter-out $(shell go list $(HEAVY) $(APART)),$(shell go list ./...))
E2E_P ?= 2
E2E_PARALLEL ?= 2
TESTJSON ?=
# The suite's temporary files (its Postgres, Redis and MariaDB data
# directories, every t.TempDir) go to a RAM file system when one has room
# (scripts/tmpbase: /dev/shm/idemchaos-tmp), else to TMPDIR or /tmp; on
# ext4 a third of the suite's CPU was the kernel's, most of it Postgres
# creating and dropping a database's files (docs/testing.md). TMPBASE=DIR
# picks another.
TMPBASE = $(shell scripts/tmpbase)
test: export IDEMCHAOS_TEST_BIN = $(TESTBIN)
test: export TMPDIR = $(or $(TMPBASE),$(TMPDIR),/tmp)
test: setup check test-bin
	@$(MAKE) --no-print-directory -j3 test-heavy test-e2e-rest test-fuzz-apart

test-module test-heavy test-apart test-rest test-e2e test-e2e-rest test-fuzz-apart: export IDEMCHAOS_TEST_BIN = $(TESTBIN)
test-module: test-heavy test-apart test-rest
test-heavy:
	go test -race -count=1 -p $(TEST_P) -parallel $(TEST_PARALLEL) -timeout 30m $(call testjson,heavy) $(HEAVY) $(call testjsonout,heavy)
test-apart:
	go test -race -count=1 -parallel $(TEST_PARALLEL) -timeout 30m $(call testjson,apart) $(APART) $(call testjsonout,apart)
test-rest:
	go test -race -count=1 -p $(REST_P) -parallel $(TEST_PARALLEL) -timeout 30m $(call testjson,rest) $(REST) $(call testjsonout,rest)
test-e2e:
	cd e2e && go test -race -count=1 -p $(E2E_P) -parallel $(E2E_PARALLEL) -timeout 15m $(call testjson,e2e) ./... $(call testjsonout,e2e)
# a lane's second part runs even when its first failed; the lane fails
# after it
test-e2e-rest:
	@$(MAKE) --no-print-directory test-e2e; first=$$?; $(MAKE) --no-print-directory test-rest && exit $$first
test-fuzz-apart:
	@$(MAKE) --no-print-directory fuzz; first=$$?; $(MAKE) --no-print-directory test-apart && exit $$first
testjson = $(if $(TESTJSON),-json -exec $(CURDIR)/scripts/cputime)
testjsonout = $(if $(TESTJSON),> $(abspath $(TESTJSON))/$(1).json)

# The commands the tests run as processes (the CLI, paymentd, paysvc, the
# e2e services), built once into TESTBIN for every test package: go build
# links again only what changed since the last run.
test-bin:
	go build -o $(TESTBIN)/ ./cmd/...
	cd e2e && go build -o $(TESTBIN)/ ./services/...

# The services written for the tests (cmd/paysvc, each mistake a process of
# its own; e2e/services, services written as teams write them) classified
# by the CLI over 20 seeds instead of the 2 of make test.
test-services-long: setup
	IDEMCHAOS_SERVICE_SEEDS=20 go test -count=1 -timeout 60m -run '^TestService' -v ./cmd/idemchaos
	cd e2e && IDEMCHAOS_SERVICE_SEEDS=20 go test -count=1 -timeout 60m -v ./services

# The long form of the own-service tests: the paysvc mistakes and paymentd
# --failpoints (forced-race against redis-getset) over 20 seeds each.
test-long: setup
	IDEMCHAOS_SERVICE_SEEDS=20 IDEMCHAOS_FAILPOINT_SEEDS=20 go test -count=1 -timeout 90m \
		-run '^(TestService|TestTargetFailpoints)' -v ./cmd/idemchaos

# redis-failover over 20 seeds for every strategy, beside every other cell
# on 3, and the InnoDB strategies' cells on 5 seeds (make test runs every
# cell on one seed: the engine's TestEveryCellAsDeclared); forced-race on
# 50 seeds of redis-getset, pg-tx and redis-pg-guard (make test: 10).
test-failover-long: setup
	IDEMCHAOS_TEST_SEEDS=3 IDEMCHAOS_FAILOVER_SEEDS=20 IDEMCHAOS_INNODB_SEEDS=5 IDEMCHAOS_FORCED_RACE_SEEDS=50 \
		go test -count=1 -timeout 60m -run '^(TestEveryCellAsDeclared|TestForcedRaceEverySeed)$$' -v ./engine

# Every order of every case of every built-in strategy, each as its
# definition declares (make test explores four of them).
test-explore-long: setup
	IDEMCHAOS_EXPLORE_ALL=1 go test -count=1 -timeout 60m -run '^TestExploreCatalog$$' -v ./engine

# Every Go fuzz target (func FuzzX in a _test.go file): go test takes one
# -fuzz target per run, with FUZZ_WORKERS workers (one: make test fuzzes
# beside the tests; more for a longer make fuzz). Minimizing is capped
# (10 tries): with the whole dependency graph instrumented, each coverage
# snapshot is slow. A failing
# input is saved under the package's testdata/fuzz/FuzzX/ and from then on
# replays as a regression test in every `go test`. A run that fails with
# nothing but "context deadline exceeded" and writes no failing input hit Go
# 1.26's race at the -fuzztime boundary (golang/go#75804) and runs once more.
fuzz: setup
	@set -e; for file in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
		pkg=$$(dirname $$file); time=$(FUZZTIME); par=-parallel=$(FUZZ_WORKERS); \
		if grep -qs '^func TestMain' $$pkg/*_test.go; then time=$(FUZZTIME_SERVERS); par=-parallel=1; fi; \
		for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$file); do \
			echo "fuzz $$pkg $$name for $$time"; \
			if ! out=$$(go test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$$time -fuzzminimizetime=10x $$par $$pkg 2>&1); then \
				echo "$$out"; \
				if echo "$$out" | grep -q 'Failing input written' || ! echo "$$out" | grep -q 'context deadline exceeded'; then exit 1; fi; \
				echo "fuzz $$pkg $$name: no failing input, only Go's -fuzztime deadline race (golang/go#75804, fixed in Go 1.27): once more"; \
				go test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$$time -fuzzminimizetime=10x $$par $$pkg; \
			else echo "$$out" | tail -n 2; fi; \
		done; \
	done

# The conformance table of the idempotency libraries (conformance/): every
# target, every scenario that runs against it, ietf and stripe, CONFORMANCE_SEEDS
# seeds per cell; rewrites CONFORMANCE.md and conformance/verdicts.golden
# (the CI test compares one seed per cell with the latter).
CONFORMANCE_SEEDS ?= 3
conformance: setup
	rm -rf conformance-run
	go run ./cmd/idemchaos conformance --seeds $(CONFORMANCE_SEEDS) --out conformance-run \
		--md CONFORMANCE.md --verdicts conformance/verdicts.golden

# The client table (CLIENTS.md): the SDKs and retry libraries of
# conformance/clients/ at their pinned versions, each driven by a script of
# its documented usage, judged by client mode on CLIENT_SEEDS seeds;
# rewrites CLIENTS.md and conformance/clients.golden (the CI test runs one
# seed and compares both).
CLIENT_SEEDS ?= 5
conformance-clients: setup
	rm -rf conformance-clients-run
	go run ./cmd/idemchaos conformance --clients --seeds $(CLIENT_SEEDS) --out conformance-clients-run \
		--md CLIENTS.md --verdicts conformance/clients.golden

# The side-by-side of bench/README.md: pgbench on pg-tx's and none's SQL,
# mysqlslap on innodb-tx's (on a MariaDB it starts), wrk on the endpoints,
# idemchaos's closed and open models and vegeta's open
# model (when installed: scripts/setup installs it), on stores
# started once, interleaved over COMPARE_ROUNDS rounds of COMPARE_DURATION
# each; the ratios and each process's CPU time per request as tables and in
# bench-compare.json.
COMPARE_ROUNDS ?= 3
COMPARE_DURATION ?= 10s
bench-compare: setup
	go run ./cmd/idemchaos bench --compare --rounds $(COMPARE_ROUNDS) --duration $(COMPARE_DURATION) \
		--json bench-compare.json

# The tests a loaded machine once moved, under stress-ng --cpu 6
# (STRESS_CPUS): scripts/test-stress says which.
test-stress: export IDEMCHAOS_TEST_BIN = $(TESTBIN)
test-stress: setup test-bin
	scripts/test-stress

# A SEEDS-seed matrix (3 unless given) under 3x CPU oversubscription
# (STRESS_CPUS busy loops: stress-ng, or scripts/busyloop.go); fails on any
# cell not as declared.
matrix-stress: setup
	SEEDS=$(if $(filter command line,$(origin SEEDS)),$(SEEDS),3) scripts/matrix-stress

# STATICCHECK is pinned: go run fetches that version through the module proxy.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...
	go mod tidy -diff
	cd conformance/fiber && go vet ./... && go mod tidy -diff
	cd conformance/clients/go && go vet ./... && go mod tidy -diff
	cd e2e && go vet ./... && go mod tidy -diff
	go run $(STATICCHECK) ./...
	cd e2e && go run $(STATICCHECK) ./...
	cd conformance/clients/go && go run $(STATICCHECK) ./...

build:
	go build -o bin/idemchaos ./cmd/idemchaos

# docs/catalog.md, generated from the code (reports.TestCatalogDoc fails
# until it is regenerated after a catalog change).
docs:
	go run ./cmd/idemchaos list --markdown > docs/catalog.md

setup:
	@scripts/setup
