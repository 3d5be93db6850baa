package conformance

// StandIn is a store a target runs on in place of the one the library's
// users run, and how it differs from it where a difference could change a
// verdict. A finding whose verdict depends on one says so (Finding.StandIn).
type StandIn struct {
	// Name and Version are the stand-in's ("dynalite", "4.0.0"); For is
	// the store it stands in for ("DynamoDB").
	Name, Version, For string
	// Dir holds the lock file that pins it, relative to the repository
	// root; the engine installs it there with npm ci and starts it.
	Dir string
	// Differences are what could change a verdict, each with whether and
	// how it does for the rows on it.
	Differences []string
}

// Dynalite is the DynamoDB the DynamoDB rows run on: dynalite, a DynamoDB
// implementation in Node on LevelDB that speaks DynamoDB's HTTP API,
// condition expressions included, started by idemchaos on a free loopback
// port with its data in a temporary directory.
var Dynalite = StandIn{Name: "dynalite", Version: "4.0.0", For: "DynamoDB", Dir: "conformance/dynalite",
	Differences: []string{
		"always strongly consistent: every read sees the last write. Powertools reads its records with ConsistentRead (`src/persistence/DynamoDBPersistenceLayer.ts: _getRecord`) and DynamoDB evaluates a condition on the item's latest state, so no verdict here depends on it",
		"no throttling and no transaction conflicts: Powertools uses no transactions, and a throttled call (which the AWS SDK retries, 3 attempts in all) is one more way for a write to fail, which the store-link cuts already make happen on purpose",
		"ReturnValuesOnConditionCheckFailure is ignored: a ConditionalCheckFailedException carries no old item, so Powertools reads the record with a second call, a GetItem (`src/IdempotencyHandler.ts: #saveInProgressOrReturnExistingResult`), where on DynamoDB the failed put returns it; between the two the record can change, and one deleted meanwhile (by a failing invocation) gets the duplicate IdempotencyItemNotFoundError, answered 500 (concurrent-duplicates showed it here)",
		"slower under load: dynalite is one Node process on the machine's 2 cores, beside the targets, Toxiproxy and the harness; under the race-hunting rounds of concurrent-duplicates its answers slow down (one request's conditional PutItem took 0.6 s in a run here), " +
			"where DynamoDB answers in milliseconds. A duplicate that meets a first invocation past its in-progress expiry (its COMPLETED write not yet landed) is charged again: one run of concurrent-duplicates here at a load of 16 showed it, the 3 seeds of this table at a load of 2 to 10 did not; such a double charge shows more often on dynalite than it would on DynamoDB",
		"no TTL: dynalite implements no UpdateTimeToLive (its DescribeTimeToLive answers DISABLED), so the TTL Powertools' documentation enables on `expiration` is not set and no record is deleted by expiry; Powertools does not rely on it (the put's condition treats an expired record as absent: `src/persistence/DynamoDBPersistenceLayer.ts: _putRecord`), and no scenario here waits an hour for a record to expire (key-expiry is skipped)",
	}}
