package reports

import (
	"fmt"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// Explanation tells a reader what an anomaly means, why the strategies that
// show it do, and what avoids it. Every field is plain text.
type Explanation struct {
	Name  string // the anomaly name as the checker reports it
	Title string // a few words
	What  string // what happened, in domain words
	Why   string // why it happens, in terms of the built-in strategies
	Avoid string // which strategy or technique avoids it
	// Cause is why it happens in one sentence that names no strategy: a
	// demo says it, then the flaw of the strategy it shows.
	Cause string
}

// causes are the anomalies' Cause sentences.
var causes = map[check.Anomaly]string{
	check.DoubleCharge:     "A retry reached a server that did not know the first attempt had committed, and it charged again.",
	check.LostAck:          "The answer came from a record that disagrees with the ledger: a response stored apart from the charge, while the charge rolled back or was made twice, or a replay naming a charge made for another payload.",
	check.ReplayMismatch:   "The retry was executed again instead of replayed, or the replayed response was rebuilt rather than stored verbatim.",
	check.MismatchExecuted: "No fingerprint of the request body was kept with the key, so the server cannot tell a true retry from another operation.",
	check.Balance:          "The balance update and the charge insert were not one transaction, or a fault cut the connection between them and only one side committed.",
	check.StatusContract:   "The server blocked, failed or answered another status than the profile's where the contract wants a refusal at once.",
	check.StuckKey:         "A failure left the key's claim in progress, and nothing releases or reclaims it.",
	check.StoreDesync:      "Redis and Postgres share no transaction: the charge commits in Postgres and the write of its response to Redis can be lost, or overwritten by a later charge.",
	check.CachedError:      "A 5xx answer was stored with the key like any response, so every retry gets the failure back.",
	check.HeldDuplicate:    "The claim waits instead of failing: a second request for a key in flight blocks until the first one ends.",
	check.RefusalNotReplayed: "The key layer stores only 2xx answers and releases the key otherwise, so a retry of a declined charge finds no key " +
		"and is decided again, now against the funded account.",
}

// WhyFor is why the anomaly happens with one strategy: the anomaly's cause,
// then the strategy's mechanism and flaw, as the strategy catalog says them.
func (e Explanation) WhyFor(strategy string) string {
	s, err := design.Lookup(strategy)
	if err != nil || e.Cause == "" {
		return e.Why
	}
	flaw := s.Flaw
	if flaw == "" {
		flaw = "none declared"
	}
	return fmt.Sprintf("%s Here %s: %s; its flaw: %s.", e.Cause, s.Name, s.Mechanism, flaw)
}

var explanations = map[check.Anomaly]Explanation{
	check.DoubleCharge: {
		Title: "Double charge: one key, several ledger charges",
		What: "The ledger holds more than one charge for the same account and Idempotency-Key: " +
			"the client meant to pay once and retried, the customer paid several times.",
		Why: "A retry reached a server that did not know the first attempt had committed. none charges on every retry; " +
			"memory keeps claims per process, so a retry routed to another replica runs again; redis-getset checks, then acts, " +
			"so concurrent duplicates both find the key absent; redis-setnx loses the completed response when the Redis write fails " +
			"after the Postgres commit (or its claim expires during a slow charge), and the retry charges again.",
		Avoid: "Claim the key atomically with the money movement: pg-tx takes the key's lock without waiting (a duplicate in " +
			"flight gets 409), charges and writes the key row with its response in one transaction, so the key and the money " +
			"commit together; redis-pg-guard uses Redis only for the fast 409 path and runs the same transaction behind it, so " +
			"Postgres refuses a second charge whatever Redis says.",
	},
	check.LostAck: {
		Title: "Lost acknowledgement: a 2xx without its charge",
		What: "The client got a 2xx, but the ledger does not hold exactly one matching charge (same account, same amount): " +
			"the API acknowledged money that did not move as promised.",
		Why: "The answer came from a store that disagrees with the ledger: a response recorded in Redis or in a key row committed " +
			"apart from the charge (redis-setnx, pg-split-tx), while the charge itself rolled back or was made twice; " +
			"or a replay that names a charge made for another payload.",
		Avoid: "Store the response in the same transaction as the charge (pg-tx), or answer from the ledger row found by its unique " +
			"idempotency key (redis-pg-guard); never answer 2xx before the commit.",
	},
	check.ReplayMismatch: {
		Title: "Replay mismatch: retries see different answers",
		What: "Two 2xx answers for the same key and payload disagree on the status, the charge id or the body (byte for byte, " +
			"or field for field when the target is compared as JSON); a retry must receive exactly the original response. " +
			"Every completed key is probed again after the traffic, so a replay that differs is caught even when its client " +
			"saw a single 2xx (after a dropped response it sees only the replay).",
		Why: "The retry was executed again instead of replayed (none; memory on another replica; the redis-getset race; " +
			"redis-setnx after a lost Redis write), or the replayed response was rebuilt rather than stored verbatim " +
			"(a fresh timestamp, today's balance).",
		Avoid: "Store the final response (status, headers, body) with the key when the work commits and replay it byte for byte, " +
			"as pg-tx does in the charging transaction and redis-pg-guard does from the ledger row Postgres keeps unique.",
	},
	check.MismatchExecuted: {
		Title: "Payload mismatch executed: same key, different request",
		What:  "A request reused a key with a different payload (another amount) and was charged or answered 2xx.",
		Why: "No fingerprint of the request body was stored with the key, so the server cannot tell a true retry from another " +
			"operation: pg-nofingerprint replays or executes it, none simply executes it.",
		Avoid: "Store the SHA-256 of the request body with the key and refuse a retry whose hash differs (422 under the ietf " +
			"profile, 400 under stripe), as pg-tx and redis-pg-guard do.",
	},
	check.Balance: {
		Title: "Balance mismatch: the account disagrees with its charges",
		What: "An account's balance is not its opening balance minus the sum of its ledger charges: money moved without a " +
			"charge row, or a charge row exists without the money.",
		Why: "The balance update and the charge insert were not one transaction, or a fault cut the connection between them " +
			"and only one side committed.",
		Avoid: "Move the balance, insert the charge and claim the key in one Postgres transaction, as pg-tx does, so a failure " +
			"rolls everything back.",
	},
	check.StatusContract: {
		Title: "Status contract broken: a code the profile forbids",
		What: "A status the contract profile does not allow: no 409 for a duplicate still in flight, not 422 (ietf) or 400 " +
			"(stripe) for a payload mismatch, not 400 for a missing key under ietf, or a 5xx for a concurrent duplicate.",
		Why: "The strategy blocks or fails instead of refusing at once: a second INSERT ... ON CONFLICT DO NOTHING waits for the " +
			"open transaction that inserted the key, then times out; a store error surfaces as a 500; the fingerprint check is " +
			"missing (none, pg-nofingerprint).",
		Avoid: "Answer an in-flight duplicate with 409 at once through a non-blocking claim (Redis SET NX, " +
			"pg_try_advisory_xact_lock, NOWAIT or lock_timeout), as pg-tx and redis-pg-guard do, and map every situation " +
			"to the profile's code.",
	},
	check.StuckKey: {
		Title: "Stuck key: a poisoned key answers 409 forever",
		What: "After the faults healed and in-flight work ended, a retry of the key still got a refusal (409) beyond the claim " +
			"timeout: the key is poisoned and the payment cannot complete with it.",
		Why: "A claim was left in progress: redis-sticky never releases its Redis claim on error, so the key answers 409 until " +
			"the TTL; pg-split-tx commits the key row in one transaction and the charge in another, with no recovery when a " +
			"failure falls between them.",
		Avoid: "Release the claim when the work fails (DEL in Redis, as redis-setnx does), or keep the claim in the charging " +
			"transaction so a failure rolls it back (pg-tx); bound every claim by a timeout after which it may be reclaimed.",
	},
	check.StoreDesync: {
		Title: "Store desync: Redis and Postgres disagree",
		What: "For a two-store strategy, the Redis idempotency record and the Postgres ledger disagree: Postgres charged a key " +
			"that Redis holds no completed response for (missing, still claimed, expired), or Redis names another charge.",
		Why: "Redis and Postgres share no transaction: redis-setnx commits the charge in Postgres, then the write of the " +
			"completed response to Redis is lost; the claim is released or expires, and a retry charges again.",
		Avoid: "Make Postgres the source of truth: redis-pg-guard writes the key row in the charge's own transaction, so a " +
			"retry that gets past Redis finds it in Postgres and is answered from it; or keep the whole record in Postgres (pg-tx).",
	},
	check.CachedError: {
		Title: "Cached error: a 5xx replayed to every retry",
		What: "A 5xx answer was stored with the key and replayed to a retry although the profile forbids replaying errors: " +
			"the key is poisoned with a failure that committed nothing.",
		Why: "redis-cache-errors caches every response, 5xx included; after a database fault mid-request every retry gets " +
			"the cached 500 until the key expires.",
		Avoid: "Never cache a 5xx: store only the response of work that committed (or a definitive 4xx), and release the claim " +
			"on error so the key stays retryable, as pg-tx and redis-setnx do.",
	},
	check.HeldDuplicate: {
		Title: "Held duplicate: a retry blocked until the first request finished",
		What: "A duplicate sent while the first request of its key was still executing was held on the server until that " +
			"request finished, then got its 2xx, where the profile wants the in-flight status (409) at once. No money is lost, " +
			"but every duplicate holds a connection, a worker and a client for as long as the slowest charge, a retry that " +
			"times out while held is sent again and held again, and a retry storm piles up behind one slow payment: " +
			"the source text calls blocking the second request the worst mistake.",
		Why: "The claim waits instead of failing: pg-blocking-claim claims the key with a plain INSERT ... ON CONFLICT DO NOTHING, " +
			"and Postgres makes a second INSERT of a key that an open transaction inserted wait for that transaction to end; " +
			"then the row is there, completed, and the duplicate gets the replay. A mutex around the key, or a sleep-and-poll " +
			"loop on an in-progress record, does the same.",
		Avoid: "Claim without waiting and answer an in-flight duplicate 409 at once: take pg_try_advisory_xact_lock on the key " +
			"before the INSERT (pg-tx), or set lock_timeout or use NOWAIT, or claim in Redis with SET NX (redis-pg-guard); the " +
			"client retries the 409 with backoff and gets the replay. A service that waits on purpose declares it in its " +
			"profile (in_flight: wait).",
	},
	check.RefusalNotReplayed: {
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
	},
}

// Explain returns the explanation of an anomaly; an unknown name gets a
// generic one that still names it.
func Explain(anomaly check.Anomaly) Explanation {
	e, ok := explanations[anomaly]
	if !ok {
		e = Explanation{
			Title: "Anomaly " + string(anomaly),
			What:  "The checker reported an anomaly this version of idemchaos has no explanation for; the findings carry its evidence.",
			Why: "Idempotency breaks where the key is not claimed atomically with the money movement, where two stores drift " +
				"apart, or where a failed attempt leaves its key claimed or its error cached.",
			Avoid: "Claim the key, charge and store the response in one transaction (pg-tx), fingerprint the request body, " +
				"never cache a 5xx, and release claims on error.",
		}
	}
	e.Name, e.Cause = string(anomaly), causes[anomaly]
	return e
}
