package design

// The built-in strategies, each one Info holding every fact of it; the
// builder of each registers beside its implementation (targets/strategy),
// bound to the Info itself. Each is named after its strategy (none's is
// NoLayer: None is the empty Step).

var NoLayer = Info{Name: "none", Mechanism: "no idempotency layer", Flaw: "every retry charges again", ReplayFrom: ReplayNowhere,
	Fails: Declared{
		"concurrent-duplicates":    {"double_charge"},
		"forced-race":              {"double_charge"},
		"dropped-response":         {"double_charge"},
		"payload-mismatch":         {"double_charge", "mismatch_executed"},
		"db-fault-mid-request":     {"double_charge"}, // the probe charges again
		"db-fault-after-commit":    {"double_charge", "replay_mismatch"},
		"redis-fault-after-commit": {"double_charge"},
		"slow-charge":              {"double_charge"},
		"replica-fanout":           {"double_charge"},
		"client-timeout-retry":     {"double_charge"},
		"missing-key":              {"status_contract"},
		"key-expiry":               {"double_charge"}, // the replay probes after the traffic charge again
		"business-refusal":         {"refusal_not_replayed"},
		"redis-failover":           {"double_charge"},
		"retry-storm":              {"double_charge"},
		"pg-standby-lag":           {"double_charge"},
		"pg-async-commit-crash":    {"double_charge"}, // the replay probes charge again
	},
	Explores: Declared{
		"duplicate":  {"double_charge", "replay_mismatch"},
		"mismatch":   {"double_charge", "mismatch_executed"},
		"lost-reply": {"double_charge"},
		"pg-cut":     {"double_charge", "replay_mismatch"},
		"kill":       {"double_charge"},
	},
	NeverShows: Declared{"business-refusal": {"double_charge"}},
	Demos:      []string{"dropped-response", "missing-key", "retry-storm"},
}

var Memory = Info{Name: "memory", Mechanism: "per-replica in-process map: claim, fingerprint, stored response",
	Flaw: "state is per process: a retry on another replica charges again", ReplayFrom: ReplayMemory,
	Steps: Steps{Check: MemoryClaim, Store: MemoryStore},
	// Its claim lives outside the charge's transaction and is released
	// when the charge fails: a commit whose answer was lost looks failed,
	// and the retry charges again. On two replicas a declined key is
	// decided again by the other one (business-refusal).
	Fails: Declared{
		"replica-fanout":        {"double_charge"},
		"db-fault-after-commit": {"double_charge"},
		"business-refusal":      {"refusal_not_replayed"},
	},
	// Explored on one process every order holds; a process killed after
	// the commit takes the key's record with it, and the retry, on the
	// process that replaced it, charges again.
	Explores: Declared{"kill": {"double_charge"}},
	Demos:    []string{"replica-fanout"},
}

var RedisGetset = Info{Name: "redis-getset", Mechanism: "GET key; if absent charge in Postgres, then SET the response",
	Flaw: "check-then-act race: concurrent duplicates all see the key absent", Redis: true, ReplayFrom: ReplayRedis,
	Steps: Steps{Check: RedisGet, Store: RedisStore},
	Fails: Declared{
		"concurrent-duplicates":    {"double_charge"},
		"forced-race":              {"double_charge"},
		"db-fault-after-commit":    {"double_charge", "store_desync"},
		"redis-fault-after-commit": {"double_charge"},
		"slow-charge":              {"double_charge"},
		"client-timeout-retry":     {"double_charge"},
		"retry-storm":              {"double_charge"},
		"redis-failover":           {"double_charge"}, // the claim or stored response died with the primary
	},
	Explores: Declared{
		"duplicate":  {"double_charge", "replay_mismatch", "store_desync"},
		"mismatch":   {"double_charge", "mismatch_executed", "store_desync"},
		"lost-reply": {"double_charge", "store_desync"},
		"redis-cut":  {"double_charge", "replay_mismatch", "store_desync"},
		"kill":       {"double_charge", "store_desync"},
	},
	Demos: []string{"concurrent-duplicates", "forced-race", "client-timeout-retry"},
}

var RedisSetnx = Info{Name: "redis-setnx", Mechanism: "SET NX EX claim, charge in Postgres, SET the response, DEL on error",
	Flaw: "two systems: a lost response write or an expired claim lets a retry charge again", Redis: true,
	ReplayFrom: ReplayRedis, Steps: Steps{Check: RedisSetNX, Store: RedisStore},
	// A commit whose answer was lost looks failed: the claim is DELeted,
	// and the retry charges again (db-fault-after-commit).
	Fails: Declared{
		"db-fault-after-commit":    {"double_charge", "store_desync"},
		"redis-fault-after-commit": {"double_charge", "store_desync"},
		"slow-charge":              {"double_charge"},
		"redis-failover":           {"double_charge"}, // the claim or stored response died with the primary
	},
	Explores: Declared{
		"redis-cut": {"double_charge", "store_desync"},
		"kill":      {"double_charge", "store_desync"},
	},
	Demos: []string{"redis-fault-after-commit", "db-fault-after-commit", "slow-charge", "key-expiry", "redis-failover"},
}

