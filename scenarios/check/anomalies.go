package check

import "github.com/idemchaos/idemchaos/targets/api"

// The built-in anomalies. Each is one Definition in builtin below.
const (
	// DoubleCharge: more than one ledger charge for one (account, key).
	DoubleCharge Anomaly = "double_charge"
	// LostAck: a 2xx without exactly one matching ledger charge.
	LostAck Anomaly = "lost_ack"
	// ReplayMismatch: 2xx answers for one key and payload disagree on status, charge id or body.
	ReplayMismatch Anomaly = "replay_mismatch"
	// MismatchExecuted: a request whose payload differs from the key's was acked or charged.
	MismatchExecuted Anomaly = "mismatch_executed"
	// Balance: an account balance differs from opening balance minus its charges.
	Balance Anomaly = "balance"
	// StatusContract: a status code the contract profile does not allow.
	StatusContract Anomaly = "status_contract"
	// StuckKey: a probe of a key still got the profile's in-flight status
	// (409): the key's claim was never released, the key is poisoned.
	StuckKey Anomaly = "stuck_key"
	// StoreDesync: the Redis idempotency records and the Postgres ledger
	// disagree about a key (checked only for two-store targets).
	StoreDesync Anomaly = "store_desync"
	// CachedError: a 5xx replayed from a key's stored response (or served to
	// a probe) where the profile forbids it, or where the ledger shows the
	// key's work did commit.
	CachedError Anomaly = "cached_error"
	// HeldDuplicate: a same-payload duplicate that arrived while the key's
	// original was executing was held until the original finished, then
	// answered its 2xx, where the profile wants the in-flight status at once.
	HeldDuplicate Anomaly = "held_duplicate"
	// RefusalNotReplayed: a key declined with the business refusal (402)
	// was answered otherwise on a same-payload retry, or charged: a
	// declined charge is a completed result, as a 2xx is. A profile that
	// decides refusals again reports it as a deviation instead.
	RefusalNotReplayed Anomaly = "refusal_not_replayed"
)

// The ranks of the built-in anomalies: their index in builtin.
const (
	rankDoubleCharge = iota
	rankLostAck
	rankReplayMismatch
	rankMismatchExecuted
	rankBalance
	rankStatusContract
	rankStuckKey
	rankStoreDesync
	rankCachedError
	rankHeldDuplicate
	rankRefusalNotReplayed
	numBuiltin
)

