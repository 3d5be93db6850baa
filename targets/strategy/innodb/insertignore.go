package innodb

import (
	"context"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// insertIgnore is innodb-insert-ignore: in one REPEATABLE READ
// transaction it looks the key up first (the fast replay path; this read
// fixes the transaction's snapshot), then claims it with INSERT IGNORE.
// When the insert reports the key taken (0 rows) it reads the row again to
// answer from it, in the same transaction: under the snapshot of the first
// read. A row committed since by a concurrent duplicate is not there, and
// the code takes the missing row for a claim its holder rolled back: the
// key is free, it charges, and it stores its answer with INSERT ... ON
// DUPLICATE KEY UPDATE, which overwrites the winner's. The INSERT IGNORE
// also waits on a duplicate that is still open.
type insertIgnore struct{ deps strategy.Deps }

const (
	sqlInsertIgnore = "INSERT IGNORE INTO idempotency_keys (`key`, fingerprint, response_status, response_body) VALUES (?, ?, 0, '')"
	sqlUpsertAnswer = "INSERT INTO idempotency_keys (`key`, fingerprint, response_status, response_body) VALUES (?, ?, ?, ?)\n" +
		"ON DUPLICATE KEY UPDATE fingerprint = VALUES(fingerprint), response_status = VALUES(response_status), response_body = VALUES(response_body)"
)

func (s insertIgnore) Handle(ctx context.Context, r strategy.Request) strategy.Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	sess, err := acquire(ctx, s.deps.MySQL)
	if err != nil {
		return unavailable(err)
	}
	defer sess.end()
	k, found, err := readKey(ctx, sess, true, "START TRANSACTION;\n"+sqlReadKey, r.Key)
	switch {
	case err != nil:
		return unavailable(err)
	case found:
		return answerStored(s.deps.Profile, k, r, true)
	}
	at(ctx, s.deps, api.AfterCheck, r)
	res, err := sess.c.ExecContext(ctx, sqlInsertIgnore, r.Key, r.Fingerprint)
	if err != nil {
		return unavailable(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return unavailable(err)
	} else if n == 0 { // taken: answer from its row, read under the snapshot
		k, found, err := readKey(ctx, sess, false, sqlReadKey, r.Key)
		switch {
		case err != nil:
			return unavailable(err)
		case found:
			return answerStored(s.deps.Profile, k, r, true)
		}
		// no row: taken for a claim rolled back by its holder; the key is free
	}
	at(ctx, s.deps, api.AfterClaim, r)
	resp, charged, err := charge(ctx, sess, r)
	if err != nil {
		return unavailable(err)
	}
	at(ctx, s.deps, api.BeforeStoreResponse, r)
	if charged {
		at(ctx, s.deps, api.BeforeCommit, r)
	}
	if err := sess.commit(ctx, sqlUpsertAnswer, r.Key, r.Fingerprint, resp.Status, resp.Body); err != nil {
		return unavailable(err)
	}
	if charged {
		at(ctx, s.deps, api.AfterCommit, r)
	}
	return resp
}
