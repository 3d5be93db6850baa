package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
)

// failpointSeeds is how many seeds forced-race runs against paymentd
// --failpoints --strategy redis-getset: IDEMCHAOS_FAILPOINT_SEEDS (the long
// form: 20), else 6 (3 with -short).
func failpointSeeds(t *testing.T) int {
	if testing.Short() {
		return envCount(t, "IDEMCHAOS_FAILPOINT_SEEDS", 3)
	}
	return envCount(t, "IDEMCHAOS_FAILPOINT_SEEDS", 6)
}

// envCount is the positive count in the environment variable name, else def.
func envCount(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive count", name, s)
	}
	return n
}

// matrixDoc is the part of the JSON document these tests read.
type matrixDoc struct {
	Results []struct {
		Scenario    string         `json:"scenario"`
		Seed        uint64         `json:"seed"`
		Verdict     string         `json:"verdict"`
		Anomalies   map[string]int `json:"anomalies"`
		Assumptions []string       `json:"assumptions"`
		DurationMS  int64          `json:"duration_ms"`
	} `json:"results"`
	Skipped []struct {
		Scenario, Reason string
	} `json:"skipped"`
}

func readDoc(t *testing.T, o outcome) matrixDoc {
	t.Helper()
	var doc matrixDoc
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("no JSON document (%v):\nstdout:\n%s\nstderr:\n%s", err, o.stdout, o.stderr)
	}
	return doc
}

// observed reads what a saved cell of the target observed.
func observed(t *testing.T, out, scenario string, seed uint64) scenarios.Observation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "cells", scenarios.DefaultExternalName, scenario, fmt.Sprintf("seed-%d", seed), "observation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec scenarios.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Obs
}