// builtin defines the anomalies the checker's own passes find, in their
// stable order (the ranks above).
var builtin = [...]Definition{
	{
		Anomaly: DoubleCharge, Short: "dc", Kind: KindMoney,
		Title: "Double charge: one key, several ledger charges",
		What: "The ledger holds more than one charge for the same account and Idempotency-Key: " +
			"the client meant to pay once and retried, the customer paid several times.",
		Why: "A retry reached a server that did not know the first attempt had committed. none charges on every retry; " +
			"memory keeps claims per process, so a retry routed to another replica runs again; redis-getset checks, then acts, " +
			"so concurrent duplicates both find the key absent; redis-setnx loses the completed response when the Redis write fails " +
			"after the Postgres commit (or its claim expires during a slow charge), and the retry charges again; memory and " +
			"redis-setnx take a COMMIT whose answer was lost for a failure and release their claim, though the charge " +
			"committed; innodb-insert-ignore decides from a SELECT under REPEATABLE READ, whose snapshot does not show a key " +
			"a concurrent duplicate committed since, so it takes the taken key for a released one and charges again.",
		Avoid: "Claim the key atomically with the money movement: pg-tx takes the key's lock without waiting (a duplicate in " +
			"flight gets 409), charges and writes the key row with its response in one transaction, so the key and the money " +
			"commit together; redis-pg-guard uses Redis only for the fast 409 path and runs the same transaction behind it, so " +
			"Postgres refuses a second charge whatever Redis says. On MySQL's InnoDB, innodb-tx inserts the key row as the " +
			"claim in the charge's transaction, not waiting (SET STATEMENT innodb_lock_wait_timeout=0): a taken key is an error " +
			"of the insert itself, never a read a snapshot can get wrong.",
		Cause: "A retry reached a server that did not know the first attempt had committed, and it charged again.",
		Lesson: Lesson{Scenario: "forced-race", Strategy: "redis-getset",
			Shows: "both requests find the key absent; both charge"},
	},
	{
		Anomaly: LostAck, Short: "la", Kind: KindMoney,
		Title: "Lost acknowledgement: a 2xx without its charge",
		What: "The client got a 2xx, but the ledger does not hold exactly one matching charge (same account, same amount): " +
			"the API acknowledged money that did not move as promised.",
		Why: "The answer came from a store that disagrees with the ledger: a response recorded in Redis or in a key row committed " +
			"apart from the charge (redis-setnx, pg-split-tx), while the charge itself rolled back or was made twice; " +
			"or a replay that names a charge made for another payload.",
		Avoid: "Store the response in the same transaction as the charge (pg-tx), or answer from the ledger row found by its unique " +
			"idempotency key (redis-pg-guard); never answer 2xx before the commit.",
		Cause: "The answer came from a record that disagrees with the ledger: a response stored apart from the charge, while the charge rolled back or was made twice, or a replay naming a charge made for another payload.",
		Lesson: Lesson{Scenario: "payload-mismatch", Strategy: "pg-nofingerprint",
			Shows: "a 201 for 15.00 names the 13.00 charge of another payload"},
	},
	{
		Anomaly: ReplayMismatch, Short: "rm", Kind: KindContract,
		Title: "Replay mismatch: retries see different answers",
		What: "Two 2xx answers for the same key and payload disagree on the status, the charge id or the body (byte for byte, " +
			"or field for field when the target is compared as JSON); a retry must receive exactly the original response. " +
			"Every completed key is probed again after the traffic, so a replay that differs is caught even when its client " +
			"saw a single 2xx (after a dropped response it sees only the replay).",
		Why: "The retry was executed again instead of replayed (none; memory on another replica; the redis-getset race; " +
			"redis-setnx after a lost Redis write; innodb-insert-ignore, whose second charge also overwrites the stored " +
			"answer, so the key then replays the second charge, not the one its first client was given), or the replayed response was rebuilt rather than stored verbatim " +
			"(a fresh timestamp, today's balance).",
		Avoid: "Store the final response (status, headers, body) with the key when the work commits and replay it byte for byte, " +
			"as pg-tx does in the charging transaction and redis-pg-guard does from the ledger row Postgres keeps unique.",
		Cause: "The retry was executed again instead of replayed, or the replayed response was rebuilt rather than stored verbatim.",
		Lesson: Lesson{Scenario: "forced-race", Strategy: "redis-getset",
			Shows: "the two clients get different charges for one key"},
	},
	{
		Anomaly: MismatchExecuted, Short: "me", Kind: KindMoney,
		Title: "Payload mismatch executed: same key, different request",
		What:  "A request reused a key with a different payload (another amount) and was charged or answered 2xx.",
		Why: "No fingerprint of the request body was stored with the key, so the server cannot tell a true retry from another " +
			"operation: pg-nofingerprint replays or executes it, none simply executes it.",
		Avoid: "Store the SHA-256 of the request body with the key and refuse a retry whose hash differs (422 under the ietf " +
			"profile, 400 under stripe), as pg-tx and redis-pg-guard do.",
		Cause: "No fingerprint of the request body was kept with the key, so the server cannot tell a true retry from another operation.",
		Lesson: Lesson{Scenario: "payload-mismatch", Strategy: "pg-nofingerprint",
			Shows: "the same key with another amount gets 201"},
	},
	{
		Anomaly: Balance, Short: "bal", Kind: KindMoney,
		Title: "Balance mismatch: the account disagrees with its charges",
		What: "An account's balance is not its opening balance minus the sum of its ledger charges: money moved without a " +
			"charge row, or a charge row exists without the money.",
		Why: "The balance update and the charge insert were not one transaction, or a fault cut the connection between them " +
			"and only one side committed.",
		Avoid: "Move the balance, insert the charge and claim the key in one Postgres transaction, as pg-tx does, so a failure " +
			"rolls everything back.",
		Cause: "The balance update and the charge insert were not one transaction, or a fault cut the connection between them and only one side committed.",
		Lesson: Lesson{Scenario: "db-fault-mid-request", Strategy: "pg-split-debit",
			Shows: "the debit commits in a first transaction; the cut rolls back the charge row and the key, not the money; the retry debits again"},
	},
	{
		Anomaly: StatusContract, Short: "sc", Kind: KindContract, Deviation: true,
		Title: "Status contract broken: a code the profile forbids",
		What: "A status the contract profile does not allow: no 409 for a duplicate still in flight, not 422 (ietf) or 400 " +
			"(stripe) for a payload mismatch, not 400 for a missing key under ietf, or a 5xx for a concurrent duplicate.",
		Why: "The strategy blocks or fails instead of refusing at once: a second INSERT ... ON CONFLICT DO NOTHING waits for the " +
			"open transaction that inserted the key, then times out; a store error surfaces as a 500; the fingerprint check is " +
			"missing (none, pg-nofingerprint). On InnoDB, innodb-select-for-update looks the key up with SELECT ... FOR UPDATE: " +
			"a locking read of a missing key takes a gap lock, gap locks do not conflict, so every duplicate finds the key " +
			"free, each one's INSERT then waits on another's gap lock and InnoDB kills all but one as a deadlock (1213), " +
			"answered 503; the gap is shared by the keys around it, so requests of other keys are killed too.",
		Avoid: "Answer an in-flight duplicate with 409 at once through a non-blocking claim (Redis SET NX, " +
			"pg_try_advisory_xact_lock, NOWAIT or lock_timeout; on InnoDB the key row's INSERT under " +
			"innodb_lock_wait_timeout=0, as innodb-tx does), as pg-tx and redis-pg-guard do, and map every situation " +
			"to the profile's code.",
		Cause:   "The server blocked, failed or answered another status than the profile's where the contract wants a refusal at once.",
		Allowed: func(p api.Profile) bool { return p.MissingKey == 0 }, // the only status_contract the catalog declares is a missing key
		Lesson: Lesson{Scenario: "missing-key", Strategy: "none",
			Shows: "a request without a key gets 201 where ietf wants 400"},
	},
	{
		Anomaly: StuckKey, Short: "sk", Kind: KindContract,
		Title: "Stuck key: a poisoned key answers 409 forever",
		What: "After the faults healed and in-flight work ended, a retry of the key still got a refusal (409) beyond the claim " +
			"timeout, or a retry of a key already answered for good (a declined charge) got it while no other request of the " +
			"key was on the server: the key is poisoned and the payment cannot complete with it.",
		Why: "A claim was left in progress: redis-sticky never releases its Redis claim on error, so the key answers 409 until " +
			"the TTL; pg-split-tx commits the key row in one transaction and the charge in another, with no recovery when a " +
			"failure falls between them; innodb-get-lock claims with GET_LOCK, which belongs to the pooled connection's " +
			"session, not to the transaction, so a declined charge returns the connection to the pool still holding the " +
			"key's lock, and a retry on another connection or replica gets 409 for as long as that connection lives.",
		Avoid: "Release the claim when the work fails (DEL in Redis, as redis-setnx does), or keep the claim in the charging " +
			"transaction so that its end, commit or rollback, ends the claim (pg-tx, innodb-tx); bound every claim by a " +
			"timeout after which it may be reclaimed.",
		Cause: "A failure left the key's claim in progress, and nothing releases or reclaims it.",
		Lesson: Lesson{Scenario: "db-fault-mid-request", Strategy: "redis-sticky",
			Shows: "the claim outlives the failed charge: the probe still gets 409"},
	},
	{
		Anomaly: StoreDesync, Short: "sd", Kind: KindMoney,
		Title: "Store desync: Redis and Postgres disagree",
		What: "For a two-store strategy, the Redis idempotency record and the Postgres ledger disagree: Postgres charged a key " +
			"that Redis holds no completed response for (missing, still claimed, expired), or Redis names another charge.",
		Why: "Redis and Postgres share no transaction: redis-setnx commits the charge in Postgres, then the write of the " +
			"completed response to Redis is lost; the claim is released or expires, and a retry charges again.",
		Avoid: "Make Postgres the source of truth: redis-pg-guard writes the key row in the charge's own transaction, so a " +
			"retry that gets past Redis finds it in Postgres and is answered from it; or keep the whole record in Postgres (pg-tx).",
		Cause: "Redis and Postgres share no transaction: the charge commits in Postgres and the write of its response to Redis can be lost, or overwritten by a later charge.",
		Lesson: Lesson{Scenario: "redis-fault-after-commit", Strategy: "redis-setnx",
			Shows: "Postgres committed, the Redis write was lost, the retry charged again"},
	},
	{
		Anomaly: CachedError, Short: "ce", Kind: KindContract,
		Title: "Cached error: a 5xx replayed to every retry",
		What: "A 5xx answer was stored with the key and replayed to a retry although the profile forbids replaying errors: " +
			"the key is poisoned with a failure that committed nothing.",
		Why: "redis-cache-errors caches every response, 5xx included; after a database fault mid-request every retry gets " +
			"the cached 500 until the key expires. After a COMMIT whose answer was lost it caches the 503 of a charge that " +
			"did commit: the client is told, forever, that a payment failed which went through.",
		Avoid: "Never cache a 5xx: store only the response of work that committed (or a definitive 4xx), and release the claim " +
			"on error so the key stays retryable, as pg-tx and redis-setnx do.",
		Cause:   "A 5xx answer was stored with the key like any response, so every retry gets the failure back.",
		Allowed: func(p api.Profile) bool { return p.ReplayErrors }, // the catalog's cached errors never moved money
		Lesson: Lesson{Scenario: "db-fault-mid-request", Strategy: "redis-cache-errors",
			Shows: "the 503 of the failed charge is replayed to every retry"},
	},
	{
		Anomaly: HeldDuplicate, Short: "hd", Kind: KindHold, Deviation: true,
		Title: "Held duplicate: a retry blocked until the first request finished",
		What: "A duplicate sent while the first request of its key was still executing was held on the server until that " +
			"request finished, then got its 2xx, where the profile wants the in-flight status (409) at once. No money is lost, " +
			"but every duplicate holds a connection, a worker and a client for as long as the slowest charge, a retry that " +
			"times out while held is sent again and held again, and a retry storm piles up behind one slow payment: " +
			"the source text calls blocking the second request the worst mistake.",
		Why: "The claim waits instead of failing: pg-blocking-claim claims the key with a plain INSERT ... ON CONFLICT DO NOTHING, " +
			"and Postgres makes a second INSERT of a key that an open transaction inserted wait for that transaction to end; " +
			"then the row is there, completed, and the duplicate gets the replay. innodb-blocking-claim's plain INSERT of the " +
			"key row waits the same way on InnoDB (up to innodb_lock_wait_timeout, 50 s), and innodb-select-for-update's " +
			"locking read waits on a key row inserted and not yet committed. A mutex around the key, or a sleep-and-poll " +
			"loop on an in-progress record, does the same.",
		Avoid: "Claim without waiting and answer an in-flight duplicate 409 at once: take pg_try_advisory_xact_lock on the key " +
			"before the INSERT (pg-tx), or set lock_timeout or use NOWAIT (on InnoDB, SET STATEMENT innodb_lock_wait_timeout=0 " +
			"FOR the key row's INSERT: innodb-tx), or claim in Redis with SET NX (redis-pg-guard); the " +
			"client retries the 409 with backoff and gets the replay. A service that waits on purpose declares it in its " +
			"profile (in_flight: wait).",
		Cause:   "The claim waits instead of failing: a second request for a key in flight blocks until the first one ends.",
		Allowed: func(p api.Profile) bool { return p.InFlightWait }, // the service waits by design
		Lesson: Lesson{Scenario: "forced-race", Strategy: "pg-blocking-claim",
			Shows: "the gate pauses A in its transaction; B waits on A's INSERT the whole pause, then gets A's 201, not 409 at once"},
	},
	{
		Anomaly: RefusalNotReplayed, Short: "rf", Kind: KindContract,
		Title: "Refusal not replayed: declined, then charged",
		What: "A charge was declined with the business refusal (402, insufficient funds), and a retry of the same key with " +
			"the same body got another answer (a 201, another body) or the ledger holds a charge for the key: the client was " +
			"told \"declined\", and what it took for a harmless retry paid once the account had been funded. A declined " +
			"charge is a completed result, like a 2xx: the IETF draft gives a retry the earlier result, \"success or an " +
			"error\", and Stripe replays a decline. A 5xx is not one (it says nothing about the charge, and is never replayed " +
			"under ietf), nor is a 409 for a duplicate still in flight.",
		Why: "The key layer stores only 2xx answers and releases the key otherwise, a common middleware default: " +
			"pg-success-only deletes the key row when the answer is not a 2xx, so the retry finds no key and is decided " +
			"again, now against the funded account; none has no key layer at all.",
		Avoid: "Store every final answer of work that completed, a business 4xx included, with the key (pg-tx stores the 402 " +
			"in the charging transaction, as every built-in strategy but pg-success-only and none does) and release the key " +
			"only on a technical failure (a 5xx, a store error). A service that forgets a declined key by design says so in its " +
			"profile (replay_refusals: false): the finding is then a documented deviation.",
		Cause: "The key layer stores only 2xx answers and releases the key otherwise, so a retry of a declined charge finds no key " +
			"and is decided again, now against the funded account.",
		Allowed: func(p api.Profile) bool { return p.RedecideRefusals }, // decided again by design: a deviation
		Lesson: Lesson{Scenario: "business-refusal", Strategy: "pg-success-only",
			Shows: "A is declined (402) and the key released; the account is funded, and B's retry of the same key and body charges: told declined, then charged"},
	},
}
