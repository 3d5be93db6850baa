package scenarios

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

func TestExternalSkipsWhatNeedsInternals(t *testing.T) {
	one := External{Name: "svc", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: time.Second}
	full := one
	full.URLs = append(full.URLs, "http://127.0.0.1:2")
	full.PostgresProxy, full.RedisProxy, full.DynamoDBProxy = "pg", "redis", "dynamodb"
	full.TopUp = &TopUp{Path: "/top-ups"}
	// client-timeout-retry runs from outside (Prepare then needs the
	// service's timing); slow-charge needs the claim timeout declared short
	internal := []string{"forced-race", "slow-charge", "key-expiry", "pg-standby-lag", "pg-async-commit-crash", "redis-failover",
		"db-fault-after-commit"}
	stores := []string{"db-fault-mid-request", "redis-fault-after-commit", "dynamodb-fault-after-commit", "replica-fanout", "business-refusal"}
	for _, sc := range Catalog() {
		wantOne := slices.Contains(internal, sc.Name) || slices.Contains(stores, sc.Name)
		if got := one.Skip(sc) != ""; got != wantOne {
			t.Errorf("one URL, no proxies: %s skipped=%v, want %v (%q)", sc.Name, got, wantOne, one.Skip(sc))
		}
		if got := full.Skip(sc) != ""; got != slices.Contains(internal, sc.Name) {
			t.Errorf("two URLs and proxies: %s skipped=%v (%q)", sc.Name, got, full.Skip(sc))
		}
	}
	// the COMMIT's answer is lost at a point inside the service, on its
	// Postgres link: it takes both
	after, _ := Lookup("db-fault-after-commit")
	protocol := one
	protocol.Failpoints = true
	both := full
	both.Failpoints = true
	for _, c := range []struct {
		name, want string
		t          External
	}{{"the failpoint protocol alone", "--postgres-proxy", protocol}, {"proxies alone", "--failpoints", full}, {"both", "", both}} {
		if got := c.t.Skip(after); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: db-fault-after-commit skip %q; want %q", c.name, got, c.want)
		}
	}
}

func TestExternalAdaptsThePlan(t *testing.T) {
	e := External{URLs: []string{"http://127.0.0.1:1", "http://127.0.0.1:2"}, Accounts: []string{"A", "B"}, Currency: "USD"}
	plan := planStorm(workload.Seeded(1, "t"), Params{Replicas: 3})
	plan.Ops[0].Tries[0].Inject = api.Injection{Action: api.PGCut, Point: api.BeforeCommit}
	before := fmt.Sprint(plan.Ops)
	got := e.adapt(plan)
	if fmt.Sprint(plan.Ops) != before {
		t.Errorf("adapt changed its input")
	}
	if len(got.Accounts) != 0 {
		t.Errorf("accounts kept: the service opens its own")
	}
	for _, op := range got.Ops {
		if op.Account != "A" && op.Account != "B" || op.Currency != "USD" {
			t.Fatalf("op %d on %s %s; want the service's accounts in USD", op.ID, op.Account, op.Currency)
		}
		for _, try := range op.Tries {
			if try.Replica >= 2 || try.Inject.Action == api.Delay {
				t.Fatalf("op %d: try %+v not folded onto 2 URLs or carries a delay", op.ID, try)
			}
		}
	}
	if got.Ops[0].Tries[0].Inject.String() != "pg-cut@before-commit" {
		t.Errorf("a store cut was dropped")
	}
}