var RedisSticky = Info{Name: "redis-sticky", Mechanism: "as redis-setnx, but the claim lives as long as the key and is never released on error",
	Flaw: "poisoned key: after a failure every retry gets 409 until the TTL", Redis: true, ReplayFrom: ReplayRedis,
	Steps: Steps{Check: RedisSetNX, Store: RedisStore},
	Fails: Declared{
		"db-fault-mid-request":     {"stuck_key"},
		"db-fault-after-commit":    {"stuck_key", "store_desync"},
		"redis-fault-after-commit": {"stuck_key", "store_desync"},
		"redis-failover":           {"double_charge"}, // the claim or stored response died with the primary
	},
	Explores: Declared{
		"pg-cut":    {"stuck_key"},
		"redis-cut": {"store_desync", "stuck_key"},
		"kill":      {"store_desync", "stuck_key"},
	},
	NeverShows: Declared{"db-fault-mid-request": {"double_charge"}, "db-fault-after-commit": {"double_charge"}},
	Demos:      []string{"db-fault-mid-request"},
}

var RedisCacheErrors = Info{Name: "redis-cache-errors", Mechanism: "as redis-setnx, but every response is stored, 5xx included",
	Flaw: "poisoned key: a transient 5xx is replayed to every retry", Redis: true, ReplayFrom: ReplayRedis,
	Steps: Steps{Check: RedisSetNX, Store: RedisStore},
	Fails: Declared{
		"db-fault-mid-request":     {"cached_error"},
		"db-fault-after-commit":    {"cached_error", "store_desync"}, // the 503 of a commit that went through, stored
		"redis-fault-after-commit": {"double_charge", "store_desync"},
		"slow-charge":              {"double_charge"},
		"redis-failover":           {"double_charge"}, // the claim or stored response died with the primary
	},
	Explores: Declared{
		"pg-cut":    {"cached_error"},
		"redis-cut": {"double_charge", "store_desync"},
		"kill":      {"double_charge", "store_desync"},
	},
	NeverShows: Declared{"db-fault-mid-request": {"double_charge"}, "db-fault-after-commit": {"double_charge"}},
}

var PgSplitTx = Info{Name: "pg-split-tx", Mechanism: "key row committed in_progress in one transaction, charge and completion in a second, no recovery",
	Flaw:       "poisoned key: a failure between the two transactions leaves the key in progress forever",
	ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresInProgress, Store: PostgresStore},
	Fails: Declared{
		"db-fault-mid-request": {"stuck_key"},
	},
	Explores: Declared{
		"pg-cut": {"stuck_key"},
		"kill":   {"stuck_key"},
	},
	NeverShows: Declared{"db-fault-mid-request": {"double_charge"}},
}

var PgNoFingerprint = Info{Name: "pg-nofingerprint", Mechanism: "as pg-tx, without the request fingerprint",
	Flaw: "a retry with another payload gets the first payload's response", ReplayFrom: ReplayPostgres,
	Steps: Steps{Check: PostgresRead, Claim: PostgresLock, Store: PostgresStore},
	Fails: Declared{
		"payload-mismatch": {"mismatch_executed"},
	},
	Explores: Declared{
		"mismatch": {"lost_ack", "mismatch_executed"},
	},
	Demos: []string{"payload-mismatch"},
}

var PgBlockingClaim = Info{Name: "pg-blocking-claim", Mechanism: "as pg-tx, but the claim is a plain INSERT ... ON CONFLICT DO NOTHING, without a non-blocking lock",
	Flaw:       "held duplicate: a second request for a key whose first is in flight waits on that transaction, then replays, instead of 409 at once",
	ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresInsert, Store: PostgresStore},
	// Every duplicate that meets the first request's open transaction waits
	// on its INSERT. slow-charge passes: the charge outlives the claim
	// timeout there, and a wait past the claim is not judged a hold.
	Fails: Declared{
		"concurrent-duplicates": {"held_duplicate"},
		"forced-race":           {"held_duplicate"},
		"client-timeout-retry":  {"held_duplicate"},
		"retry-storm":           {"held_duplicate"},
	},
	Explores: Declared{
		"duplicate":  {"held_duplicate"},
		"lost-reply": {"held_duplicate"},
	},
	NeverShows: Declared{"concurrent-duplicates": {"double_charge"}, "forced-race": {"double_charge"}, "client-timeout-retry": {"double_charge"}, "retry-storm": {"double_charge"}},
}

