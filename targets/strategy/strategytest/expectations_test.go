package strategytest

import (
	"slices"
	"testing"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// mustFail is, for every strategy of the catalog, the cases its known flaw
// (DESIGN.md section 2, design.Info.Flaw) makes it fail; it must pass every
// other case. The correct designs must fail none.
var mustFail = map[string][]string{
	// No key layer: every retry charges again, whatever it carries, and a
	// duplicate waits on the first one's row lock, then charges too.
	"none": {caseReplay, caseMismatch, caseInFlight, caseOtherReplica, caseLostWrite, caseRefusal},
	// Per-process state: correct on one instance, blind on another.
	"memory": {caseOtherReplica},
	// Check-then-act: a duplicate let through between GET and SET charges
	// (forced by holding A after its check); a lost SET lets the retry charge.
	"redis-getset": {caseInFlight, caseLostWrite},
	// Two systems: with the response write lost, the claim expires and the
	// retry charges again.
	"redis-setnx": {caseLostWrite},
	// The claim is never released and lives as long as a key: 409 forever.
	"redis-sticky": {caseStoreError, caseLostWrite},
	// The 5xx is stored and replayed; and like redis-setnx, a lost response
	// write plus an expired claim charges again.
	"redis-cache-errors": {caseStoreError, caseLostWrite},
	// The key row committed in progress is never recovered: 409 forever.
	"pg-split-tx": {caseStoreError},
	// No fingerprint: the other payload is answered with the first one's charge.
	"pg-nofingerprint": {caseMismatch},
	// The claim is a plain INSERT ... ON CONFLICT DO NOTHING: B waits on
	// A's open transaction (B was held), then gets A's replay, not 409.
	"pg-blocking-claim": {caseInFlight},
	// Only a 2xx is stored: the declined key is released, and its retry,
	// once the account is funded, charges.
	"pg-success-only": {caseRefusal},
	// Without a standby it reads the primary: the gap between its look-up
	// and its charge lets a duplicate held after the check charge too.
	"pg-standby-read": {caseInFlight},
	// One server that does not crash loses nothing: its flaw shows only
	// on the replicated topology (scenario pg-async-commit-crash).
	"pg-async-commit": nil,
	// The debit commits in a first transaction: the killed second one
	// rolls back the charge row and the key, not the money.
	"pg-split-debit": {caseStoreError},
	"pg-tx":          nil,
	"redis-pg-guard": nil,

	// The designs on InnoDB (targets/strategy/innodb), on MariaDB only.
	// Every case applies to them: store-error kills the request's MariaDB
	// connection instead of its Postgres backend, and lost-response-write
	// ends the request after its COMMIT as it does for every design.
	// Measured with -race on 2 CPUs busy with other work: the whole table
	// 20 times (10 of them under stress-ng --cpu 6) and the InnoDB rows 80
	// times more (50 under stress-ng): each expectation below held on
	// every run. None depends on timing: each failure comes from a hold
	// the case releases itself, or from a cancel in the request's path.
	//
	// The one transaction: the claim, the charge and the stored answer
	// commit together, and a duplicate in flight is refused at once.
	"innodb-tx": nil,
	// The plain INSERT of the key row waits on A's open transaction: B is
	// held as long as A is (here, past the in-flight budget), then replays.
	"innodb-blocking-claim": {caseInFlight},
	// A is held after its look-up; B looks up, claims, charges and
	// commits (201, not 409); A's INSERT IGNORE then finds the key taken,
	// its second look-up (A's snapshot) does not see B's row, and A
	// charges again: two charges.
	"innodb-insert-ignore": {caseInFlight},
	// A is held after its locking read of the missing key (a gap lock);
	// B's locking read shares the gap, B charges and its INSERT waits on
	// A's gap lock: B is held as long as A is; once A resumes, A's debit
	// waits on B's account row and InnoDB kills one of the two (1213, a
	// 503: to A on every run measured, which had written nothing yet;
	// which one is InnoDB's choice, the failure is not).
	"innodb-select-for-update": {caseInFlight},
	// Its flaw as stated (a 402 leaves the key's GET_LOCK with the pooled
	// connection) shows in no case here: the refusal's retry lands on the
	// connection that holds the lock (the pool's only one), takes it again
	// and replays the 402, as in the engine's business-refusal. What the
	// table catches is the same mistake on the success path: RELEASE_LOCK
	// is a statement of its own after the COMMIT; with A's request ended
	// by then it is never sent, A is answered 503 for a charge that
	// committed, and the lock stays with the pooled connection.
	"innodb-get-lock": {caseLostWrite},
}

// crashOnly are the flawed designs no case on one running server can
// catch: their flaw needs a crash.
var crashOnly = map[string]bool{"pg-async-commit": true}

func expectedToFail(strategy, c string) bool { return slices.Contains(mustFail[strategy], c) }

// TestExpectationsCoverTheCatalog keeps the expectations in step with the
// catalog: every strategy listed, every flawed one caught somewhere, no
// correct one expected to fail, no unknown case named.
func TestExpectationsCoverTheCatalog(t *testing.T) {
	var cases []string
	for _, c := range contractCases() {
		cases = append(cases, c.name)
	}
	for _, info := range design.Catalog() {
		fails, ok := mustFail[info.Name]
		switch {
		case !ok:
			t.Errorf("%s has no expectations", info.Name)
		case info.Flaw != "" && len(fails) == 0 && !crashOnly[info.Name]:
			t.Errorf("%s is flawed (%s) but no case is expected to catch it", info.Name, info.Flaw)
		case info.Flaw == "" && len(fails) > 0:
			t.Errorf("%s is a correct design but is expected to fail %v", info.Name, fails)
		}
		for _, c := range fails {
			if !slices.Contains(cases, c) {
				t.Errorf("%s is expected to fail unknown case %q", info.Name, c)
			}
		}
	}
	if len(mustFail) != len(design.Names()) {
		t.Errorf("expectations for %d strategies; the catalog has %d", len(mustFail), len(design.Names()))
	}
}