func TestExternalCheckAndRepro(t *testing.T) {
	e := External{Name: "shop", URLs: []string{"http://127.0.0.1:8080/api"}, LedgerQuery: "SELECT ref AS idempotency_key, acct AS account, cents AS amount FROM pay WHERE note <> 'x'",
		ClaimTimeout: DefaultClaimTimeout}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	e.Power = PowerGoal{Target: 500, Aim: 8000, Budget: 2 * time.Minute}
	c := Cell{Scenario: "dropped-response", Seed: 7, Target: &e}
	r := c.Repro()
	for _, want := range []string{"--target-url http://127.0.0.1:8080/api", `--ledger-url "$IDEMCHAOS_LEDGER_URL"`,
		`--ledger-query 'SELECT ref AS idempotency_key, acct AS account, cents AS amount FROM pay WHERE note <> '\''x'\'''`,
		"--scenario dropped-response --seed 7", "--target-name shop", "--power-target 500 --power-aim 8000 --power-budget 2m0s"} {
		if !strings.Contains(r, want) {
			t.Errorf("repro %q lacks %q", r, want)
		}
	}
	bad := map[string]External{
		"want http://host:port": {Name: "x", URLs: []string{"ftp://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: time.Second},
		"give the port":         {Name: "x", URLs: []string{"http://127.0.0.1"}, LedgerQuery: "q", ClaimTimeout: time.Second},
		"no ledger query":       {Name: "x", URLs: []string{"http://127.0.0.1:1"}, ClaimTimeout: time.Second},
		"claim timeout":         {Name: "x", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q"},
		"power aim":             {Name: "x", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: time.Second, Power: PowerGoal{Aim: MaxPowerTarget + 1}},
	}
	for want, b := range bad {
		if err := b.Check(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v; want %q", b, err, want)
		}
	}
}

// TestExternalSafetyRules: a target off loopback is refused unless remote
// targets are allowed (and the repro line says so), and a target's name
// must be a safe directory name, whoever builds the External.
func TestExternalSafetyRules(t *testing.T) {
	base := External{Name: "shop", LedgerQuery: "q", ClaimTimeout: time.Second}
	for _, u := range []string{"http://10.1.2.3:80", "http://example.com:8080", "http://127.0.0.1:1,http://192.168.0.1:2"} {
		e := base
		e.URLs = strings.Split(u, ",")
		if err := e.Check(); err == nil || !strings.Contains(err.Error(), "not a loopback address") {
			t.Errorf("%s: %v; want refused", u, err)
		}
		e.AllowRemote = true
		if err := e.Check(); err != nil {
			t.Errorf("%s with remote allowed: %v", u, err)
		}
		if r := (Cell{Scenario: "missing-key", Target: &e}).Repro(); !strings.HasSuffix(r, " --allow-remote") {
			t.Errorf("repro %q does not allow the remote target", r)
		}
	}
	for _, u := range []string{"http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1"} {
		e := base
		e.URLs = []string{u}
		if err := e.Check(); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, name := range []string{"", "../x", "a/b", ".", "..", "-x", strings.Repeat("a", 65), "a b"} {
		e := base
		e.Name, e.URLs = name, []string{"http://127.0.0.1:1"}
		if err := e.Check(); err == nil || !strings.Contains(err.Error(), "it names directories") {
			t.Errorf("name %q: %v; want refused", name, err)
		}
	}
}

// TestExternalSkipsWithTheFailpointProtocol: with the protocol, the gate and
// the delays run; slow-charge also needs the Postgres proxy and a claim
// shorter than its latency; key-expiry needs a short key TTL declared; the
// reasons say exactly what is missing.
func TestExternalSkipsWithTheFailpointProtocol(t *testing.T) {
	base := External{Name: "svc", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: DefaultClaimTimeout}
	fp := base
	fp.Failpoints = true
	full := fp
	full.URLs = []string{"http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"}
	full.PostgresProxy, full.RedisProxy, full.DynamoDBProxy = "pg", "redis", "dynamodb"
	full.ClaimTimeout, full.KeyTTL = 250*time.Millisecond, 250*time.Millisecond
	full.TopUp = &TopUp{Path: "/top-ups"}
	cases := []struct {
		e        External
		scenario string
		want     string // "" runs
	}{
		{base, "forced-race", "needs a gate inside the target (failpoints) to force the interleaving: give --failpoints"},
		{fp, "forced-race", ""},
		{base, "client-timeout-retry", ""}, // adapted to the service's timing: TestPrepareAdaptsToTheServiceTiming
		{fp, "client-timeout-retry", ""},
		{base, "retry-storm", ""}, // its delays are dropped: its dropped responses remain
		{fp, "retry-storm", ""},
		{base, "slow-charge", "needs 500ms of Postgres latency on the link to the service's Postgres, outliving the service's claim: --toxiproxy-url and --postgres-proxy NAME"},
		{fp, "slow-charge", "--postgres-proxy NAME"},
		{withProxy(fp), "slow-charge", "the service's claim TTL under 500ms, declared with --claim-timeout"},
		{withClaim(withProxy(base), 250*time.Millisecond), "slow-charge", ""}, // latency from outside
		{full, "slow-charge", ""},
		{fp, "key-expiry", "needs the service's key TTL at most 250ms, declared with --key-ttl"},
		{base, "key-expiry", "needs the service's key TTL at most 250ms"},
		{withKeyTTL(base, 250*time.Millisecond), "key-expiry", ""}, // no failpoints needed
		{withKeyTTL(base, time.Second), "key-expiry", "at most 250ms"},
		{fp, "db-fault-mid-request", "needs a Postgres link"},
		{full, "db-fault-mid-request", ""},
		{full, "redis-fault-after-commit", ""},
		{full, "replica-fanout", ""},
	}
	for _, c := range cases {
		sc, err := Lookup(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		got := c.e.Skip(sc)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s (failpoints %v, pg proxy %q, claim %v, key ttl %v): skip %q, want %q",
				c.scenario, c.e.Failpoints, c.e.PostgresProxy, c.e.ClaimTimeout, c.e.KeyTTL, got, c.want)
		}
	}
	for _, sc := range Catalog() {
		why := full.Skip(sc)
		if sc.BuiltinOnly() != strings.Contains(why, "built-in strategies only") {
			t.Errorf("everything given: %s skipped: %q", sc.Name, why)
		}
	}
}

func withProxy(e External) External { e.PostgresProxy = "pg"; return e }

func withClaim(e External, d time.Duration) External { e.ClaimTimeout = d; return e }

func withKeyTTL(e External, d time.Duration) External { e.KeyTTL = d; return e }

// TestExternalAdaptKeepsWhatTheProtocolCarries: with the failpoint
// protocol, delays and (with the Postgres proxy) latency stay in the plan.
func TestExternalAdaptKeepsWhatTheProtocolCarries(t *testing.T) {
	plan := planStorm(workload.Seeded(1, "t"), Params{Replicas: 1})
	plan.Ops[3].Tries[0].Inject = api.Injection{Action: api.PGLatency, Arg: 500 * time.Millisecond, Point: api.BeforeCommit}
	count := func(p workload.Plan) map[string]int {
		out := map[string]int{}
		for _, f := range p.Faults() {
			if !f.Inject.IsZero() {
				out[string(f.Inject.Action)]++
			}
		}
		return out
	}
	want := count(plan)
	if want["delay"] == 0 {
		t.Fatal("the storm plans no delay")
	}
	e := External{URLs: []string{"http://127.0.0.1:1"}}
	if got := count(e.adapt(plan)); len(got) != 0 {
		t.Errorf("without the protocol: %v carried", got)
	}
	e.Failpoints = true
	if got := count(e.adapt(plan)); got["delay"] != want["delay"] || got["pg-latency"] != 0 {
		t.Errorf("with the protocol, no Postgres proxy: %v carried; want the %d delays only", got, want["delay"])
	}
	e.PostgresProxy = "pg"
	if got := count(e.adapt(plan)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("with the protocol and a Postgres proxy: %v carried, want %v", got, want)
	}
}

func TestExternalFailpointsSavedAndRepro(t *testing.T) {
	e := External{Name: "target", URLs: []string{"http://127.0.0.1:8080"}, LedgerQuery: "q", ClaimTimeout: DefaultClaimTimeout,
		Failpoints: true}
	b, err := json.Marshal(Cell{Scenario: "forced-race", Target: &e})
	if err != nil || !strings.Contains(string(b), `"failpoints":true`) {
		t.Errorf("cell JSON %s (%v) does not say the target speaks the protocol", b, err)
	}
	var back Cell
	if err := json.Unmarshal(b, &back); err != nil || back.Target == nil || !back.Target.Failpoints {
		t.Errorf("read back: %+v (%v)", back.Target, err)
	}
	if r := (Cell{Scenario: "forced-race", Seed: 3, Target: &e}).Repro(); !strings.Contains(r, " --failpoints") {
		t.Errorf("repro %q lacks --failpoints", r)
	}
	e.Failpoints = false
	if r := (Cell{Scenario: "dropped-response", Target: &e}).Repro(); strings.Contains(r, "failpoints") {
		t.Errorf("repro %q names failpoints it was not given", r)
	}
}

// TestExternalGatedScenarioNeedsTheGate: a user's service judged under a
// scenario that forces an interleaving (through its failpoints) proves
// nothing unless the gate held a request.
func TestExternalGatedScenarioNeedsTheGate(t *testing.T) {
	e := External{Name: "shop", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: time.Second, Failpoints: true}
	c, plan, err := Prepare(Cell{Scenario: "forced-race", Seed: 1, Target: &e})
	if err != nil {
		t.Fatal(err)
	}
	res := Judge(Record{Cell: c, Plan: plan})
	if res.Verdict != Inconclusive || !strings.Contains(strings.Join(res.Assumptions, "; "), "the gate never held a request") {
		t.Fatalf("verdict %s, assumptions %q; want inconclusive: the gate never held", res.Verdict, res.Assumptions)
	}
}

// TestExternalReplayCompareSavedAndRepro: the target's replay comparison
// is saved with the cell, judged with, and shown in the repro line (the
// comparison as JSON is the command line's default: its flag is left out,
// the strict byte comparison is named).
func TestExternalReplayCompareSavedAndRepro(t *testing.T) {
	e := External{Name: "target", URLs: []string{"http://127.0.0.1:8080"}, LedgerQuery: "q", ClaimTimeout: DefaultClaimTimeout,
		Replay: check.ReplayCompare{JSON: true, Ignore: []string{"created", "meta.request_id"}}}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(Cell{Scenario: "dropped-response", Target: &e})
	if err != nil || !strings.Contains(string(b), `"replay_compare":{"json":true,"ignore":["created","meta.request_id"]}`) {
		t.Errorf("cell JSON %s (%v) lacks the comparison", b, err)
	}
	var back Cell
	if err := json.Unmarshal(b, &back); err != nil || back.Target == nil || !back.Target.Replay.JSON || len(back.Target.Replay.Ignore) != 2 {
		t.Errorf("read back: %+v (%v)", back.Target, err)
	}
	if r := (Cell{Scenario: "dropped-response", Seed: 3, Target: &e}).Repro(); !strings.HasSuffix(r, " --replay-ignore created,meta.request_id") ||
		strings.Contains(r, "--replay-compare") {
		t.Errorf("repro %q: want the ignored fields, and no --replay-compare (json is the default)", r)
	}
	e.Replay = check.ReplayCompare{}
	b, _ = json.Marshal(e)
	if r := (Cell{Scenario: "dropped-response", Target: &e}).Repro(); !strings.HasSuffix(r, " --replay-compare bytes") || strings.Contains(string(b), "replay_compare") {
		t.Errorf("byte for byte: repro %q (want --replay-compare bytes), JSON %s", r, b)
	}
	e.Replay = check.ReplayCompare{Ignore: []string{"created"}}
	if err := e.Check(); err == nil || !strings.Contains(err.Error(), "replay comparison: fields to ignore need the JSON comparison") {
		t.Errorf("fields to ignore byte for byte: %v", err)
	}
}
