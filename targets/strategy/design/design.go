// Package design is the catalog of the strategies as designs, one Info
// each (builtin.go): what it does with a key, the flaw it ships on
// purpose, the stores it keeps, where it replays a completed key from, the
// steps a narration tells, the scenarios that must catch it with the
// anomalies each shows, and the scenarios whose demo it is. It holds facts
// only (no I/O, no store client), so that the judge, the narrator, the
// reports and the command line read them without linking the strategies'
// Redis and Postgres code; each implementation in targets/strategy binds
// its builder to its design's value, and strategy.Register adds a
// definition with its builder.
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
	// MySQL says its ledger and key table are on MySQL's InnoDB
	// (targets/strategy/innodb), not Postgres: the engine provisions a
	// MariaDB database for it and puts its SQL link in front of that.
	MySQL bool `json:"mysql,omitempty"`
	// ReplayFrom is where a completed key's answer comes from.
	ReplayFrom string `json:"replay_from"`
	// Steps is what it does with a key, as a narration tells it.
	Steps Steps `json:"-"`
	// Fails declares the scenarios the strategy must fail under the ietf
	// profile and the anomalies each must show; it must pass every other
	// scenario. A flawed strategy that stops being caught is a regression
	// of the harness.
	Fails Declared `json:"fails,omitempty"`
	// NeverShows lists anomalies a cell must not show even when it fails:
	// a poisoned key is bad, but it must never be mistaken for a double
	// charge.
	NeverShows Declared `json:"never_shows,omitempty"`
	// Varies lists anomalies a scenario shows on some seeds and not on
	// others, because they depend on how the plan's concurrent requests
	// happen to meet inside the store (two keys' gap locks in InnoDB), not
	// on an interleaving the scenario forces. A cell that passes, or fails
	// with nothing but these (and what Fails declares), is as declared;
	// the matrix marks it with a tilde. Only what a scenario shows on
	// every seed belongs in Fails.
	Varies Declared `json:"varies,omitempty"`
	// Explores declares what idemchaos explore shows of the strategy, by
	// kind of case (scenarios/explore: duplicate, mismatch, lost-reply,
	// pg-cut, redis-cut): the anomalies its failing orders show, over
	// every point for a kind that strikes at points. A kind it does not
	// name holds in every order (one replica, the ietf profile).
	Explores Declared `json:"explores,omitempty"`
	// Demos are the scenarios whose demo shows this strategy unless told
	// otherwise: the ones whose flaw it shows best.
	Demos []string `json:"-"`
}

// Declared maps a scenario's name to anomalies, by the names the checker
// gives them ("double_charge"): the catalogs are checked against each other
// by the scenarios' tests, as this package may not import the checker.
type Declared map[string][]string

// The strategies other catalogs name by their role: the baseline without a
// key layer, the reference design, and the reference behind a Redis guard
// (the bench's comparisons, the conformance table's reference rows, the
// net/http lesson).
const (
	Baseline  = "none"
	Reference = "pg-tx"
	Guarded   = "redis-pg-guard"
)

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

// The steps of the strategies on InnoDB (targets/strategy/innodb), named
// here so that the narration tells them without linking their driver.
const (
	InnoDBRead         Step = "innodb-read"          // reads the key in InnoDB: absent
	InnoDBInsertNoWait Step = "innodb-insert-nowait" // inserts the key, not waiting on a duplicate in flight, in the charge's transaction
	InnoDBInsert       Step = "innodb-insert"        // inserts the key, waiting on a duplicate in flight, in the charge's transaction
	InnoDBInsertIgnore Step = "innodb-insert-ignore" // INSERT IGNOREs the key: inserted, or taken and not seen under the snapshot
	InnoDBLockingRead  Step = "innodb-locking-read"  // reads the key with SELECT ... FOR UPDATE: absent, its gap locked
	InnoDBSessionLock  Step = "innodb-session-lock"  // takes GET_LOCK on the key, for the pooled connection's session
	InnoDBStore        Step = "innodb-store"         // stores the response with the key, in the same transaction
)

// catalog is every strategy: the built-in ones, then those added by
// Register.
var catalog = slices.Clone(builtin)

// Register adds a strategy to the catalog, after the built-in ones; the
// implementation registers its builder beside it (strategy.Register does
// both). Call it from an init function: the catalog is not guarded. It
// panics on a definition without a name, a mechanism or a replay source,
// or on a name already taken, as database/sql's Register does.
func Register(s Info) {
	switch {
	case s.Name == "" || s.Mechanism == "" || s.ReplayFrom == "":
		panic(fmt.Sprintf("design: strategy %q needs a name, a mechanism and a replay source", s.Name))
	case slices.Contains(Names(), s.Name):
		panic(fmt.Sprintf("design: strategy %q is already registered", s.Name))
	}
	catalog = append(catalog, s)
}

// Catalog lists the strategies in a stable order.
func Catalog() []Info { return slices.Clone(catalog) }

// DemoOf is the strategy the demo of a scenario shows unless told
// otherwise ("" if none says so).
func DemoOf(scenario string) string {
	for _, s := range catalog {
		if slices.Contains(s.Demos, scenario) {
			return s.Name
		}
	}
	return ""
}

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
