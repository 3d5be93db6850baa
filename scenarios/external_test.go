package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
)

func TestExternalSkipsWhatNeedsInternals(t *testing.T) {
	one := External{Name: "svc", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: time.Second}
	full := one
	full.URLs = append(full.URLs, "http://127.0.0.1:2")
	full.PostgresProxy, full.RedisProxy = "pg", "redis"
	internal := []string{"forced-race", "slow-charge", "client-timeout-retry", "key-expiry"}
	stores := []string{"db-fault-mid-request", "redis-fault-after-commit", "replica-fanout"}
	for _, sc := range Catalog() {
		wantOne := slices.Contains(internal, sc.Name) || slices.Contains(stores, sc.Name)
		if got := one.Skip(sc) != ""; got != wantOne {
			t.Errorf("one URL, no proxies: %s skipped=%v, want %v (%q)", sc.Name, got, wantOne, one.Skip(sc))
		}
		if got := full.Skip(sc) != ""; got != slices.Contains(internal, sc.Name) {
			t.Errorf("two URLs and proxies: %s skipped=%v (%q)", sc.Name, got, full.Skip(sc))
		}
	}
}

func TestExternalAdaptsThePlan(t *testing.T) {
	e := External{URLs: []string{"http://127.0.0.1:1", "http://127.0.0.1:2"}, Accounts: []string{"A", "B"}, Currency: "USD"}
	plan := planStorm(workload.Seeded(1, "t"), Params{Replicas: 3})
	plan.Ops[0].Tries[0].Inject = "pg-cut@before-commit"
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
			if try.Replica >= 2 || strings.HasPrefix(try.Inject, "delay") {
				t.Fatalf("op %d: try %+v not folded onto 2 URLs or carries a delay", op.ID, try)
			}
		}
	}
	if got.Ops[0].Tries[0].Inject != "pg-cut@before-commit" {
		t.Errorf("a store cut was dropped")
	}
}

func TestExternalCheckAndRepro(t *testing.T) {
	e := External{Name: "shop", URLs: []string{"http://127.0.0.1:8080/api"}, LedgerQuery: "SELECT ref AS idempotency_key, acct AS account, cents AS amount FROM pay WHERE note <> 'x'",
		ClaimTimeout: DefaultClaimTimeout}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	c := Cell{Scenario: "dropped-response", Seed: 7, Target: &e}
	r := c.Repro()
	for _, want := range []string{"--target-url http://127.0.0.1:8080/api", `--ledger-url "$IDEMCHAOS_LEDGER_URL"`,
		`--ledger-query 'SELECT ref AS idempotency_key, acct AS account, cents AS amount FROM pay WHERE note <> '\''x'\'''`,
		"--scenario dropped-response --seed 7", "--target-name shop"} {
		if !strings.Contains(r, want) {
			t.Errorf("repro %q lacks %q", r, want)
		}
	}
	bad := map[string]External{
		"want http://host:port": {Name: "x", URLs: []string{"ftp://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: time.Second},
		"give the port":         {Name: "x", URLs: []string{"http://127.0.0.1"}, LedgerQuery: "q", ClaimTimeout: time.Second},
		"no ledger query":       {Name: "x", URLs: []string{"http://127.0.0.1:1"}, ClaimTimeout: time.Second},
		"claim timeout":         {Name: "x", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q"},
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
