// Package design is the catalog of the built-in strategies as designs: what
// each does with a key, the flaw it ships on purpose, the stores it keeps,
// where it replays a completed key from, and the steps a narration tells.
// It holds facts only (no I/O, no store client), so that the judge, the
// narrator, the reports and the command line read them without linking
// the strategies' Redis and Postgres code; targets/strategy builds each
// design by its name.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package design

import (
	"fmt"
	"slices"
)

// Info describes one strategy.
type Info struct {
	Name      string `json:"name"`
	Mechanism string `json:"mechanism"`
	Flaw      string `json:"flaw"` // empty for a correct design
	// Redis says it keeps idempotency records in Redis beside the
	// Postgres ledger: two stores that can disagree.
	Redis bool `json:"redis"`
	// ReplayFrom is where a completed key's answer comes from.
	ReplayFrom string `json:"replay_from"`
	// Steps is what it does with a key, as a narration tells it.
	Steps Steps `json:"-"`
}

// Where a strategy replays from.
const (
	ReplayNowhere       = "-"
	ReplayMemory        = "memory"
	ReplayRedis         = "redis"
	ReplayPostgres      = "postgres"
	ReplayRedisPostgres = "redis, else postgres"
)

// Steps are what a strategy does with a key at the failpoints it passes:
// after-check (Check), after-claim (Claim), before-store-response (Store)
// and before-commit (Debit: None is a debit in the transaction committing).
type Steps struct {
	Check, Claim, Store, Debit Step
}

// Step is one thing a strategy does with a key.
type Step string

// The steps of the built-in strategies.
const (
	None                Step = ""                      // nothing worth telling
	MemoryClaim         Step = "memory-claim"          // claims the key in the replica's memory
	MemoryStore         Step = "memory-store"          // keeps the response in the replica's memory
	RedisGet            Step = "redis-get"             // reads the key from Redis: absent
	RedisSetNX          Step = "redis-set-nx"          // claims the key in Redis with SET NX: it was free
	RedisGuard          Step = "redis-guard"           // claims the key in Redis with SET NX, for the fast 409 path only
	RedisStore          Step = "redis-store"           // stores the response in Redis
	PostgresRead        Step = "postgres-read"         // reads the key in Postgres: absent
	StandbyRead         Step = "standby-read"          // reads the key on the hot standby: absent
	PostgresLock        Step = "postgres-lock"         // takes the key's lock in Postgres, in the charge's transaction
	PostgresSessionLock Step = "postgres-session-lock" // takes the key's lock in Postgres, for the connection's session
	PostgresInProgress  Step = "postgres-in-progress"  // commits the key as in progress, in a first transaction
	PostgresInsert      Step = "postgres-insert"       // inserts the key in Postgres, in the charge's transaction
	PostgresStore       Step = "postgres-store"        // stores the response with the key, in the same transaction
	PostgresStoreAfter  Step = "postgres-store-after"  // writes the key row with the response after the charge, ON CONFLICT DO NOTHING
	PostgresDebitApart  Step = "postgres-debit-apart"  // debited the account in a first transaction, already committed
)

