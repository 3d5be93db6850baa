package conformance

import (
	"time"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// Library versions, as the lock files pin them (conformance/fiber/go.sum,
// conformance/*/package-lock.json).
const (
	fiberVersion      = "github.com/gofiber/fiber/v2 v2.52.15, github.com/gofiber/storage/redis/v3 v3.4.3"
	nodeIdemVersion   = "@node-idempotency/core 1.0.11, storage-adapter-memory 1.0.2, storage-adapter-redis 1.0.2"
	powertoolsVersion = "@aws-lambda-powertools/idempotency 2.35.0, @redis/client 6.3.1"
	// powertoolsDynamoDBVersion: the AWS SDK packages are those
	// Powertools' documentation has installed beside it.
	powertoolsDynamoDBVersion = "@aws-lambda-powertools/idempotency 2.35.0, @aws-sdk/client-dynamodb 3.1178.0, @aws-sdk/lib-dynamodb 3.1178.0"
)

// Timeouts the library targets declare: a healthy charge, with the
// longest delay a scenario places inside it (500ms), is over within
// libraryClaim; none of them retains keys for less than an hour by default.
const (
	libraryClaim = time.Second
	// referenceTTL is what the reference rows are started with (claim and
	// key TTL), as cmd/idemchaos's own all-scenarios test starts paymentd.
	referenceTTL = 250 * time.Millisecond
	// lambdaTimeout is the Powertools target's function timeout, Lambda's
	// default: its in-progress records expire with it.
	lambdaTimeout = 3 * time.Second
)

const (
	fiberSource      = "gofiber/fiber v2.52.15, middleware/idempotency"
	nodeIdemSource   = "mahendraHegde/node-idempotency, packages/core"
	powertoolsSource = "aws-powertools/powertools-lambda-typescript v2.35.0, packages/idempotency"
	// powertoolsDynamoDBSource: the same package, its promises on DynamoDB.
	powertoolsDynamoDBSource = powertoolsSource + ", on DynamoDB"
)

var fiberPromises = []Promise{
	{"a request whose key is in the storage gets the stored response (status, headers, body) without reaching the handler", "middleware/idempotency/idempotency.go: New, maybeWriteCachedResponse"},
	{"requests with the same key are serialised by a lock, \"an in-memory locker for this process only\" by default, and the storage is read again once it is held", "middleware/idempotency/config.go: Config.Lock; locker.go: MemoryLock"},
	{"a handler that returns an error is not stored (\"return it and skip idempotency\"); every other response is, whatever its status", "middleware/idempotency/idempotency.go: New"},
	{"a request without the key header passes through; a key that is not 36 characters long is refused", "middleware/idempotency/config.go: ConfigDefault.KeyHeaderValidate"},
	{"no request fingerprint: the key alone finds the stored response", "middleware/idempotency/idempotency.go: New"},
}

var nodeIdemPromises = []Promise{
	{"\"Race Condition free\": onRequest claims the key with setIfNotExists(IN_PROGRESS) before the business logic runs", "packages/core/src/idempotency.ts: Idempotency.onRequest"},
	{"a duplicate while the key is IN_PROGRESS gets REQUEST_IN_PROGRESS (409) unless inProgressStrategy.wait is set", "packages/core/src/idempotency.ts: Idempotency.onRequest"},
	{"the request body is fingerprinted (blake2s256 of its JSON); another body under a completed key gets IDEMPOTENCY_FINGERPRINT_MISSMATCH (422)", "packages/core/src/idempotency.ts: Idempotency.getFingerPrint, onRequest"},
	{"onResponse stores the response, an error included (\"or error: your_error\"), and marks the key COMPLETE for cacheTTLMS (24 h)", "packages/core/src/idempotency.ts: Idempotency.onResponse; packages/core/Readme.md"},
	{"a storage adapter has no way to release a claim: setIfNotExists, set and get only", "packages/storage/src/storage.ts: StorageAdapter"},
	{"without a key the request is not idempotent unless enforceIdempotency is set", "packages/core/src/idempotency.ts: Idempotency.isEnabled"},
}

var powertoolsPromises = []Promise{
	{"an invocation saves an INPROGRESS record (SET NX) before the function runs; a concurrent one gets IdempotencyAlreadyInProgressError", "src/persistence/CachePersistenceLayer.ts: #putInProgressRecord; src/IdempotencyHandler.ts: determineResultFromIdempotencyRecord"},
	{"an in-progress record expires with the invocation's remaining time (registerLambdaContext, done by makeIdempotent for a handler); past it the next invocation runs again", "src/makeIdempotent.ts: makeIdempotent; src/persistence/BasePersistenceLayer.ts: saveInProgress"},
	{"a function that throws has its record deleted, so a retry runs it again; a returned value is stored as COMPLETED for expiresAfterSeconds (1 h)", "src/IdempotencyHandler.ts: getFunctionResult"},
	{"payloadValidationJmesPath compares the chosen part of the payload with the stored hash: IdempotencyValidationError", "src/persistence/BasePersistenceLayer.ts: validatePayload"},
	{"an event without the key is not idempotent unless throwOnNoIdempotencyKey is set", "src/IdempotencyHandler.ts: shouldSkipIdempotency"},
}

var powertoolsDynamoDBPromises = []Promise{
	{"an invocation saves an INPROGRESS record with a conditional PutItem: the key absent (attribute_not_exists), its record expired, or INPROGRESS past its in-progress expiry; " +
		"else ConditionalCheckFailedException, and the existing record decides (IdempotencyAlreadyInProgressError while INPROGRESS)",
		"src/persistence/DynamoDBPersistenceLayer.ts: _putRecord; src/IdempotencyHandler.ts: #saveInProgressOrReturnExistingResult, determineResultFromIdempotencyRecord"},
	{"the in-progress expiry is now plus the invocation's remaining time (registerLambdaContext, done by makeIdempotent for a handler); " +
		"without a Lambda context there is no remaining time, the record gets no in-progress expiry (a warning is logged), and an INPROGRESS record then blocks its key until the record's own expiry (1 h)",
		"src/persistence/BasePersistenceLayer.ts: saveInProgress; src/persistence/DynamoDBPersistenceLayer.ts: _putRecord"},
	{"a returned value is stored with an unconditional UpdateItem that sets COMPLETED and the response; a function that throws has its record deleted, so a retry runs it again",
		"src/persistence/DynamoDBPersistenceLayer.ts: _updateRecord, _deleteRecord; src/IdempotencyHandler.ts: getFunctionResult"},
	{"records are read with ConsistentRead; an expired record is treated as absent by the put's condition, whatever DynamoDB's TTL has deleted",
		"src/persistence/DynamoDBPersistenceLayer.ts: _getRecord, _putRecord"},
	{"payloadValidationJmesPath compares the chosen part of the payload with the stored hash: IdempotencyValidationError", "src/persistence/BasePersistenceLayer.ts: validatePayload"},
	{"an event without the key is not idempotent unless throwOnNoIdempotencyKey is set", "src/IdempotencyHandler.ts: shouldSkipIdempotency"},
}

var referencePromises = []Promise{
	{"idemchaos's own strategy, declared correct: it must pass every scenario that runs", "targets/strategy/design: Catalog"},
}

// Catalog is every conformance target, in table order: the references
// first, then the libraries.
var Catalog = []Target{
	reference(design.Reference, false),
	reference(design.Guarded, true),
	{Name: "fiber-memory", Library: "Fiber v2 middleware/idempotency, in-memory storage", Version: fiberVersion, Source: fiberSource,
		Kind: Go, Dir: "conformance/fiber", Replicas: 1, KeyHeader: "X-Idempotency-Key", ClaimTimeout: libraryClaim,
		Setup: "idempotency.New() defaults: its in-memory storage and lock; one process", Promises: fiberPromises},
	{Name: "fiber-redis", Library: "Fiber v2 middleware/idempotency, gofiber/storage/redis", Version: fiberVersion, Source: fiberSource,
		Kind: Go, Dir: "conformance/fiber", Redis: true, Replicas: 1, KeyHeader: "X-Idempotency-Key", ClaimTimeout: libraryClaim,
		Setup: "idempotency.New(Config{Storage: redis.New(...)}), the default lock; one process", Promises: fiberPromises},
	{Name: "fiber-redis-2", Library: "Fiber v2 middleware/idempotency, gofiber/storage/redis", Version: fiberVersion, Source: fiberSource,
		Kind: Go, Dir: "conformance/fiber", Redis: true, Replicas: 2, KeyHeader: "X-Idempotency-Key", ClaimTimeout: libraryClaim,
		Setup: "as fiber-redis, two processes sharing the Redis storage", Promises: fiberPromises},
	{Name: "node-idempotency-memory", Library: "@node-idempotency/core, MemoryStorageAdapter", Version: nodeIdemVersion, Source: nodeIdemSource,
		Kind: Node, Dir: "conformance/node-idempotency", Args: []string{"--storage", "memory"}, Replicas: 1, ClaimTimeout: libraryClaim,
		Setup: "new Idempotency(new MemoryStorageAdapter()) defaults, onRequest/onResponse as the Readme shows; one process", Promises: nodeIdemPromises},
	{Name: "node-idempotency-redis", Library: "@node-idempotency/core, RedisStorageAdapter", Version: nodeIdemVersion, Source: nodeIdemSource,
		Kind: Node, Dir: "conformance/node-idempotency", Args: []string{"--storage", "redis"}, Redis: true, Replicas: 2, ClaimTimeout: libraryClaim,
		Setup: "new Idempotency(new RedisStorageAdapter({url})) defaults; two processes sharing Redis", Promises: nodeIdemPromises},
	{Name: "powertools-redis", Library: "@aws-lambda-powertools/idempotency makeIdempotent, CachePersistenceLayer on @redis/client", Version: powertoolsVersion,
		Source: powertoolsSource, Kind: Node, Dir: "conformance/powertools", Args: []string{"--function-timeout-ms", "3000"}, Redis: true, Replicas: 2,
		ClaimTimeout: lambdaTimeout,
		Setup: "makeIdempotent(handler, {persistenceStore: new CachePersistenceLayer({client})}), key from the Idempotency-Key header, body validated; " +
			"each request an invocation with a Lambda-like context of Lambda's default 3 s timeout; two processes sharing Redis", Promises: powertoolsPromises},
	{Name: "powertools-dynamodb", Library: "@aws-lambda-powertools/idempotency makeIdempotent, DynamoDBPersistenceLayer on the AWS SDK v3", Version: powertoolsDynamoDBVersion,
		Source: powertoolsDynamoDBSource, Kind: Node, Dir: "conformance/powertools", Args: []string{"--store", "dynamodb", "--function-timeout-ms", "3000"},
		DynamoDB: &DynamoDBTable{Key: "id"}, StandIn: &Dynalite, Replicas: 2, ClaimTimeout: lambdaTimeout,
		Setup: "makeIdempotent(handler, {persistenceStore: new DynamoDBPersistenceLayer({tableName, clientConfig: {endpoint}})}), the table's partition key id; " +
			"key from the Idempotency-Key header, no payload validation (the default); each request an invocation with a Lambda-like context of Lambda's default 3 s timeout; " +
			"two processes sharing the table, on dynalite (see Stand-ins)", Promises: powertoolsDynamoDBPromises},
}

// reference is the row of a built-in strategy, served by paymentd with
// --failpoints and short TTLs, two replicas on one ledger.
func reference(strategy string, redis bool) Target {
	return Target{Name: strategy, Library: "idemchaos reference strategy " + strategy, Version: "built in", Source: "this repository",
		Kind: Paymentd, Args: []string{"--strategy", strategy, "--claim-ttl", referenceTTL.String(), "--key-ttl", referenceTTL.String()},
		Redis: redis, Replicas: 2, ClaimTimeout: referenceTTL, KeyTTL: referenceTTL,
		Setup:    "paymentd --strategy " + strategy + " --failpoints, claim and key TTL " + referenceTTL.String() + "; two processes on one ledger",
		Promises: referencePromises}
}