var PgSuccessOnly = Info{Name: "pg-success-only", Mechanism: "as pg-tx, but only a 2xx is stored with the key; any other answer deletes the key row, releasing the key (a common middleware default)",
	Flaw:       "a declined charge is not kept: a retry of the declined key is decided again and, once the account is funded, charges",
	ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresRead, Claim: PostgresLock, Store: PostgresStore},
	Fails: Declared{
		"business-refusal": {"refusal_not_replayed"},
	},
	NeverShows: Declared{"business-refusal": {"double_charge"}},
	Demos:      []string{"business-refusal"},
}

var PgStandbyRead = Info{Name: "pg-standby-read", Mechanism: "looks the key up on a hot standby to spare the primary; if absent, charges on the primary and writes the key row after the charge with ON CONFLICT DO NOTHING (no claim first)",
	Flaw:       "the standby lags: a retry of a completed key finds nothing there and charges again; the key's primary key guards nothing",
	ReplayFrom: ReplayPostgres, Steps: Steps{Check: StandbyRead, Store: PostgresStoreAfter},
	// Without a standby (every other scenario) it reads the primary: its
	// look-up then charge is redis-getset's check-then-act race. Not in
	// slow-charge: the latency delays the COMMIT's answer, not the
	// COMMIT, so a retry's look-up already finds the key row (it did
	// charge again while pgx spent a round trip preparing the commit's
	// statements after the point, the latency on it, before the COMMIT).
	Fails: Declared{
		"concurrent-duplicates": {"double_charge"},
		"forced-race":           {"double_charge"},
		"client-timeout-retry":  {"double_charge"},
		"pg-standby-lag":        {"double_charge"},
		"retry-storm":           {"double_charge"},
	},
	Explores: Declared{
		"duplicate":  {"double_charge", "replay_mismatch"},
		"mismatch":   {"double_charge", "mismatch_executed"},
		"lost-reply": {"double_charge"},
	},
	Demos: []string{"pg-standby-lag"},
}

var PgAsyncCommit = Info{Name: "pg-async-commit", Mechanism: "as pg-tx, with SET LOCAL synchronous_commit = off in the transaction",
	Flaw:       "COMMIT returns before its WAL is written: a crash of the primary right after loses the key row and the charge the client was told of",
	ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresRead, Claim: PostgresLock, Store: PostgresStore},
	Fails: Declared{
		"pg-async-commit-crash": {"lost_ack"},
	},
	Demos: []string{"pg-async-commit-crash"},
}

var PgSplitDebit = Info{Name: "pg-split-debit", Mechanism: "as pg-tx, but the debit commits in a first transaction and the charge row, the key and the response in a second (the wallet's Debit and the charges' Record each open their own), under a session lock on the key",
	Flaw:       "a failure of the second transaction rolls back the charge row and the key, not the money: the balance drifts from the charges, and the retry debits again",
	ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresRead, Claim: PostgresSessionLock, Store: PostgresStore, Debit: PostgresDebitApart},
	// The debit commits in a first transaction: the cut before the second
	// commits rolls back the charge row and the key, not the money, and the
	// retry debits again.
	Fails: Declared{
		"db-fault-mid-request": {"balance"},
	},
	Explores: Declared{
		"pg-cut": {"balance"},
		"kill":   {"balance"},
	},
	NeverShows: Declared{"db-fault-mid-request": {"double_charge"}},
}

var PgTx = Info{Name: "pg-tx", Mechanism: "one Postgres transaction: non-blocking claim (the key's advisory lock), check, charge, INSERT key with the response; fingerprint checked",
	ReplayFrom: ReplayPostgres, Steps: Steps{Check: PostgresRead, Claim: PostgresLock, Store: PostgresStore}}

var RedisPgGuard = Info{Name: "redis-pg-guard", Mechanism: "Redis SET NX claim for the fast 409 path; pg-tx's transaction behind it, whose key row in Postgres is the truth",
	Redis: true, ReplayFrom: ReplayRedisPostgres, Steps: Steps{Check: PostgresRead, Claim: RedisGuard, Store: PostgresStore}}

// builtin is the built-in strategies in the stable order of the matrix.
var builtin = []Info{
	NoLayer, Memory, RedisGetset, RedisSetnx, RedisSticky, RedisCacheErrors,
	PgSplitTx, PgNoFingerprint, PgBlockingClaim, PgSuccessOnly, PgStandbyRead,
	PgAsyncCommit, PgSplitDebit, PgTx, RedisPgGuard,
}