var catalog = []Info{
	{Name: "none", Mechanism: "no idempotency layer", Flaw: "every retry charges again", ReplayFrom: ReplayNowhere},
	{Name: "memory", Mechanism: "per-replica in-process map: claim, fingerprint, stored response",
		Flaw: "state is per process: a retry on another replica charges again", ReplayFrom: ReplayMemory,
		Steps: Steps{Check: MemoryClaim, Store: MemoryStore}},
	{Name: "redis-getset", Mechanism: "GET key; if absent charge in Postgres, then SET the response",
		Flaw: "check-then-act race: concurrent duplicates all see the key absent", Redis: true, ReplayFrom: ReplayRedis,
		Steps: Steps{Check: RedisGet, Store: RedisStore}},
	{Name: "redis-setnx", Mechanism: "SET NX EX claim, charge in Postgres, SET the response, DEL on error",
		Flaw: "two systems: a lost response write or an expired claim lets a retry charge again", Redis: true,
		ReplayFrom: ReplayRedis, Steps: Steps{Check: RedisSetNX, Store: RedisStore}},
	{Name: "redis-sticky", Mechanism: "as redis-setnx, but the claim lives as long as the key and is never released on error",
		Flaw: "poisoned key: after a failure every retry gets 409 until the TTL", Redis: true, ReplayFrom: ReplayRedis,
		Steps: Steps{Check: RedisSetNX, Store: RedisStore}},
	{Name: "redis-cache-errors", Mechanism: "as redis-setnx, but every response is stored, 5xx included",
		Flaw: "poisoned key: a transient 5xx is replayed to every retry", Redis: true, ReplayFrom: ReplayRedis,
		Steps: Steps{Check: RedisSetNX, Store: RedisStore}},
	{Name: "pg-split-tx", Mechanism: "key row committed in_progress in one transaction, charge and completion in a second, no recovery",
		Flaw:       "poisoned key: a failure between the two transactions leaves the key in progress forever",
		ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresInProgress, Store: PostgresStore}},
	{Name: "pg-nofingerprint", Mechanism: "as pg-tx, without the request fingerprint",
		Flaw: "a retry with another payload gets the first payload's response", ReplayFrom: ReplayPostgres,
		Steps: Steps{Check: PostgresRead, Claim: PostgresLock, Store: PostgresStore}},
	{Name: "pg-blocking-claim", Mechanism: "as pg-tx, but the claim is a plain INSERT ... ON CONFLICT DO NOTHING, without a non-blocking lock",
		Flaw:       "held duplicate: a second request for a key whose first is in flight waits on that transaction, then replays, instead of 409 at once",
		ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresInsert, Store: PostgresStore}},
	{Name: "pg-success-only", Mechanism: "as pg-tx, but only a 2xx is stored with the key; any other answer deletes the key row, releasing the key (a common middleware default)",
		Flaw:       "a declined charge is not kept: a retry of the declined key is decided again and, once the account is funded, charges",
		ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresRead, Claim: PostgresLock, Store: PostgresStore}},
	{Name: "pg-standby-read", Mechanism: "looks the key up on a hot standby to spare the primary; if absent, charges on the primary and writes the key row after the charge with ON CONFLICT DO NOTHING (no claim first)",
		Flaw:       "the standby lags: a retry of a completed key finds nothing there and charges again; the key's primary key guards nothing",
		ReplayFrom: ReplayPostgres, Steps: Steps{Check: StandbyRead, Store: PostgresStoreAfter}},
	{Name: "pg-async-commit", Mechanism: "as pg-tx, with SET LOCAL synchronous_commit = off in the transaction",
		Flaw:       "COMMIT returns before its WAL is written: a crash of the primary right after loses the key row and the charge the client was told of",
		ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresRead, Claim: PostgresLock, Store: PostgresStore}},
	{Name: "pg-split-debit", Mechanism: "as pg-tx, but the debit commits in a first transaction and the charge row, the key and the response in a second (the wallet's Debit and the charges' Record each open their own), under a session lock on the key",
		Flaw:       "a failure of the second transaction rolls back the charge row and the key, not the money: the balance drifts from the charges, and the retry debits again",
		ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresRead, Claim: PostgresSessionLock, Store: PostgresStore, Debit: PostgresDebitApart}},
	{Name: "pg-tx", Mechanism: "one Postgres transaction: non-blocking claim (the key's advisory lock), check, charge, INSERT key with the response; fingerprint checked",
		ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresRead, Claim: PostgresLock, Store: PostgresStore}},
	{Name: "redis-pg-guard", Mechanism: "Redis SET NX claim for the fast 409 path; pg-tx's transaction behind it, whose key row in Postgres is the truth",
		Redis: true, ReplayFrom: ReplayRedisPostgres, Steps: Steps{Check: PostgresRead, Claim: RedisGuard, Store: PostgresStore}},
}

// Catalog lists the built-in strategies in a stable order.
func Catalog() []Info { return slices.Clone(catalog) }

// Names lists the strategy names in catalog order.
func Names() []string {
	names := make([]string, len(catalog))
	for i, s := range catalog {
		names[i] = s.Name
	}
	return names
}

// Lookup returns the description of a strategy.
func Lookup(name string) (Info, error) {
	for _, s := range catalog {
		if s.Name == name {
			return s, nil
		}
	}
	return Info{}, fmt.Errorf("unknown strategy %q (known: %v)", name, Names())
}
