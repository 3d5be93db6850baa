package strategytest

import (
	"context"
	"testing"

	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// TestLockStatementDecides: pg-tx's charge statement charges only when the
// lock statement before it took the key's lock. A request whose lock
// statement found the lock held does not charge even when the holder has
// let go by the time its charge statement runs: that statement's snapshot
// is older than any lock it could take then, and would miss the key row
// the holder committed (a second charge, refused by the key row's unique
// index at commit: a 503 to a concurrent duplicate).
func TestLockStatementDecides(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	pool := openPool(ctx, t, provisiontest.Database(t, services))
	first := strategy.PgTxFresh()[0] // BEGIN, the lock, the charge
	lock, charge := first[1].SQL, first[2].SQL
	args := func(key string) []any {
		return append(ledger.ChargeArgs(ledger.Debit{Request: pay, Key: key, AttemptID: key + "-a"}), `","balance":`, pay.Fingerprint())
	}
	run := func(key string, between func()) (held bool, charged bool) {
		t.Helper()
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if _, err := tx.Exec(ctx, lock, key); err != nil {
			t.Fatalf("lock statement: %v", err)
		}
		between()
		var fingerprint *string
		var status *int
		var body, stored []byte
		var seq, balance *int64
		if err := tx.QueryRow(ctx, charge, args(key)...).Scan(&held, &fingerprint, &status, &body, &seq, &balance, &stored); err != nil {
			t.Fatalf("charge statement: %v", err)
		}
		if (seq != nil) != (stored != nil) {
			t.Fatalf("charged %v but stored %q: a charge and its key row come together", seq != nil, stored)
		}
		return held, seq != nil
	}
	if held, charged := run("free", func() {}); !held || !charged {
		t.Fatalf("a free key: held %v charged %v, want both", held, charged)
	}
	other, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	const key = "taken"
	if _, err := other.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1::text, 0))`, key); err != nil {
		t.Fatal(err)
	}
	release := func() {
		if _, err := other.Exec(ctx, `SELECT pg_advisory_unlock(hashtextextended($1::text, 0))`, key); err != nil {
			t.Fatal(err)
		}
	}
	if held, charged := run(key, release); held || charged {
		t.Fatalf("lock taken at the lock statement, free at the charge: held %v charged %v, want neither", held, charged)
	}
}
