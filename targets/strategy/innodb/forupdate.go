package innodb

import (
	"context"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// selectForUpdate is innodb-select-for-update, the lock-then-insert most
// MySQL code writes: one transaction reads the key with SELECT ... FOR
// UPDATE (a locking read: it sees the latest row, and waits on a row an
// open transaction inserted), answers from the row when there is one,
// else charges and inserts the key row with the answer. A locking read
// that finds no row locks the gap where the key would be (REPEATABLE
// READ's next-key locking), and gap locks do not conflict with each
// other: two duplicates both find the gap free, both charge or wait on
// the account, and each one's INSERT waits on the other's gap lock. InnoDB
// kills one (1213), answered 503. The gap is shared by every key that
// falls in it (on an empty table, the whole index): a request for another
// key is held, or deadlocked, too.
type selectForUpdate struct{ deps strategy.Deps }

const sqlLockKey = sqlReadKey + " FOR UPDATE"

func (s selectForUpdate) Handle(ctx context.Context, r strategy.Request) strategy.Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	sess, err := acquire(ctx, s.deps.MySQL)
	if err != nil {
		return unavailable(err)
	}
	defer sess.end()
	k, found, err := readKey(ctx, sess, true, "START TRANSACTION;\n"+sqlLockKey, r.Key)
	switch {
	case err != nil:
		return unavailable(err)
	case found:
		return answerStored(s.deps.Profile, k, r, true)
	}
	at(ctx, s.deps, api.AfterClaim, r)
	at(ctx, s.deps, api.AfterCheck, r)
	resp, charged, err := charge(ctx, sess, r)
	if err != nil {
		return unavailable(err)
	}
	at(ctx, s.deps, api.BeforeStoreResponse, r)
	if charged {
		at(ctx, s.deps, api.BeforeCommit, r)
	}
	if err := sess.commit(ctx, sqlInsertAnswer, r.Key, r.Fingerprint, resp.Status, resp.Body); err != nil {
		return unavailable(err)
	}
	if charged {
		at(ctx, s.deps, api.AfterCommit, r)
	}
	return resp
}