// TestTargetFailpointsForcedRaceRedisGetset: paymentd --failpoints speaks
// the protocol, so the harness's gate holds request A after its key check,
// in another process, until B has been answered: redis-getset double-charges
// on every seed.
func TestTargetFailpointsForcedRaceRedisGetset(t *testing.T) {
	t.Parallel()
	seeds := failpointSeeds(t)
	p := startPaymentd(t, "redis-getset", "--failpoints")
	out := t.TempDir()
	start := time.Now()
	o := cliEnv(t, nil, "matrix", "--quiet", "--target-url", p.url, "--ledger-url", p.ledgerURL, "--ledger-query", p.ledgerQuery,
		"--failpoints", "--scenarios", "forced-race", "--seed", "1", "--seeds", strconv.Itoa(seeds), "--json", "-", "--out", out)
	t.Logf("forced-race x %d seeds against paymentd --failpoints --strategy redis-getset: %s", seeds, time.Since(start).Round(time.Millisecond))
	if o.code != exitViolated {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	doc := readDoc(t, o)
	if len(doc.Results) != seeds {
		t.Fatalf("%d results, want %d", len(doc.Results), seeds)
	}
	for _, r := range doc.Results {
		if r.Verdict != "fail" || r.Anomalies["double_charge"] == 0 {
			t.Errorf("seed %d: %s with %v; want fail with double_charge", r.Seed, r.Verdict, r.Anomalies)
		}
		obs := observed(t, out, "forced-race", r.Seed)
		t.Logf("seed %2d: %s, double_charge %d, gate held %d, %d points traced, %d ms", r.Seed, r.Verdict,
			r.Anomalies["double_charge"], obs.GateHeld, len(obs.Trace), r.DurationMS)
		if obs.GateHeld == 0 || len(obs.Trace) == 0 {
			t.Errorf("seed %d: the gate held %d requests, %d points traced; want both recorded", r.Seed, obs.GateHeld, len(obs.Trace))
		}
		gated := 0
		for _, e := range obs.Trace {
			switch {
			case e.Left < e.At:
				t.Errorf("seed %d: %s left %s at %v, before it arrived at %v", r.Seed, e.Attempt, e.Point, e.Left, e.At)
			case e.Point == "after-check" && e.Left > e.At:
				gated++
			}
		}
		if gated == 0 {
			t.Errorf("seed %d: no request is recorded as held at after-check, though the gate held %d", r.Seed, obs.GateHeld)
		}
	}
	if !strings.Contains(o.stdout, "--failpoints") {
		t.Errorf("the repro lines lack --failpoints:\n%s", o.stdout)
	}
	one := runAgainst(t, p, "--failpoints", "--scenario", "forced-race", "--seed", strconv.Itoa(seeds+1))
	if one.code != exitViolated || !strings.Contains(one.stdout, "double_charge") || !strings.Contains(one.stdout, "--scenario forced-race --seed "+strconv.Itoa(seeds+1)+" --failpoints") {
		t.Errorf("idemchaos run: exit %d, want 1 with the double charge and a repro line with --failpoints:\n%s\n%s", one.code, one.stdout, one.stderr)
	}
}

// TestTargetFailpointsCorrectServicePassesEveryScenario: paymentd
// --failpoints --strategy redis-pg-guard (correct, on both stores), three
// replicas on one ledger whose Postgres and Redis traffic goes through the
// user's Toxiproxy, started with short TTLs that the run declares, funded
// through its top-up endpoint: every scenario of the catalog runs, none is
// skipped, and every one passes, each store cut met by the service's
// traffic. (pg-tx, which never uses Redis, is inconclusive under
// redis-fault-after-commit: TestTargetStoreCutCountsOnlyWhereTheServiceMetIt.)
func TestTargetFailpointsCorrectServicePassesEveryScenario(t *testing.T) {
	t.Parallel()
	toxi, err := fault.Embedded() // stands for the user's Toxiproxy
	if err != nil {
		t.Fatal(err)
	}
	defer toxi.Close()
	direct, err := services.CreateDatabase(context.Background(), "paymentd")
	if err != nil {
		t.Fatal(err)
	}
	defer services.DropDatabase(context.Background(), direct)
	pgURL, _ := url.Parse(direct)
	redisURL, _ := url.Parse(services.RedisURL)
	pgLink, err := toxi.Link("fp-user-pg", pgURL.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer pgLink.Close()
	redisLink, err := toxi.Link("fp-user-redis", redisURL.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer redisLink.Close()
	viaPG, viaRedis := *pgURL, *redisURL
	viaPG.Host, viaRedis.Host = pgLink.Listen, redisLink.Listen
	var urls []string
	var p paymentd
	for range 3 {
		p = startPaymentdOn(t, "redis-pg-guard", viaPG.String(), "--failpoints", "--redis-url", viaRedis.String(),
			"--claim-ttl", "250ms", "--key-ttl", "250ms")
		urls = append(urls, p.url)
	}
	out := t.TempDir()
	start := time.Now()
	o := cliEnv(t, nil, "matrix", "--quiet", "--target-url", strings.Join(urls, ","), "--ledger-url", direct, "--ledger-query", p.ledgerQuery,
		"--failpoints", "--toxiproxy-url", toxi.URL, "--postgres-proxy", pgLink.Name, "--redis-proxy", redisLink.Name,
		"--claim-timeout", "250ms", "--key-ttl", "250ms", "--topup-path", paymentdTopUp, "--json", "-", "--out", out)
	t.Logf("%d scenarios against paymentd --failpoints --strategy redis-pg-guard: %s", len(scenarios.Names()), time.Since(start).Round(time.Millisecond))
	doc := readDoc(t, o)
	if o.code != exitPass {
		t.Errorf("exit %d, want 0\nstderr:\n%s", o.code, o.stderr)
	}
	ran := map[string]bool{}
	for _, s := range doc.Skipped {
		if sc, _ := scenarios.Lookup(s.Scenario); !sc.BuiltinOnly() && !sc.ServiceOnly {
			t.Errorf("skipped %s: %s", s.Scenario, s.Reason)
		}
		ran[s.Scenario] = true
	}
	for _, r := range doc.Results {
		ran[r.Scenario] = true
		obs := observed(t, out, r.Scenario, r.Seed)
		t.Logf("%-24s %s (injected %d, gate held %d, %d points traced, %d ms%s)", r.Scenario, r.Verdict, obs.Injected,
			obs.GateHeld, len(obs.Trace), r.DurationMS, cutsMet(obs.Cuts))
		if r.Verdict != "pass" {
			t.Errorf("%s: %s, anomalies %v, assumptions %q", r.Scenario, r.Verdict, r.Anomalies, r.Assumptions)
		}
	}
	for _, name := range scenarios.Names() {
		if !ran[name] {
			t.Errorf("%s did not run", name)
		}
	}
	if obs := observed(t, out, "forced-race", 1); obs.GateHeld == 0 {
		t.Errorf("forced-race: the gate never held a request")
	}
	for _, name := range []string{"client-timeout-retry", "slow-charge", "db-fault-mid-request", "redis-fault-after-commit"} {
		if obs := observed(t, out, name, 1); obs.Injected == 0 {
			t.Errorf("%s: no planned fault fired at a point", name)
		}
	}
}

// TestTargetFailpointsServiceThatDoesNotSpeakIt: --failpoints against a
// service that ignores the header is said plainly, never judged.
func TestTargetFailpointsServiceThatDoesNotSpeakIt(t *testing.T) {
	p := startPaymentd(t, "pg-tx") // no --failpoints
	o := runAgainst(t, p, "--failpoints", "--scenario", "forced-race", "--seed", "1")
	if o.code != exitEnv || !strings.Contains(o.stderr, "never called the control URL") {
		t.Errorf("exit %d, stderr %q; want exit 3 saying the service never called the control URL", o.code, o.stderr)
	}
}
