package innodb

import (
	"context"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// txStrategy is the reference design on InnoDB (innodb-tx): one
// transaction whose first statement claims the key by inserting its row in
// progress without waiting (SET STATEMENT innodb_lock_wait_timeout=0 FOR
// INSERT), charges in the same round trip (a statement that fails stops
// the ones after it), and stores the answer in the key row with the
// COMMIT: two round trips for a new key. A duplicate in flight finds the
// key's row locked and fails at once (1205): 409. A key already completed
// fails as a duplicate (1062): its row, read after the ROLLBACK (a read of
// its own, outside the transaction's snapshot), answers.
//
// With blocking (innodb-blocking-claim) the claim is a plain INSERT, as
// most code writes it: a duplicate in flight waits on the first request's
// transaction (up to innodb_lock_wait_timeout, 50 s by default), then
// replays its answer; if that transaction rolls back instead, two waiting
// duplicates deadlock and InnoDB kills one (1213), answered 503, while the
// other charges.
type txStrategy struct {
	deps     strategy.Deps
	blocking bool
}

// The claims: the key row's INSERT, not waiting or (blocking) waiting.
const (
	sqlClaimNoWait = "SET STATEMENT innodb_lock_wait_timeout=0 FOR " + sqlInsertKey
	sqlClaimWait   = sqlInsertKey
)

func (s txStrategy) Handle(ctx context.Context, r strategy.Request) strategy.Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	sess, err := acquire(ctx, s.deps.MySQL)
	if err != nil {
		return unavailable(err)
	}
	defer sess.end()
	claim := sqlClaimNoWait
	if s.blocking {
		claim = sqlClaimWait
	}
	// One round trip: BEGIN, the claim, the charge.
	d := debitOf(r)
	args := append([]any{r.Key, r.Fingerprint}, innoledger.ChargeArgs(d)...)
	start := time.Now()
	seq, balance, err := innoledger.ScanCharge(sess.query(ctx, true, "START TRANSACTION;\n"+claim+";\n"+innoledger.SQLCharge, args...))
	if !s.blocking {
		// a claim that cannot wait: a duplicate answered late waited
		// elsewhere (for a connection of a pool a loaded machine had
		// busy), never on another request (the blocking claim's round
		// trip, which carries the charge, is judged on the request's span)
		strategy.MarkClaim(ctx, start, false)
	}
	switch {
	case isErr(err, errLockWait) && !s.blocking:
		return inFlight(s.deps.Profile)
	case isErr(err, errDuplicate):
		return s.completed(ctx, sess, r)
	case err != nil:
		return unavailable(err)
	}
	at(ctx, s.deps, api.AfterClaim, r)
	at(ctx, s.deps, api.AfterCheck, r)
	c, err := innoledger.Outcome(d, seq, balance, nil)
	resp, charged, err := chargeAnswer(c, err, r)
	if err != nil {
		return unavailable(err)
	}
	at(ctx, s.deps, api.BeforeStoreResponse, r)
	if charged {
		at(ctx, s.deps, api.BeforeCommit, r)
	}
	if err := sess.commit(ctx, sqlStoreAnswer, resp.Status, resp.Body, r.Key); err != nil {
		return unavailable(err)
	}
	if charged {
		at(ctx, s.deps, api.AfterCommit, r)
	}
	return resp
}

// completed answers a key whose row was already committed: the ROLLBACK
// and the read of the row in one round trip (the read, outside any
// transaction, sees the latest committed row). No row by then (deleted
// since): 409, the client retries.
func (s txStrategy) completed(ctx context.Context, sess *session, r strategy.Request) strategy.Response {
	k, found, err := readKey(ctx, sess, false, "ROLLBACK;\n"+sqlReadKey, r.Key)
	if err != nil {
		return unavailable(err)
	}
	sess.open = false
	if !found {
		return inFlight(s.deps.Profile)
	}
	return answerStored(s.deps.Profile, k, r, true)
}
