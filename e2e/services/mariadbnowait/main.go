// Command mariadbnowait is a payment service on MariaDB (InnoDB) written
// the way a team writes one from a blog post on idempotency keys in
// MySQL: one READ COMMITTED transaction per charge (no gap locks) that
// looks the key up (a stored response is replayed, another payload 422),
// then reads the key's row FOR UPDATE NOWAIT, so a duplicate whose first
// request holds the uncommitted key row gets 409 at once instead of
// waiting on the row lock; claims the key by INSERT into the key table
// (primary key: a duplicate that slipped past the read fails there, and
// gets 409); locks the account's row (SELECT ... FOR UPDATE), calls the
// payment provider (150 to 400 ms) and writes the charge, the balance and
// the key's response before COMMIT. Every query runs on the request's
// context. Its charges queue on the account's row lock. It passes every
// scenario idemchaos samples, yet it is not quite what it says: when both
// requests of a key read it before either inserts it, the second INSERT
// waits on the first's uncommitted row until the first commits (a held
// duplicate), an order only explore reaches; mariadbtx claims without
// waiting.
//
// With --failpoints it speaks idemchaos's failpoint protocol
// (docs/failpoints.md).
package main

import (
	"context"
	"database/sql"
	"errors"
	"net/http"

	_ "github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/e2e/services/internal/shop"
)

type service struct {
	db       *sql.DB
	provider *shop.Provider
	points   *shop.Points
}

func main() {
	f := shop.ParseFlags("mariadbnowait", "150ms-400ms")
	db, err := shop.OpenMySQL(context.Background(), f.DSN)
	if err != nil {
		shop.Fail("mariadbnowait", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f), points: shop.NewPoints(f.Failpoints)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("mariadbnowait", mux)
}

var (
	errBusy     = errors.New("in flight")
	errMismatch = errors.New("key reused")
)

// stored is a key's row: its fingerprint and, once done, its response.
type stored struct {
	fingerprint string
	status      sql.NullInt64
	response    sql.NullString
}

func (s *service) charge(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		shop.Error(w, http.StatusBadRequest, "missing_key", "Idempotency-Key is required")
		return
	}
	c, fp, ok := shop.Read(w, r)
	if !ok {
		return
	}
	pts := s.points.Begin(r)
	status, body, replayed, err := s.run(ctx, pts, key, fp, c, r.Header.Get("X-Idemchaos-Attempt"))
	pts.End(ctx, key)
	switch {
	case errors.Is(err, errBusy), shop.IsMySQLError(err, shop.ErDupEntry, shop.ErLockWaitTimeout, shop.ErLockDeadlock, shop.ErLockNowait):
		shop.Error(w, http.StatusConflict, "in_flight", "a request with this key is in flight")
	case errors.Is(err, errMismatch):
		shop.Error(w, http.StatusUnprocessableEntity, "key_reused", "another request used this key")
	case err != nil:
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
	default:
		shop.Write(w, status, body, replayed)
	}
}

// run is the charge's transaction.
func (s *service) run(ctx context.Context, pts *shop.Request, key, fp string, c shop.Charge, attempt string) (status int, body []byte, replayed bool, err error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return 0, nil, false, err
	}
	defer func() { _ = tx.Rollback() }()
	// a completed key is replayed without a lock: replays never queue
	st, found, err := lookUp(ctx, tx, key, "")
	if err == nil && !found {
		st, found, err = lookUp(ctx, tx, key, " FOR UPDATE NOWAIT")
	}
	switch {
	case err != nil:
		return 0, nil, false, err
	case found && st.fingerprint != fp:
		return 0, nil, false, errMismatch
	case found && st.status.Valid:
		return int(st.status.Int64), []byte(st.response.String), true, nil
	case found:
		return 0, nil, false, errBusy
	}
	pts.At(ctx, "after-check", key)
	if _, err := tx.ExecContext(ctx, "INSERT INTO idempotency_keys (`key`, fingerprint) VALUES (?, ?)", key, fp); err != nil {
		return 0, nil, false, err
	}
	pts.At(ctx, "after-claim", key)
	var balance int64
	if err := tx.QueryRowContext(ctx, `SELECT balance FROM accounts WHERE id = ? FOR UPDATE`, c.Account).Scan(&balance); err != nil {
		return 0, nil, false, err
	}
	if err := s.provider.Call(ctx); err != nil {
		return 0, nil, false, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO charges (idempotency_key, account, amount, currency, attempt_id) VALUES (?, ?, ?, ?, ?)`,
		key, c.Account, c.Amount, c.Currency, attempt)
	if err != nil {
		return 0, nil, false, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, nil, false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance - ? WHERE id = ?`, c.Amount, c.Account); err != nil {
		return 0, nil, false, err
	}
	status, body = http.StatusCreated, shop.Answer(id, c)
	if _, err := tx.ExecContext(ctx, "UPDATE idempotency_keys SET status = ?, response = ? WHERE `key` = ?", status, string(body), key); err != nil {
		return 0, nil, false, err
	}
	pts.At(ctx, "before-commit", key)
	if err := tx.Commit(); err != nil {
		return 0, nil, false, err
	}
	pts.At(ctx, "after-commit", key)
	return status, body, false, nil
}

// lookUp reads the key's row, with lock ("" or a locking clause).
func lookUp(ctx context.Context, tx *sql.Tx, key, lock string) (st stored, found bool, err error) {
	err = tx.QueryRowContext(ctx, "SELECT fingerprint, status, response FROM idempotency_keys WHERE `key` = ?"+lock, key).
		Scan(&st.fingerprint, &st.status, &st.response)
	if errors.Is(err, sql.ErrNoRows) {
		return st, false, nil
	}
	return st, err == nil, err
}
