package strategytest

import (
	"context"

	"github.com/idemchaos/idemchaos/targets/strategy"
)

// contractCase is one row of the table, run against every strategy.
type contractCase struct {
	name string               // stable: the expectations name it
	tune func(*strategy.Deps) // optional adjustment of the strategy's Deps
	run  func(ctx context.Context, fx *fixture) violations
}

// The case names.
const (
	caseReplay       = "replay"              // a: same key twice, same body
	caseMismatch     = "mismatch"            // b: same key, another amount
	caseInFlight     = "in-flight"           // c: same key while the first is held
	caseStoreError   = "store-error"         // d: the SQL store (Postgres, MariaDB) fails under one request
	caseOtherReplica = "other-replica"       // e: the retry lands on another instance
	caseLostWrite    = "lost-response-write" // f: the response write after the commit is lost
	caseRefusal      = "refusal"             // g: a declined charge retried once the account is funded
)

func contractCases() []contractCase {
	return []contractCase{
		{name: caseReplay, run: replayCase},
		{name: caseMismatch, run: mismatchCase},
		{name: caseInFlight, run: inFlightCase},
		{name: caseStoreError, run: storeErrorCase},
		{name: caseOtherReplica, run: otherReplicaCase},
		{name: caseLostWrite, tune: shortClaim, run: lostWriteCase},
		{name: caseRefusal, run: refusalCase},
	}
}
