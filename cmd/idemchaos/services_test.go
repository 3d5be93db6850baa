package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The tests of this file are the "services written for the tests": each
// variant of cmd/paysvc, a payment service of the kind a team writes,
// started as a process of its own on a database of its own, and the real
// idemchaos CLI run against it as a user would run it. Each mistake must
// be classified right by the scenarios that should catch it, on every
// seed, and the correct service must pass every scenario that runs.

// serviceSeeds is how many seeds each variant runs: IDEMCHAOS_SERVICE_SEEDS
// (the long form, make test-services-long: 20), else 1 (make test).
func serviceSeeds(t *testing.T) int { return envCount(t, "IDEMCHAOS_SERVICE_SEEDS", 1) }

// atFloor stops a race-hunting scenario at its power floor: for the tests
// about something else than a race, which a hunt to the power aim only
// slows (TestPowerCatchesCheckThenSet, in e2e/services, hunts with the
// defaults).
func atFloor(more ...string) []string {
	return append([]string{"--power-aim", strconv.Itoa(scenarios.DefaultPowerTarget)}, more...)
}

// paysvcQuery is the ledger query paysvc prints.
const paysvcQuery = "SELECT idempotency_key, account, amount, id, attempt_id FROM charges"

// paysvc is a started cmd/paysvc process.
type paysvc struct {
	url, dsn string
	stop     func() error // SIGTERM, wait for the graceful exit; idempotent
}

// startPaysvc starts paysvc with args on a new database of the shared
// Postgres and reads its URL from its stdout; the test's cleanup stops it
// (killed if it does not exit within 20 s) and drops the database.
func startPaysvc(t *testing.T, args ...string) paysvc {
	t.Helper()
	dsn := paysvcDatabase(t)
	return runPaysvc(t, dsn, append([]string{"--dsn", dsn}, args...)...)
}

// paysvcDatabase is a new database of the shared Postgres, dropped by the
// test's cleanup.
func paysvcDatabase(t *testing.T) string {
	t.Helper()
	dsn, err := services.CreateDatabase(context.Background(), "paysvc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = services.DropDatabase(context.Background(), dsn) })
	return dsn
}

// runPaysvc starts paysvc with args, its --dsn among them, on the database
// dsn (the paysvc's ledger, which --dsn may reach through a proxy).
func runPaysvc(t *testing.T, dsn string, args ...string) paysvc {
	t.Helper()
	bin := buildCommand(t, "paysvc")
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer // read only once the process has exited
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls, exited := make(chan string, 1), make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			urls <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	var once sync.Once
	var exitErr error
	stop := func() error {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case exitErr = <-exited:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				exitErr = fmt.Errorf("paysvc %v did not stop within 20s of SIGTERM: killed (%v)", args, <-exited)
			}
			if exitErr != nil || t.Failed() {
				t.Logf("paysvc %v stderr:\n%s", args, stderr.String())
			}
		})
		return exitErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("paysvc %v: %v", args, err)
		}
	})
	select {
	case u := <-urls:
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Fatalf("paysvc printed %q, want its loopback URL", u)
		}
		return paysvc{url: u, dsn: dsn, stop: stop}
	case err := <-exited:
		exited <- err
		t.Fatalf("paysvc %v exited before it listened: %v", args, err)
	case <-time.After(time.Minute):
		t.Fatalf("paysvc %v did not listen within 1m", args)
	}
	return paysvc{}
}

// serviceRun is one idemchaos matrix run against a paysvc, as saved.
type serviceRun struct {
	outcome
	doc   matrixDoc
	out   string
	seeds int
	took  time.Duration
}

