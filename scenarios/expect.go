package scenarios

import (
	"slices"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// This file is the track record: what every built-in strategy must show
// under every scenario, and which cells the demos tell. A flawed strategy
// that stops being caught is a regression of the harness.

// expected declares, per strategy, the scenarios it must fail and the
// anomalies that must show there. A strategy absent from a scenario's row
// must pass it.
var expected = map[string]map[string][]check.Anomaly{
	"none": {
		"concurrent-duplicates":    {check.DoubleCharge},
		"forced-race":              {check.DoubleCharge},
		"dropped-response":         {check.DoubleCharge},
		"payload-mismatch":         {check.DoubleCharge, check.MismatchExecuted},
		"db-fault-mid-request":     {check.DoubleCharge}, // the probe charges again
		"redis-fault-after-commit": {check.DoubleCharge},
		"slow-charge":              {check.DoubleCharge},
		"replica-fanout":           {check.DoubleCharge},
		"client-timeout-retry":     {check.DoubleCharge},
		"missing-key":              {check.StatusContract},
		"key-expiry":               {check.DoubleCharge}, // the replay probes after the traffic charge again
		"business-refusal":         {check.RefusalNotReplayed},
		"redis-failover":           {check.DoubleCharge},
		"retry-storm":              {check.DoubleCharge},
		"pg-standby-lag":           {check.DoubleCharge},
		"pg-async-commit-crash":    {check.DoubleCharge}, // the replay probes charge again
	},
	"memory": {
		"replica-fanout": {check.DoubleCharge},
	},
	"redis-getset": {
		"concurrent-duplicates":    {check.DoubleCharge},
		"forced-race":              {check.DoubleCharge},
		"redis-fault-after-commit": {check.DoubleCharge},
		"slow-charge":              {check.DoubleCharge},
		"client-timeout-retry":     {check.DoubleCharge},
		"retry-storm":              {check.DoubleCharge},
		"redis-failover":           {check.DoubleCharge}, // the claim or stored response died with the primary
	},
	"redis-setnx": {
		"redis-fault-after-commit": {check.DoubleCharge, check.StoreDesync},
		"slow-charge":              {check.DoubleCharge},
		"redis-failover":           {check.DoubleCharge}, // the claim or stored response died with the primary
	},
	"redis-sticky": {
		"db-fault-mid-request":     {check.StuckKey},
		"redis-fault-after-commit": {check.StuckKey, check.StoreDesync},
		"redis-failover":           {check.DoubleCharge}, // the claim or stored response died with the primary
	},
	"redis-cache-errors": {
		"db-fault-mid-request":     {check.CachedError},
		"redis-fault-after-commit": {check.DoubleCharge, check.StoreDesync},
		"slow-charge":              {check.DoubleCharge},
		"redis-failover":           {check.DoubleCharge}, // the claim or stored response died with the primary
	},
	"pg-split-tx": {
		"db-fault-mid-request": {check.StuckKey},
	},
	"pg-nofingerprint": {
		"payload-mismatch": {check.MismatchExecuted},
	},
	// Every duplicate that meets the first request's open transaction waits
	// on its INSERT. slow-charge passes: the charge outlives the claim
	// timeout there, and a wait past the claim is not judged a hold.
	"pg-blocking-claim": {
		"concurrent-duplicates": {check.HeldDuplicate},
		"forced-race":           {check.HeldDuplicate},
		"client-timeout-retry":  {check.HeldDuplicate},
		"retry-storm":           {check.HeldDuplicate},
	},
	"pg-success-only": {
		"business-refusal": {check.RefusalNotReplayed},
	},
	// Without a standby (every other scenario) it reads the primary: its
	// look-up then charge is redis-getset's check-then-act race.
	"pg-standby-read": {
		"concurrent-duplicates": {check.DoubleCharge},
		"forced-race":           {check.DoubleCharge},
		"slow-charge":           {check.DoubleCharge},
		"client-timeout-retry":  {check.DoubleCharge},
		"pg-standby-lag":        {check.DoubleCharge},
		"retry-storm":           {check.DoubleCharge},
	},
	"pg-async-commit": {
		"pg-async-commit-crash": {check.LostAck},
	},
	// The debit commits in a first transaction: the cut before the second
	// commits rolls back the charge row and the key, not the money, and the
	// retry debits again.
	"pg-split-debit": {
		"db-fault-mid-request": {check.Balance},
	},
}

// mustNot lists anomalies a cell must not show even when it fails: a poisoned
// key is bad, but it must never be mistaken for a double charge.
var mustNot = map[string]map[string][]check.Anomaly{
	"redis-sticky":       {"db-fault-mid-request": {check.DoubleCharge}},
	"redis-cache-errors": {"db-fault-mid-request": {check.DoubleCharge}},
	"pg-split-tx":        {"db-fault-mid-request": {check.DoubleCharge}},
	// held, then replayed: slow, never charged twice
	"pg-blocking-claim": {
		"concurrent-duplicates": {check.DoubleCharge}, "forced-race": {check.DoubleCharge},
		"client-timeout-retry": {check.DoubleCharge}, "retry-storm": {check.DoubleCharge},
	},
	// the top-up funds one charge of the declined amount, never two
	"pg-success-only": {"business-refusal": {check.DoubleCharge}},
	// debited twice but one charge row: the key held, the balance did not
	"pg-split-debit": {"db-fault-mid-request": {check.DoubleCharge}},
	"none":           {"business-refusal": {check.DoubleCharge}},
}

// demoStrategy is the strategy each scenario's demo shows by default: the
// one whose flaw it shows best.
var demoStrategy = map[string]string{
	"concurrent-duplicates":    "redis-getset",
	"forced-race":              "redis-getset",
	"dropped-response":         "none",
	"payload-mismatch":         "pg-nofingerprint",
	"db-fault-mid-request":     "redis-sticky",
	"redis-fault-after-commit": "redis-setnx",
	"slow-charge":              "redis-setnx",
	"replica-fanout":           "memory",
	"client-timeout-retry":     "redis-getset",
	"missing-key":              "none",
	"key-expiry":               "redis-setnx",
	"business-refusal":         "pg-success-only",
	"redis-failover":           "redis-setnx",
	"retry-storm":              "none",
	"pg-standby-lag":           "pg-standby-read",
	"pg-async-commit-crash":    "pg-async-commit",
}

// Lesson is the demo that shows one anomaly class, and what the room sees.
// Every anomaly class has one: a test keeps it so.
type Lesson struct {
	Anomaly            check.Anomaly
	Scenario, Strategy string
	Shows              string
}

// lessons holds a lesson for every anomaly the checker knows, in its order.
var lessons = []Lesson{
	{check.DoubleCharge, "forced-race", "redis-getset", "both requests find the key absent; both charge"},
	{check.LostAck, "payload-mismatch", "pg-nofingerprint", "a 201 for 15.00 names the 13.00 charge of another payload"},
	{check.ReplayMismatch, "forced-race", "redis-getset", "the two clients get different charges for one key"},
	{check.MismatchExecuted, "payload-mismatch", "pg-nofingerprint", "the same key with another amount gets 201"},
	{check.Balance, "db-fault-mid-request", "pg-split-debit", "the debit commits in a first transaction; the cut rolls back the charge row and the key, not the money; the retry debits again"},
	{check.StatusContract, "missing-key", "none", "a request without a key gets 201 where ietf wants 400"},
	{check.StuckKey, "db-fault-mid-request", "redis-sticky", "the claim outlives the failed charge: the probe still gets 409"},
	{check.StoreDesync, "redis-fault-after-commit", "redis-setnx", "Postgres committed, the Redis write was lost, the retry charged again"},
	{check.CachedError, "db-fault-mid-request", "redis-cache-errors", "the 503 of the failed charge is replayed to every retry"},
	{check.HeldDuplicate, "forced-race", "pg-blocking-claim", "the gate pauses A in its transaction; B waits on A's INSERT the whole pause, then gets A's 201, not 409 at once"},
	{check.RefusalNotReplayed, "business-refusal", "pg-success-only", "A is declined (402) and the key released; the account is funded, and B's retry of the same key and body charges: told declined, then charged"},
}

// DemoStrategy is the strategy the demo of scenario shows unless told
// otherwise.
func DemoStrategy(scenario string) string { return demoStrategy[scenario] }

// Lessons lists the demo of every anomaly class, in the checker's order.
func Lessons() []Lesson { return slices.Clone(lessons) }

// Expected returns the anomalies strategy must show under scenario when the
// target promises profile; empty means it must pass. The catalog is written
// for ietf; a profile that allows what ietf forbids (no key, a replayed 5xx)
// drops the anomalies that judge it.
func Expected(strategy, scenario string, profile api.Profile) []check.Anomaly {
	var out []check.Anomaly
	for _, a := range expected[strategy][scenario] {
		if allowedBy(profile, a) {
			continue
		}
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// allowedBy reports whether profile makes anomaly a permitted behaviour in
// the catalog's cells.
func allowedBy(p api.Profile, a check.Anomaly) bool {
	switch a {
	case check.StatusContract:
		return p.MissingKey == 0 // the only status_contract the catalog declares is a missing key
	case check.CachedError:
		return p.ReplayErrors // the catalog's cached errors never moved money
	case check.HeldDuplicate:
		return p.InFlightWait // the service waits by design
	case check.RefusalNotReplayed:
		return p.RedecideRefusals // the service decides a declined key again by design: a deviation
	}
	return false
}

// matches reports whether a result is what the catalog declares.
func matches(r Result) bool {
	if len(r.Expected) == 0 {
		return r.Verdict == Pass
	}
	if r.Verdict != Fail {
		return false
	}
	for _, a := range r.Expected {
		if r.Anomalies[a] == 0 {
			return false
		}
	}
	for _, a := range mustNot[r.Strategy][r.Scenario] {
		if r.Anomalies[a] > 0 {
			return false
		}
	}
	return true
}
