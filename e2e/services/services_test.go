package services

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// exitPass and its siblings are the exit codes idemchaos documents.
const (
	exitPass     = 0
	exitViolated = 1
)

// TestAccountLockPasses: a correct service whose queries all run on the
// request's context, whose charges queue on the account's row lock behind
// a 150 to 400 ms provider call, passes every scenario that runs against
// it. client-timeout-retry's clients give up inside its charge and leave
// their connections open, as in a partition: the charges commit, the
// retries get 409 and then the replay.
func TestAccountLockPasses(t *testing.T) {
	t.Parallel()
	s := start(t, "accountlock")
	scs := []string{"client-timeout-retry", "concurrent-duplicates", "dropped-response", "payload-mismatch", "missing-key"}
	v := s.judge(t, strings.Join(scs, ","), seeds(t), atFloor()...)
	if v.code != exitPass {
		t.Errorf("exit %d, want %d\n%s", v.code, exitPass, v.stderr)
	}
	for _, sc := range scs {
		v.expect(t, sc, "pass", "")
	}
	if strings.Contains(v.stderr, "is it up") {
		t.Errorf("a service that answered was asked whether it is up:\n%s", v.stderr)
	}
}

// TestExpiringClaimCaught: a claim that expires while the provider still
// charges lets the retry of a client that gave up charge again; the
// client's hang-up must not cancel the first charge (its connection stays
// open), so client-timeout-retry catches it on every seed.
func TestExpiringClaimCaught(t *testing.T) {
	t.Parallel()
	s := start(t, "expiringclaim")
	v := s.judge(t, "client-timeout-retry", seeds(t))
	if v.code != exitViolated {
		t.Errorf("exit %d, want %d\n%s", v.code, exitViolated, v.stderr)
	}
	v.expect(t, "client-timeout-retry", "fail", "double_charge", "replay_mismatch", "lost_ack")
}

// TestJSONBStorePassesAsJSON: a correct service that keeps its responses
// in a JSONB column replays the same JSON in other bytes (Postgres renders
// the value anew). By default that is a deviation, shown and never a
// failure; byte for byte (--replay-compare bytes) it is a replay_mismatch
// wherever a key's first answer and a replay are both seen.
func TestJSONBStorePassesAsJSON(t *testing.T) {
	t.Parallel()
	s := start(t, "jsonbstore")
	n := seeds(t)
	v := s.judge(t, "dropped-response,payload-mismatch,concurrent-duplicates", n, atFloor()...)
	if v.code != exitPass {
		t.Errorf("exit %d, want %d\n%s", v.code, exitPass, v.stderr)
	}
	v.expect(t, "dropped-response", "pass", "")
	v.expect(t, "payload-mismatch", "pass", "")
	v.expect(t, "concurrent-duplicates", "pass", "")
	drifted := 0
	for _, r := range v.doc.Results {
		for _, d := range r.Deviations {
			if strings.Contains(d.Detail, "the same JSON") {
				drifted++
			}
		}
	}
	if drifted == 0 {
		t.Error("no replay was shown as a deviation: the JSONB column's bytes went unremarked")
	}
	// byte for byte, on a scenario where every key's first answer is seen
	// (after a dropped response the client may see only replays, all
	// rendered by Postgres alike)
	v = s.judge(t, "concurrent-duplicates", n, atFloor("--replay-compare", "bytes")...)
	if v.code != exitViolated {
		t.Errorf("byte for byte: exit %d, want %d\n%s", v.code, exitViolated, v.stderr)
	}
	v.expect(t, "concurrent-duplicates", "fail", "replay_mismatch")
}

// TestCheckThenSetCaught: a Redis claim that is a GET then a SET (no NX)
// leaves a sub-millisecond window between the look-up and the mark: a
// run of one round meets it now and then; concurrent-duplicates sends
// rounds until its overlaps reach the power target, and catches the
// double charge on every seed.
func TestCheckThenSetCaught(t *testing.T) {
	t.Parallel()
	s := start(t, "checkthenset")
	v := s.judge(t, "concurrent-duplicates", seeds(t), atFloor()...)
	if v.code != exitViolated {
		t.Errorf("exit %d, want %d\n%s", v.code, exitViolated, v.stderr)
	}
	v.expect(t, "concurrent-duplicates", "fail", "double_charge", "replay_mismatch", "lost_ack", "held_duplicate")
}

// TestHoldsCaught: a duplicate that waits for its key's first request (an
// in-process mutex per key, with charges queueing on the account's row
// lock; an INSERT waiting on the first request's uncommitted key row; the
// account's row lock taken before the key is looked at) is caught by the
// hold probes on every seed, though no service charges twice.
func TestHoldsCaught(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"mutexhold", "inserthold", "accounthold"} {
		s := start(t, name)
		v := s.judge(t, "concurrent-duplicates", seeds(t), atFloor()...)
		if v.code != exitViolated {
			t.Errorf("%s: exit %d, want %d\n%s", name, v.code, exitViolated, v.stderr)
		}
		v.expect(t, "concurrent-duplicates", "fail", "held_duplicate")
		for _, r := range v.doc.Results {
			if r.Holds == nil || r.Holds.Refused > 0 || r.Holds.Held < r.Holds.Pairs/2 {
				t.Errorf("%s seed %d: hold probes %+v; want most pairs held, none refused", name, r.Seed, r.Holds)
			}
		}
	}
}

