package scenarios

import (
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/targets/api"
)

// short timeouts for the fault scenarios: the claim outlives a normal charge
// by far, and a probe waits only this long after the faults heal.
const (
	shortClaim = 250 * time.Millisecond
	shortTry   = 200 * time.Millisecond
)

var catalog = []Scenario{
	{Name: "concurrent-duplicates", Doc: "K same-key, same-body requests released together by a barrier, over many trials",
		Reveals: "check-then-act races; the 409 contract", Plan: planConcurrent, Assume: assumeOverlap, Exercise: exOverlap, Hunts: true, ProbeHolds: true},
	{Name: "forced-race", Doc: "a gate holds request A after its key check until B has been answered: the race on every run",
		Reveals: "the check-then-act race, deterministically", Plan: planForcedRace, Assume: assumeGateEngaged, Exercise: exGate,
		Gate: &GateSpec{Hold: api.AfterCheck, Timeout: time.Second}},
	{Name: "dropped-response", Doc: "the response is dropped by Toxiproxy after the server committed; the client retries the same key",
		Reveals: "missing or per-replica idempotency", Plan: planDropped, Assume: assumeFaultFired, Exercise: exCommitted},
	{Name: "payload-mismatch", Doc: "a retry with the same key and a changed amount",
		Reveals: "a missing request fingerprint", Plan: planMismatch, Exercise: exMismatch},
	{Name: "db-fault-mid-request", Doc: "the app-to-Postgres link is cut before the charge commits, then healed; the client retries",
		Reveals: "poisoned keys: claims never released, cached 5xx, keys stuck in progress", Plan: planDBFault, Exercise: exHidden,
		Assume: assumeInjected, Probe: true, Target: Target{ClaimTTL: shortClaim}},
	{Name: "redis-fault-after-commit", Doc: "the app-to-Redis link is cut right after the Postgres commit and the response is lost; the client retries",
		Reveals: "Redis/Postgres desync and the double charge it causes", Plan: planStoreFault(api.RedisCut), Exercise: exCommitted,
		Assume: assumeInjected, Probe: true, Target: Target{ClaimTTL: shortClaim}},
	{Name: "dynamodb-fault-after-commit", Doc: "the app-to-DynamoDB link is cut right after the Postgres commit and the response is lost; the client retries",
		Reveals: "DynamoDB/Postgres desync and the double charge it causes", Plan: planStoreFault(api.DynamoDBCut), Exercise: exCommitted,
		Assume: assumeInjected, Probe: true, Target: Target{ClaimTTL: shortClaim}, ServiceOnly: true},
	{Name: "db-fault-after-commit", Doc: "the answer to the charge's COMMIT is lost on the app-to-database link: the charge committed, the app only sees its connection break; the client retries",
		Reveals: "a commit of unknown outcome taken for a failure: the claim released or the error stored, the retry charged again",
		Plan:    planDBFaultAfterCommit, Exercise: exCommitted, Assume: assumeInjected, Probe: true, Target: Target{ClaimTTL: shortClaim}},
	{Name: "slow-charge", Doc: "latency on the app-to-Postgres link makes the charge outlive the claim TTL; retries arrive meanwhile",
		Reveals: "lock expiry", Plan: planSlowCharge, Assume: assumeInjected, Target: Target{ClaimTTL: shortClaim}, Exercise: exCrossedTTL,
		Policy: client.Policy{PerTry: 150 * time.Millisecond, Backoff: 40 * time.Millisecond, MaxBackoff: 80 * time.Millisecond}},
	{Name: "replica-fanout", Doc: "3 replicas, tries routed round robin: a retry lands on another replica after its response was dropped",
		Reveals: "per-process idempotency state", Plan: planFanout, Assume: assumeFaultFired, Target: Target{Replicas: 3},
		Exercise: exOtherReplica},
	{Name: "client-timeout-retry", Doc: "the client times out while the server still works: retries get 409 while in flight, then the replay",
		Reveals: "the 409-then-replay contract; races on in-flight keys", Plan: planClientTimeout, Assume: assumeInjected, Exercise: exInFlight,
		Outlast: true,
		Policy:  client.Policy{PerTry: 80 * time.Millisecond, Backoff: 30 * time.Millisecond, MaxBackoff: 60 * time.Millisecond}},
	{Name: "missing-key", Doc: "POST without the Idempotency-Key header",
		Reveals: "the profile's status for a missing key", Plan: planMissingKey, Exercise: exKeyless},
	{Name: "key-expiry", Doc: "a retry sent after the key's TTL (informational: it may execute again, as documented)",
		Reveals: "the documented retention window", Plan: planKeyExpiry, Target: Target{KeyTTL: 250 * time.Millisecond}, Exercise: exExpired},
	{Name: "business-refusal", Doc: "a charge larger than the balance is declined (402); the account is funded; the same key and body are retried, once on another replica, then by 3 clients together",
		Reveals: "a key layer that keeps only 2xx answers: declined, then charged; a claim that outlives a refusal", Plan: planRefusal,
		Exercise: exDeclined, Target: Target{Replicas: 2, Spread: true}},
	{Name: "pg-standby-lag", Doc: "the primary-to-standby replication link turns slow; responses are dropped and retries of completed keys come while the hot standby is behind",
		Reveals: "an idempotency look-up on a lagging read replica", Plan: planStandbyLag, Replicated: true, Exercise: exStandbyBehind,
		Assume: func(o Observation) []string { return append(assumeInjected(o), assumeStandbyBehind(o)...) },
		Policy: standbyPolicy},
	{Name: "pg-async-commit-crash", Doc: "the Postgres primary is killed (SIGKILL) right after a commit, before the answer, and restarted; every key is retried after the restart",
		Reveals: "commits acknowledged with synchronous_commit = off, lost in a crash", Plan: planAsyncCrash, Replicated: true, Exercise: exCrashLost,
		Assume: func(o Observation) []string { return append(assumeInjected(o), assumeCrashLost(o)...) },
		Policy: client.Policy{PerTry: 5 * time.Second, Backoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}},
	{Name: "redis-failover", Doc: "keys charged, the replication link cut, more keys charged on the primary alone, the primary SIGKILLed and the replica promoted by Sentinel; every key retried",
		Reveals: "claims and stored responses lost with the acknowledged writes of an asynchronous replica", Plan: failoverPlan,
		Assume: assumeFailover, Failover: true, Exercise: exFailedOver},
	{Name: "retry-storm", Doc: "many keys, dropped responses and slow requests placed from the seed, jittered backoff; bounded in count and time",
		Reveals: "everything, statistically", Plan: planStorm, Assume: assumeInjected, Exercise: exHidden,
		Policy: client.Policy{PerTry: shortTry, Backoff: 20 * time.Millisecond, MaxBackoff: 160 * time.Millisecond}},
}
