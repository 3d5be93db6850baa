package conformance

import "github.com/idemchaos/idemchaos/scenarios/check"

// The families of rows a finding is about.
var (
	fiber       = []string{"fiber-"}
	fiberShared = []string{"fiber-redis-2"}
	fiberRedis  = []string{"fiber-redis", "fiber-redis-2"}
	nodeIdem    = []string{"node-idempotency-"}
	powertools  = []string{"powertools-"}
	libraries   = []string{"fiber-", "node-idempotency-", "powertools-"}

	// powertoolsRedis and powertoolsDynamoDB are Powertools' rows on one
	// persistence layer.
	powertoolsRedis    = []string{"powertools-redis"}
	powertoolsDynamoDB = []string{"powertools-dynamodb"}
)

// Findings explain, by the libraries' own code, every anomaly the table
// shows; the conformance test fails on one that none explains.
var Findings = []Finding{
	{Targets: libraries, Scenarios: []string{"missing-key"}, Anomaly: check.StatusContract,
		Text: "a request without a key is charged without idempotency instead of refused with 400: Fiber skips the middleware (`middleware/idempotency/idempotency.go: New`, \"Don't execute middleware if the idempotency key is empty\"), " +
			"@node-idempotency/core only refuses it with enforceIdempotency (`packages/core/src/idempotency.ts: Idempotency.isEnabled`), Powertools skips it unless throwOnNoIdempotencyKey (`src/IdempotencyHandler.ts: shouldSkipIdempotency`); documented, and what the stripe profile allows."},
	{Targets: fiber, Scenarios: []string{"concurrent-duplicates"}, Anomaly: check.HeldDuplicate,
		Text: "a duplicate of a key in flight waits on the middleware's per-key lock and then replays, instead of 409 at once (`middleware/idempotency/idempotency.go: New`, `cfg.Lock.Lock(key)` then the second `maybeWriteCachedResponse`; `locker.go: MemoryLock.Lock`): the hold probes, a duplicate sent while the first request is held at after-claim, show it on every pair; documented (\"Lock locks an idempotency key\")."},
	{Targets: fiber, Anomaly: check.HeldDuplicate, Timing: true,
		Text: "in the other scenarios the same per-key lock holds a duplicate only when it meets its first request in flight (`locker.go: MemoryLock.Lock`)."},
	{Targets: fiber, Scenarios: []string{"payload-mismatch"}, Anomaly: check.MismatchExecuted,
		Text: "a retry with another amount under a used key gets the first request's stored response as its own 2xx: the middleware keeps no fingerprint of the request, the key alone finds the response (`middleware/idempotency/idempotency.go: New, maybeWriteCachedResponse`).",
		Report: &Report{Title: "Fiber idempotency middleware replays a response to a request with a different body",
			Steps:    "POST /v1/charges {\"amount\":1500} with X-Idempotency-Key K, then POST {\"amount\":1900} with the same K.",
			Expected: "the second request is refused (422, the IETF draft's status for a key reused with another payload).",
			Actual:   "it gets 201 and the first charge of 1500 as its own answer; the client believes 1900 was charged."}},
	{Targets: fiber, Scenarios: []string{"payload-mismatch"}, Anomaly: check.LostAck,
		Text: "the same replay acknowledges an amount that was never charged (1900 acked, 1500 in the ledger): the stored response is keyed on the key alone (`middleware/idempotency/idempotency.go: New`)."},
	{Targets: fiberRedis, Scenarios: []string{"redis-fault-after-commit"}, Anomaly: check.DoubleCharge,
		Text: "when the storage write fails after the handler committed, the middleware answers 500 and stores nothing (`middleware/idempotency/idempotency.go: New`, \"failed to save response\"), so the retry finds the key absent and charges again.",
		Report: &Report{Title: "Fiber idempotency middleware charges twice when Storage.Set fails after the handler succeeded",
			Steps:    "Storage: gofiber/storage/redis. POST with key K; the handler commits its charge; Redis is unreachable when the middleware stores the response; the client gets 500 and retries K once Redis is back.",
			Expected: "the retry gets the charge's answer (or at least never charges again).",
			Actual:   "the retry runs the handler again: two charges for one key. Nothing marks the key before the handler runs, so a lost Storage.Set leaves no trace."}},
	{Targets: fiber, Scenarios: []string{"db-fault-after-commit"}, Anomaly: check.DoubleCharge,
		Text: "a handler that returns an error skips idempotency (`middleware/idempotency/idempotency.go: New`, \"If the request handler returned an error, return it and skip idempotency\"): the key is unlocked with nothing stored, so when the error is a COMMIT whose answer was lost (the charge committed, the handler's database driver saw its connection break) the retry runs the handler again and charges twice.",
		Report: &Report{Title: "Fiber idempotency middleware charges twice when the handler's commit succeeded but reported an error",
			Steps:    "POST with key K; the handler's COMMIT reaches the database and commits, but its answer is lost (the connection breaks): the handler returns fiber.NewError(503); the client retries K.",
			Expected: "the retry does not charge again: the key stays claimed (409) until someone checks, or the failure is recorded so a retry can find out.",
			Actual:   "the middleware stores nothing for an error and releases the key; the retry runs the handler again: two charges for one key. An error of unknown outcome is treated as no outcome."}},
	{Targets: fiberShared, Anomaly: check.DoubleCharge, Timing: true,
		Text: "two replicas sharing the Redis storage each take their own in-process lock (`middleware/idempotency/config.go: Config.Lock`, \"an in-memory locker for this process only\"; `locker.go: MemoryLock`), and the storage is written only after the handler: concurrent duplicates on two replicas both find the key absent and both charge.",
		Report: &Report{Title: "Fiber idempotency middleware double-charges across replicas sharing a storage",
			Steps:    "Two Fiber processes, both with idempotency.New(Config{Storage: redis.New(...)}) and the default Lock; send the same POST with the same X-Idempotency-Key to both at once.",
			Expected: "one charge; the other request gets 409 or the replay.",
			Actual:   "both run the handler: two charges for one key. The default Lock is per process and the storage holds nothing until the handler returns; the docs do not say a shared storage needs a shared Locker."}},
	{Targets: fiberShared, Anomaly: check.ReplayMismatch, Timing: true,
		Text: "the two charges of that race give the key two different 2xx answers, and the last Storage.Set decides which one later retries replay (`middleware/idempotency/idempotency.go: New`)."},
	{Targets: nodeIdem, Scenarios: []string{"db-fault-mid-request", "db-fault-after-commit"}, Anomaly: check.CachedError,
		Text: "a 503 of the charge is stored as the key's final response and replayed to every retry for 24 h: onResponse stores `error` like a body and marks the key COMPLETE (`packages/core/src/idempotency.ts: Idempotency.onResponse`; the Express plugin stores every status, `packages/plugin-express/src/middleware.ts: handleResponse`), and a storage adapter cannot release a claim (`packages/storage/src/storage.ts: StorageAdapter` has no delete). After a COMMIT whose answer was lost the stored 503 even tells every retry that a charge failed which went through.",
		Report: &Report{Title: "@node-idempotency/core: a transient failure poisons the key for cacheTTLMS",
			Steps:    "onRequest for key K; the business logic fails on a database error (503); onResponse({error, additional: {statusCode: 503}}) as the Readme shows; the client retries K.",
			Expected: "the retry runs again (a 5xx is never replayed, IETF draft), or the library offers a way to release the claim.",
			Actual:   "every retry gets the stored 503 for 24 h; the alternative, not calling onResponse, leaves the key IN_PROGRESS (409) for 24 h: the StorageAdapter has no delete."}},
	{Targets: []string{"node-idempotency-redis"}, Scenarios: []string{"redis-fault-after-commit"}, Anomaly: check.StuckKey,
		Text: "when Redis is out of reach as the charge's answer is stored, onResponse fails with the adapter's SET (`packages/core/src/idempotency.ts: Idempotency.onResponse`; `packages/storage-adapter-redis/src/adapter-redis.ts: RedisStorageAdapter.set`) and nothing can release the claim (`packages/storage/src/storage.ts: StorageAdapter` has no delete): the key stays IN_PROGRESS for cacheTTLMS, and every retry of the charge that went through gets 409."},
	{Targets: nodeIdem, Scenarios: []string{"payload-mismatch"}, Anomaly: check.StatusContract,
		Text: "a reused key with another body gets 422, the IETF status, where the stripe profile expects 400 (`packages/shared/src/http.ts: idempotency2HttpCodeMap`); documented."},
	{Targets: powertools, Scenarios: []string{"payload-mismatch"}, Anomaly: check.MismatchExecuted,
		Text: "without payloadValidationJmesPath the record holds no payload hash, so another amount under the key gets the first invocation's stored result (`src/persistence/BasePersistenceLayer.ts: validatePayload` is a no-op); the documented default."},
	{Targets: powertools, Scenarios: []string{"payload-mismatch"}, Anomaly: check.LostAck,
		Text: "the same replay acknowledges an amount that was never charged (`src/IdempotencyHandler.ts: determineResultFromIdempotencyRecord` returns the stored response whatever the payload)."},
	{Targets: powertoolsRedis, Scenarios: []string{"redis-fault-after-commit"}, Anomaly: check.DoubleCharge,
		Text: "when the cache is unreachable as the function returns, the COMPLETED write does not land before the record's in-progress expiry (the invocation's remaining time): @redis/client holds the command in its offline queue while it reconnects (`src/IdempotencyHandler.ts: #saveSuccessfulResult`); a retry after that expiry finds the INPROGRESS record orphaned, overwrites it and runs the function again (`src/persistence/CachePersistenceLayer.ts: #putInProgressRecord`).",
		Report: &Report{Title: "Powertools idempotency runs a function twice when the cache is down as it returns",
			Steps:    "makeIdempotent on a handler with CachePersistenceLayer over @redis/client; the handler commits a payment; the cache becomes unreachable before saveSuccess and stays so past the invocation's timeout; the client retries.",
			Expected: "the retry gets the payment's result, or an error, never a second payment.",
			Actual:   "saveSuccess waits in the client's offline queue; the retry finds the INPROGRESS record past its in-progress expiry, takes it over as orphaned and runs the handler again: two payments."}},
	{Targets: powertools, Scenarios: []string{"db-fault-after-commit"}, Anomaly: check.DoubleCharge,
		Text: "a function that throws has its idempotency record deleted (`src/IdempotencyHandler.ts: #deleteInProgressRecord`, called from the catch of `getFunctionResult`): a COMMIT whose answer was lost throws like any failure though the charge committed, the record goes, and the retry runs the function again.",
		Report: &Report{Title: "Powertools idempotency runs a function twice when its commit succeeded but reported an error",
			Steps:    "makeIdempotent on a handler that charges in a database transaction; the COMMIT reaches the database and commits, but its answer is lost (the connection breaks), so the handler throws; the client retries.",
			Expected: "the retry gets an error or the result, never a second charge: a failure of unknown outcome cannot be taken for no outcome.",
			Actual:   "the INPROGRESS record is deleted on the throw, the retry finds no record and runs the handler again: two charges."}},
	{Targets: powertoolsRedis, Scenarios: []string{"concurrent-duplicates", "forced-race", "retry-storm", "client-timeout-retry"}, Anomaly: check.DoubleCharge, Timing: true,
		Text: "an invocation that outlives its in-progress expiry (a loaded machine) is taken over by a retry as orphaned (`src/persistence/CachePersistenceLayer.ts: #putInProgressRecord`), and a failing invocation deletes the key's record whoever wrote it last (`src/IdempotencyHandler.ts: #deleteInProgressRecord`), so a later retry runs the function again."},
	{Targets: powertoolsRedis, Scenarios: []string{"concurrent-duplicates", "forced-race", "retry-storm", "client-timeout-retry"}, Anomaly: check.ReplayMismatch, Timing: true,
		Text: "the second run's result overwrites the first in the COMPLETED record (`src/persistence/CachePersistenceLayer.ts: _updateRecord`, a plain SET), so the key's 2xx answers name two charges."},
	{Targets: powertoolsRedis, Scenarios: []string{"concurrent-duplicates", "forced-race", "retry-storm", "client-timeout-retry"}, Anomaly: check.StatusContract, Timing: true,
		Text: "a duplicate whose SET NX fails reads the record with a GET (`src/persistence/CachePersistenceLayer.ts: #putInProgressRecord`); when a failing invocation deleted it in between " +
			"(`src/IdempotencyHandler.ts: #deleteInProgressRecord`), `_getRecord` throws IdempotencyItemNotFoundError, which `#saveInProgressOrReturnExistingResult` turns into " +
			"IdempotencyPersistenceLayerError: answered 500 instead of 409 (seen at a load of 20 under concurrent-duplicates, beside the double charge above)."},
	{Targets: powertoolsDynamoDB, Scenarios: []string{"dynamodb-fault-after-commit"}, Anomaly: check.DoubleCharge,
		Text: "when DynamoDB is out of reach as the function returns, the UpdateItem that marks the record COMPLETED fails (`src/persistence/DynamoDBPersistenceLayer.ts: _updateRecord`; the AWS SDK tries it 3 times) " +
			"and `src/IdempotencyHandler.ts: #saveSuccessfulResult` throws IdempotencyPersistenceLayerError; only a throw of the function itself deletes the record (`getFunctionResult`), so it stays INPROGRESS: " +
			"retries get IdempotencyAlreadyInProgressError (409) until its in-progress expiry, the invocation's remaining time, and then `_putRecord`'s condition (INPROGRESS and `#in_progress_expiry < :now_in_millis`) " +
			"lets a retry take the key over and run the function again. A lost COMPLETED write charges twice, as on Redis, where the write waits in the client's offline queue instead of failing. " +
			"Outside Lambda (no remaining time: `src/persistence/BasePersistenceLayer.ts: saveInProgress` writes no in-progress expiry) the same record answers 409 until its own expiry, an hour, and the retry after that charges again.",
		Report: &Report{Title: "Powertools idempotency (DynamoDB) runs a function twice when the COMPLETED update fails",
			Steps: "makeIdempotent on a Lambda handler with DynamoDBPersistenceLayer; the handler commits a payment and returns; the UpdateItem that marks the record COMPLETED fails " +
				"(DynamoDB unreachable, or throttled past the SDK's retries), so the invocation ends with IdempotencyPersistenceLayerError; the client retries once the function's timeout has passed.",
			Expected: "the retry gets the payment's result, or an error, never a second payment.",
			Actual:   "the INPROGRESS record is left to expire with the invocation's timeout; the retry's conditional PutItem then takes it over and runs the handler again: two payments."}},
	{Targets: powertoolsDynamoDB, Scenarios: []string{"concurrent-duplicates", "forced-race", "retry-storm", "client-timeout-retry"}, Anomaly: check.DoubleCharge, Timing: true, StandIn: true,
		Text: "an invocation whose COMPLETED write lands after its in-progress expiry (the invocation's remaining time) is taken over by a retry: `src/persistence/DynamoDBPersistenceLayer.ts: _putRecord`'s condition accepts an INPROGRESS record " +
			"whose `#in_progress_expiry < :now_in_millis`, and the retry runs the function again; here the write is late because dynalite on the loaded 2-core machine answers slowly under the race-hunting rounds (see Stand-ins), " +
			"in Lambda a function that commits near its timeout and is stopped before its UpdateItem does the same."},
	{Targets: powertoolsDynamoDB, Scenarios: []string{"concurrent-duplicates", "forced-race", "retry-storm", "client-timeout-retry"}, Anomaly: check.ReplayMismatch, Timing: true, StandIn: true,
		Text: "the late invocation's COMPLETED write then overwrites the retry's (`src/persistence/DynamoDBPersistenceLayer.ts: _updateRecord`, an UpdateItem without a condition), so the key's 2xx answers name two charges."},
	{Targets: powertoolsDynamoDB, Scenarios: []string{"concurrent-duplicates", "forced-race", "retry-storm", "client-timeout-retry"}, Anomaly: check.StatusContract, Timing: true, StandIn: true,
		Text: "a duplicate whose conditional PutItem fails reads the record it failed on with a GetItem, as dynalite returns no old item with the ConditionalCheckFailedException (see Stand-ins; " +
			"`src/IdempotencyHandler.ts: #saveInProgressOrReturnExistingResult`); when a failing invocation deleted the record in between (`#deleteInProgressRecord`), " +
			"`src/persistence/DynamoDBPersistenceLayer.ts: _getRecord` throws IdempotencyItemNotFoundError, answered 500 instead of 409. On DynamoDB the failed put returns the record it failed on, with no second read."},
}

// Inconclusives explain the cells that prove nothing, one per cause.
var Inconclusives = []Unproved{
	{Targets: nodeIdem, Scenarios: []string{"db-fault-mid-request"}, Profile: "stripe",
		Text: "the 503 of the charge the fault broke is stored as the key's COMPLETE response and every retry gets it back (`packages/core/src/idempotency.ts: Idempotency.onResponse`), " +
			"which the stripe profile allows for a key whose work committed nothing: no retry ever charges, so the run cannot show how the key recovers (under ietf the same replay is the cached_error finding)."},
}