// summary is one line per scenario: verdicts and anomalies over the seeds.
func (r serviceRun) summary() string {
	type tally struct {
		verdicts  map[string]int
		anomalies map[string]int
	}
	by := map[string]*tally{}
	var names []string
	for _, c := range r.doc.Results {
		s := by[c.Scenario]
		if s == nil {
			s = &tally{verdicts: map[string]int{}, anomalies: map[string]int{}}
			by[c.Scenario] = s
			names = append(names, c.Scenario)
		}
		s.verdicts[c.Verdict]++
		for a, n := range c.Anomalies {
			if n > 0 {
				s.anomalies[a]++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d seeds in %s (exit %d)", r.seeds, r.took.Round(time.Millisecond), r.code)
	for _, name := range names {
		fmt.Fprintf(&b, "\n  %-22s %s; seeds with %s", name, counts(by[name].verdicts), counts(by[name].anomalies))
	}
	for _, s := range r.doc.Skipped {
		fmt.Fprintf(&b, "\n  %-22s skipped: %s", s.Scenario, s.Reason)
	}
	return b.String()
}

// counts renders a tally as "fail 2, pass 1", sorted by name.
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var out []string
	for k, n := range m {
		out = append(out, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// expect fails unless scenario ran on every seed with verdict and, when
// anomaly is given, counted that anomaly, and no other but those also
// allowed.
func (r serviceRun) expect(t *testing.T, scenario, verdict, anomaly string, also ...string) {
	t.Helper()
	n := 0
	for _, c := range r.doc.Results {
		if c.Scenario != scenario {
			continue
		}
		n++
		var others []string
		for a, k := range c.Anomalies {
			if k > 0 && a != anomaly && !slices.Contains(also, a) {
				others = append(others, a)
			}
		}
		switch {
		case c.Verdict != verdict:
			t.Errorf("%s seed %d: %s with %v, assumptions %q; want %s", scenario, c.Seed, c.Verdict, c.Anomalies, c.Assumptions, verdict)
		case anomaly != "" && c.Anomalies[anomaly] == 0:
			t.Errorf("%s seed %d: %s without %s (%v)", scenario, c.Seed, c.Verdict, anomaly, c.Anomalies)
		case len(others) > 0:
			t.Errorf("%s seed %d: anomalies %q besides %q %q (%v)", scenario, c.Seed, others, anomaly, also, c.Anomalies)
		}
	}
	if n != r.seeds {
		t.Errorf("%s ran on %d seeds, want %d\n%s", scenario, n, r.seeds, r.stderr)
	}
}

// judge runs the idemchaos CLI's matrix against p, as a user would: the
// scenarios named (comma-separated; "" for every scenario), seeds
// 1..seeds, saved in a run directory, the JSON document on stdout; it logs
// the verdicts under label and checks the exit code.
func (p paysvc) judge(t *testing.T, label string, exit int, scenarios string, seeds int, extra ...string) serviceRun {
	t.Helper()
	args := []string{"--seed", "1", "--seeds", strconv.Itoa(seeds)}
	if scenarios != "" {
		args = append(args, "--scenarios", scenarios)
	}
	return p.cli(t, label, exit, "matrix", seeds, append(args, extra...))
}

// run runs the idemchaos CLI's run against p, as a user would: scenario
// on seed, saved in a run directory, the JSON document on stdout; it logs
// the verdict under label and checks the exit code.
func (p paysvc) run(t *testing.T, label string, exit int, scenario string, seed int, extra ...string) serviceRun {
	t.Helper()
	return p.cli(t, label, exit, "run", 1, append([]string{"--scenario", scenario, "--seed", strconv.Itoa(seed)}, extra...))
}

// cli runs the idemchaos command against p with args, expecting seeds
// results.
func (p paysvc) cli(t *testing.T, label string, exit int, command string, seeds int, args []string) serviceRun {
	t.Helper()
	r := serviceRun{out: filepath.Join(t.TempDir(), "run"), seeds: seeds}
	base := []string{command, "--quiet", "--target-url", p.url, "--ledger-url", p.dsn, "--ledger-query", paysvcQuery,
		"--json", "-", "--out", r.out}
	start := time.Now()
	r.outcome = cliEnv(t, nil, append(base, args...)...)
	r.took = time.Since(start)
	r.doc = readDoc(t, r.outcome)
	t.Logf("%s: %s", label, r.summary())
	if r.code != exit {
		t.Errorf("%s: exit %d, want %d\nstderr:\n%s", label, r.code, exit, r.stderr)
	}
	return r
}

// TestServiceRerenderedReplays: a service that rebuilds each replay from
// its ledger row with a fresh created timestamp fails (as JSON, field
// created differs) wherever a replay is seen (after a dropped response,
// the replay probes; a duplicate that got 409, its retry), and passes
// once told to leave created out.
func TestServiceRerenderedReplays(t *testing.T) {
	t.Parallel()
	seeds := serviceSeeds(t)
	p := startPaysvc(t, "--mistake", "rerender")
	const scs = "dropped-response,concurrent-duplicates"
	r := p.judge(t, "rerender, as JSON", exitViolated, scs, seeds, atFloor()...)
	r.expect(t, "dropped-response", "fail", "replay_mismatch")
	r.expect(t, "concurrent-duplicates", "fail", "replay_mismatch")
	if !strings.Contains(r.stdout, "field created differs") {
		t.Errorf("no evidence naming the created field:\n%s", r.stdout)
	}

	r = p.judge(t, "rerender, as JSON without created", exitPass, scs, seeds, atFloor("--replay-ignore", "created")...)
	r.expect(t, "dropped-response", "pass", "")
	r.expect(t, "concurrent-duplicates", "pass", "")
}

// TestServiceHeldDuplicates: a service whose duplicates wait for the
// charge in flight and then replay (the source text's worst mistake)
// fails concurrent-duplicates with held_duplicate under ietf, judged from
// the client's timings, and passes under a profile that declares
// in_flight: wait.
func TestServiceHeldDuplicates(t *testing.T) {
	t.Parallel()
	seeds := serviceSeeds(t)
	p := startPaysvc(t, "--mistake", "wait", "--charge-time", "300ms")
	r := p.judge(t, "wait under ietf", exitViolated, "concurrent-duplicates", seeds, atFloor()...)
	r.expect(t, "concurrent-duplicates", "fail", "held_duplicate")
	if !strings.Contains(r.stdout, "(the client's timings)") {
		t.Errorf("the evidence does not say it was judged on the client's timings:\n%s", r.stdout)
	}

	profile := filepath.Join(t.TempDir(), "waits.yaml")
	if err := os.WriteFile(profile, []byte("name: waits-by-design\nin_flight: wait\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = p.judge(t, "wait under in_flight: wait", exitPass, "concurrent-duplicates", seeds, atFloor("--profile", profile)...)
	r.expect(t, "concurrent-duplicates", "pass", "")
}

// TestServiceTooEarly: a service that answers a duplicate in flight 425
// Too Early (the source text's "409 Conflict (or 425 Too Early)") fails
// concurrent-duplicates with status_contract under ietf, whose in-flight
// status is 409 alone, and passes under a profile file whose in-flight set
// is [409, 425]; each seed's run is idemchaos run, as a user runs it, and
// its duplicates really met the key in flight (got 425) and were retried,
// as a 409 is.
func TestServiceTooEarly(t *testing.T) {
	t.Parallel()
	seeds := max(2, serviceSeeds(t)) // a subtest a seed: make test keeps its two
	p := startPaysvc(t, "--mistake", "too-early", "--charge-time", "100ms")
	profile := filepath.Join(t.TempDir(), "too-early.yaml")
	if err := os.WriteFile(profile, []byte("name: too-early\nin_flight: [409, 425]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := p.run(t, "too-early under ietf", exitViolated, "concurrent-duplicates", seed, atFloor()...)
			r.expect(t, "concurrent-duplicates", "fail", "status_contract")
			if !strings.Contains(r.stdout, "got 425") || !strings.Contains(r.stdout, "the ietf profile answers 409 at once to a duplicate in flight") {
				t.Errorf("the evidence does not name the 425 against ietf's 409:\n%s", r.stdout)
			}
			r = p.run(t, "too-early under in_flight: [409, 425]", exitPass, "concurrent-duplicates", seed, atFloor("--profile", profile)...)
			r.expect(t, "concurrent-duplicates", "pass", "")
			_, h := savedCell(t, r.out, "concurrent-duplicates", uint64(seed))
			tries := map[[2]int]bool{}
			for _, a := range h.Attempts {
				tries[[2]int{a.Op, a.Try}] = true
			}
			early, retried := 0, 0
			for _, a := range h.Attempts {
				if a.Status == 425 {
					early++
					if tries[[2]int{a.Op, a.Try + 1}] {
						retried++
					}
				}
			}
			t.Logf("seed %d: %d of %d attempts got 425 under the profile, %d of them retried", seed, early, len(h.Attempts), retried)
			if early == 0 || retried == 0 {
				t.Errorf("seed %d: %d duplicates got 425, %d retried: the pass proves nothing of the set", seed, early, retried)
			}
		})
	}
}

// TestServiceLateCharges: a service that answers 201 first and commits its
// row 1.5 s later, recording the key only then, double-charges every retry
// sent meanwhile; those rows land after the client is done, and the
// ledger is read until it settles, so the double charges are all there:
// once the service has drained, the database holds no row for a cell's
// keys that the run did not judge.
func TestServiceLateCharges(t *testing.T) {
	t.Parallel()
	seeds := serviceSeeds(t)
	p := startPaysvc(t, "--mistake", "late", "--late", "1500ms")
	r := p.judge(t, "late", exitViolated, "dropped-response,retry-storm", seeds)
	// each retry made a charge of its own: its answer names it, not the
	// one the key's replays give back once a row has committed
	r.expect(t, "dropped-response", "fail", "double_charge", "replay_mismatch")
	r.expect(t, "retry-storm", "fail", "double_charge", "replay_mismatch")
	if err := p.stop(); err != nil { // every answered row committed
		t.Fatal(err)
	}
	db := openPool(t, p.dsn)
	for _, c := range r.doc.Results {
		obs := observed(t, r.out, c.Scenario, c.Seed)
		ledger, h := savedCell(t, r.out, c.Scenario, c.Seed)
		judged := len(ledger.Charges)
		var rows, extra int
		if err := db.QueryRow(context.Background(), `SELECT count(*), count(*) - count(DISTINCT (account, idempotency_key))
			FROM charges WHERE idempotency_key = ANY($1)`, keysOf(h)).Scan(&rows, &extra); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s seed %d: settled %s after the last request; %d rows judged, %d in the drained ledger; double_charge %d, extra rows %d",
			c.Scenario, c.Seed, obs.Settled.Round(time.Millisecond), judged, rows, c.Anomalies["double_charge"], extra)
		if judged != rows || c.Anomalies["double_charge"] != extra || obs.Unsettled {
			t.Errorf("%s seed %d: the run judged %d rows (%d double charges, unsettled %v); the drained ledger holds %d (%d extra)",
				c.Scenario, c.Seed, judged, c.Anomalies["double_charge"], obs.Unsettled, rows, extra)
		}
		if obs.Settled < time.Second {
			t.Errorf("%s seed %d: settled %s after the last request, before the late rows (1.5 s) could land", c.Scenario, c.Seed, obs.Settled)
		}
	}
}

// openPool connects to a paysvc's database, for the test's own reads.
func openPool(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// savedCell reads the ledger the run judged and the history of a saved
// cell of a user's service.
func savedCell(t *testing.T, out, scenario string, seed uint64) (history.Ledger, history.History) {
	t.Helper()
	return savedCellOf(t, out, scenarios.DefaultExternalName, scenario, seed)
}

// savedCellOf is savedCell for the cell of target (a strategy's name, or
// a user's service's).
func savedCellOf(t *testing.T, out, target, scenario string, seed uint64) (history.Ledger, history.History) {
	t.Helper()
	dir := filepath.Join(out, "cells", target, scenario, fmt.Sprintf("seed-%d", seed))
	var l history.Ledger
	b, err := os.ReadFile(filepath.Join(dir, rundir.LedgerFile))
	if err == nil {
		err = json.Unmarshal(b, &l)
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, rundir.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := history.ReadJSONL(f)
	if err != nil {
		t.Fatal(err)
	}
	return l, h
}

// keysOf are the keys a history's requests carried.
func keysOf(h history.History) []string {
	var keys []string
	for _, a := range h.Attempts {
		if a.Key != "" && !slices.Contains(keys, a.Key) {
			keys = append(keys, a.Key)
		}
	}
	return keys
}

// correctSlowMinimum are the scenarios that run against any service.
// (client-timeout-retry adapted to the service's measured charge).
var correctSlowMinimum = []string{"concurrent-duplicates", "dropped-response", "payload-mismatch", "client-timeout-retry", "missing-key", "retry-storm"}

// TestServiceCorrectAndSlow: a correct service whose charge takes 300 ms
// (longer than retry-storm's per-try timeout: its first tries time out
// while the server works) passes every scenario that runs against it; the
// others are skipped, each with its reason.
func TestServiceCorrectAndSlow(t *testing.T) {
	t.Parallel()
	seeds := serviceSeeds(t)
	p := startPaysvc(t, "--mistake", "none", "--charge-time", "300ms")
	r := p.judge(t, "correct and slow", exitPass, "", seeds, atFloor()...)
	ran := map[string]bool{}
	for _, c := range r.doc.Results {
		ran[c.Scenario] = true
	}
	for _, name := range correctSlowMinimum {
		if !ran[name] {
			t.Errorf("%s did not run", name)
		}
	}
	for name := range ran {
		r.expect(t, name, "pass", "")
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ { // the slowness was exercised
		_, h := savedCell(t, r.out, "retry-storm", seed)
		var timedOut, inFlight int
		for _, a := range h.Attempts {
			switch {
			case a.Outcome == history.Indeterminate && a.Status == 0 && a.Fault == "":
				timedOut++
			case a.Status == 409:
				inFlight++
			}
		}
		t.Logf("retry-storm seed %d: %d tries timed out while the service charged, %d got 409 in flight", seed, timedOut, inFlight)
		if timedOut == 0 || inFlight == 0 {
			t.Errorf("retry-storm seed %d: %d timeouts, %d answers 409: the charge did not outlast the client's tries", seed, timedOut, inFlight)
		}
	}
	for _, s := range r.doc.Skipped {
		if ran[s.Scenario] || strings.TrimSpace(s.Reason) == "" {
			t.Errorf("skipped %s: %q; want a scenario that did not run, with its reason", s.Scenario, s.Reason)
		}
	}
	if n := len(scenarios.Names()); len(ran)+len(r.doc.Skipped) != n {
		t.Errorf("%d scenarios ran and %d were skipped; want the %d of the catalog", len(ran), len(r.doc.Skipped), n)
	}
}

// lockExpiryCatchers are the scenarios that catch, from outside, a claim
// that expires during the charge (short-claim): their retries keep coming
// while the charge runs, some after the claim's TTL, and take the key
// again; client-timeout-retry by design, its client timed out inside the
// measured charge and its retries kept coming for about twice its length.
var lockExpiryCatchers = []string{"concurrent-duplicates", "client-timeout-retry", "retry-storm"}

// expectLockExpiryCaught fails unless scenario caught the lock expiry on
// every seed: a double charge (and, where a client saw both, the second
// charge's answer where the key's replay was due: replay_mismatch).
func expectLockExpiryCaught(t *testing.T, r serviceRun, scenario string) {
	t.Helper()
	r.expect(t, scenario, "fail", "double_charge", "replay_mismatch")
}

// TestServiceShortClaim: a service whose claim (250 ms) is shorter than
// its charge (600 ms) lets a retry take the key during the charge and
// charge again: lock expiry, caught as a double charge.
func TestServiceShortClaim(t *testing.T) {
	t.Parallel()
	seeds := serviceSeeds(t)
	p := startPaysvc(t, "--mistake", "short-claim", "--charge-time", "600ms", "--claim-ttl", "250ms")
	r := p.judge(t, "short-claim", exitViolated, strings.Join(lockExpiryCatchers, ","), seeds,
		atFloor("--claim-timeout", "250ms", "--settle", "3s")...)
	for _, name := range lockExpiryCatchers {
		expectLockExpiryCaught(t, r, name)
	}
	if len(r.doc.Skipped) > 0 {
		t.Errorf("skipped %+v; want every lock-expiry scenario run", r.doc.Skipped)
	}
}

// TestServiceNeverAnsweredInTimeIsJudged: a claim shorter than
// retry-storm's per-try timeout plus its first backoff lets every retry
// take the key again, and none is answered in time; the ledger's charges
// under the run's fresh keys prove the service worked, so the run is
// judged (the double charges), not taken for a service that is down.
func TestServiceNeverAnsweredInTimeIsJudged(t *testing.T) {
	t.Parallel()
	p := startPaysvc(t, "--mistake", "short-claim", "--charge-time", "600ms", "--claim-ttl", "150ms")
	r := p.judge(t, "short-claim, claim 150ms", exitViolated, "retry-storm", 1, "--claim-timeout", "150ms", "--settle", "3s")
	r.expect(t, "retry-storm", "fail", "double_charge", "replay_mismatch")
}
