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
