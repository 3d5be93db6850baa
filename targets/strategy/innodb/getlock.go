package innodb

import (
	"context"
	"database/sql"
	"errors"
	"net/http"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// getLock is innodb-get-lock: the key's claim is GET_LOCK(name, 0) on the
// pooled connection the request runs on (no wait: taken elsewhere, 409),
// then one transaction reads the key row, charges and inserts the row with
// the answer, and RELEASE_LOCK follows the COMMIT, on the success path
// only (a 2xx, first or replayed). A business refusal (402) is committed and
// answered, and returns the connection to the pool still holding the lock:
// GET_LOCK is the session's, not the transaction's. Every retry of the
// declined key that lands on another connection, of this pool or of
// another replica's, gets 409 for as long as that connection lives; one
// that lands on it takes the lock again (it nests), replays the 402 and
// leaves it held. So does every 5xx after the lock was taken whose
// connection survives it (a deadlock, a lock wait timeout).
type getLock struct{ deps strategy.Deps }

// The lock's name: server-wide, so the database's name is in it; hashed,
// as MariaDB's lock names are short.
const (
	sqlGetLock      = "SELECT GET_LOCK(SHA2(CONCAT(DATABASE(), '/', ?), 224), 0)"
	sqlReleaseLock  = "DO RELEASE_LOCK(SHA2(CONCAT(DATABASE(), '/', ?), 224))"
	sqlInsertAnswer = "INSERT INTO idempotency_keys (`key`, fingerprint, response_status, response_body) VALUES (?, ?, ?, ?)"
)

func (s getLock) Handle(ctx context.Context, r strategy.Request) strategy.Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	sess, err := acquire(ctx, s.deps.MySQL)
	if err != nil {
		return unavailable(err)
	}
	defer sess.end()
	var got sql.NullInt64
	switch err := sess.c.QueryRowContext(ctx, sqlGetLock, r.Key).Scan(&got); {
	case err != nil:
		return unavailable(err)
	case !got.Valid:
		return unavailable(errors.New("GET_LOCK answered NULL"))
	case got.Int64 == 0:
		return inFlight(s.deps.Profile)
	}
	at(ctx, s.deps, api.AfterClaim, r)
	k, found, err := readKey(ctx, sess, true, "START TRANSACTION;\n"+sqlReadKey, r.Key)
	switch {
	case err != nil:
		return unavailable(err)
	case found:
		resp := answerStored(s.deps.Profile, k, r, true)
		if resp.Status/100 == 2 {
			return s.release(ctx, sess, r, resp, "ROLLBACK;\n")
		}
		return resp
	}
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
	if resp.Status/100 != 2 {
		return resp // the flaw: the lock is released on the success path only
	}
	return s.release(ctx, sess, r, resp, "")
}

// release releases the key's lock (after before, in the same round trip)
// and answers resp; a lock it could not release is a 5xx.
func (s getLock) release(ctx context.Context, sess *session, r strategy.Request, resp strategy.Response, before string) strategy.Response {
	if err := sess.exec(ctx, before+sqlReleaseLock, r.Key); err != nil {
		return strategy.Failure(http.StatusServiceUnavailable, api.CodeStoreUnavailable, err.Error())
	}
	sess.open = false
	return resp
}