// TestMariaDBNowaitPasses: a correct service on MariaDB (one READ
// COMMITTED transaction; the key's row read FOR UPDATE NOWAIT, so a
// duplicate in flight gets 409 at once; the key claimed by INSERT under
// its primary key; the account's row locked; the response stored in the
// same transaction), judged with its ledger read from MariaDB
// (--ledger-url mysql://), passes every scenario that runs against it.
func TestMariaDBNowaitPasses(t *testing.T) {
	t.Parallel()
	s := startMySQL(t, "mariadbnowait")
	scs := []string{"client-timeout-retry", "concurrent-duplicates", "dropped-response", "payload-mismatch"}
	v := s.judge(t, strings.Join(scs, ","), seeds(t), atFloor()...)
	if v.code != exitPass {
		t.Errorf("exit %d, want %d\n%s", v.code, exitPass, v.stderr)
	}
	for _, sc := range scs {
		v.expect(t, sc, "pass", "")
	}
	// the hold probes saw duplicates in flight refused (a late answer to
	// one pair under load is then the machine, not the service)
	for _, r := range v.doc.Results {
		if h := r.Holds; r.Scenario == "concurrent-duplicates" && (h == nil || h.Refused == 0) {
			t.Errorf("seed %d: hold probes %+v; want duplicates in flight refused", r.Seed, h)
		}
	}
}

// TestMariaDBSnapshotCaught: a check-then-insert on MariaDB at REPEATABLE
// READ, whose second look-up "under the account's lock" reads the
// transaction's snapshot, charges every duplicate sent together:
// concurrent-duplicates fails with double_charge on every seed, judged
// from its MariaDB ledger. Its key's stored answer is the last charge's
// (ON DUPLICATE KEY UPDATE): replays differ from the first answers
// (replay_mismatch), and a duplicate whose transaction began after one
// of the charges committed gets that charge's answer, which from the
// client's timings is a duplicate held until its original ended
// (held_duplicate).
func TestMariaDBSnapshotCaught(t *testing.T) {
	t.Parallel()
	s := startMySQL(t, "mariadbsnapshot")
	v := s.judge(t, "concurrent-duplicates", seeds(t), atFloor()...)
	if v.code != exitViolated {
		t.Errorf("exit %d, want %d\n%s", v.code, exitViolated, v.stderr)
	}
	v.expect(t, "concurrent-duplicates", "fail", "double_charge", "replay_mismatch", "lost_ack", "held_duplicate")
}

// TestMariaDBGapLockCaught: a service that locks a key's row that does
// not exist yet (SELECT ... FOR UPDATE, at REPEATABLE READ) gives every
// duplicate the same gap lock, and the first request's INSERT of the key
// deadlocks with a duplicate waiting on the account's row: InnoDB rolls
// one back and it gets 503. It charges once, but a duplicate in flight
// gets 503 where the profile answers 409: concurrent-duplicates fails
// with status_contract from the client's own timings (no server log), and
// so does forced-race, where the gated request is the one rolled back.
// Never inconclusive. A duplicate whose locking read queues behind the
// first request's insert reads the committed row once the first commits
// and replays it: held, now and then (held_duplicate).
func TestMariaDBGapLockCaught(t *testing.T) {
	t.Parallel()
	s := startMySQL(t, "mariadbgaplock", "--failpoints")
	v := s.judge(t, "concurrent-duplicates,forced-race", seeds(t), atFloor("--failpoints")...)
	if v.code != exitViolated {
		t.Errorf("exit %d, want %d\n%s", v.code, exitViolated, v.stderr)
	}
	v.expect(t, "concurrent-duplicates", "fail", "status_contract", "held_duplicate")
	v.expect(t, "forced-race", "fail", "status_contract", "held_duplicate")
	for _, r := range v.doc.Results {
		for _, f := range r.Findings {
			if f.Anomaly == check.StatusContract && (len(f.Attempts) != 2 || !strings.Contains(f.Detail, "in flight")) {
				t.Errorf("%s seed %d: %q names %v; want both attempts of a duplicate in flight", r.Scenario, r.Seed, f.Detail, f.Attempts)
			}
		}
	}
}

// TestMariaDBInsertWaitCaught: a service whose duplicate's INSERT of the
// key waits on the first request's uncommitted key row holds every
// duplicate in flight until the first commits, then replays. Under
// forced-race the harness's gate holds the first request (a second, with
// its key row locked): the duplicate waits that long too, and is a held
// duplicate all the same; the gate's second is the harness's, never the
// service's, so it is taken out of the first request's time before the
// duplicate's wait is judged. Under client-timeout-retry the first
// request is delayed inside and its client gives up, as do the retries
// held behind it: what the service answered them came later, on the
// connections left open, as the first committed (held_duplicate).
func TestMariaDBInsertWaitCaught(t *testing.T) {
	t.Parallel()
	s := startMySQL(t, "mariadbinsertwait", "--failpoints")
	v := s.judge(t, "forced-race,client-timeout-retry", seeds(t), "--failpoints")
	if v.code != exitViolated {
		t.Errorf("exit %d, want %d\n%s", v.code, exitViolated, v.stderr)
	}
	v.expect(t, "forced-race", "fail", "held_duplicate")
	v.expect(t, "client-timeout-retry", "fail", "held_duplicate")
}
