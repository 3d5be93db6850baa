package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

var pay = api.ChargeRequest{Account: "acct-1", Amount: 1250, Currency: "EUR"}

// idempotent are the strategies with a key layer.
var idempotent = []string{"memory", "redis-getset", "redis-setnx", "redis-sticky", "redis-cache-errors",
	"pg-split-tx", "pg-nofingerprint", "pg-blocking-claim", "pg-success-only", "pg-split-debit", "pg-tx", "redis-pg-guard"}

// fingerprinted are those that also refuse a key reused with another payload.
var fingerprinted = []string{"memory", "redis-getset", "redis-setnx", "redis-sticky", "redis-cache-errors",
	"pg-split-tx", "pg-blocking-claim", "pg-success-only", "pg-split-debit", "pg-tx", "redis-pg-guard"}

func TestChargeDebitsAndAnswers201(t *testing.T) {
	for _, name := range design.Names() {
		t.Run(name, func(t *testing.T) {
			tg := newTarget(t, name, api.IETF)
			a := tg.post(t, "k-1", "a1", pay)
			if a.status != http.StatusCreated || a.charge.ID == "" || a.charge.Balance != 100_000-1250 {
				t.Fatalf("got %d %s; want 201 with a charge and balance %d", a.status, a.raw, 100_000-1250)
			}
			if got := tg.log.Entries(); len(got) != 1 || got[0].AttemptID != "a1" || got[0].ChargeID != a.charge.ID {
				t.Fatalf("server log %+v; want one entry for attempt a1 naming %s", got, a.charge.ID)
			}
		})
	}
}

func TestRetryReplaysTheSameCharge(t *testing.T) {
	for _, name := range idempotent {
		t.Run(name, func(t *testing.T) {
			tg := newTarget(t, name, api.IETF)
			first := tg.post(t, "k-1", "a1", pay)
			again := tg.post(t, "k-1", "a2", pay)
			if again.status != first.status || again.raw != first.raw || !again.replayed {
				t.Fatalf("replay got %d %q replayed=%v; want %d %q replayed", again.status, again.raw, again.replayed, first.status, first.raw)
			}
			if n := tg.charges(t); n != 1 {
				t.Fatalf("%d charges; want 1", n)
			}
		})
	}
}

func TestNoneChargesEveryRetry(t *testing.T) {
	tg := newTarget(t, "none", api.IETF)
	tg.post(t, "k-1", "a1", pay)
	tg.post(t, "k-1", "a2", pay)
	if n := tg.charges(t); n != 2 {
		t.Fatalf("%d charges; want 2: none has no idempotency layer", n)
	}
}

func TestMismatchRefusedPerProfile(t *testing.T) {
	for _, p := range []api.Profile{api.IETF, api.Stripe} {
		for _, name := range fingerprinted {
			t.Run(p.Name+"/"+name, func(t *testing.T) {
				tg := newTarget(t, name, p)
				tg.post(t, "k-1", "a1", pay)
				other := pay
				other.Amount++
				a := tg.post(t, "k-1", "a2", other)
				if a.status != p.Mismatch || a.errBody.Code != api.CodeMismatch {
					t.Fatalf("mismatch got %d %s; want %d %s", a.status, a.raw, p.Mismatch, api.CodeMismatch)
				}
				if n := tg.charges(t); n != 1 {
					t.Fatalf("%d charges; want 1", n)
				}
			})
		}
	}
}

func TestMissingKeyPerProfile(t *testing.T) {
	for _, name := range idempotent {
		t.Run(name, func(t *testing.T) {
			if a := newTarget(t, name, api.IETF).post(t, "", "a1", pay); a.status != http.StatusBadRequest {
				t.Fatalf("ietf: got %d %s; want 400", a.status, a.raw)
			}
			if a := newTarget(t, name, api.Stripe).post(t, "", "a1", pay); a.status != http.StatusCreated {
				t.Fatalf("stripe: got %d %s; want 201 (no key, no idempotency)", a.status, a.raw)
			}
		})
	}
}

func TestInsufficientFundsIs402AndReplayed(t *testing.T) {
	for _, name := range idempotent {
		t.Run(name, func(t *testing.T) {
			tg := newTarget(t, name, api.IETF)
			big := api.ChargeRequest{Account: "poor", Amount: 51, Currency: "EUR"}
			a := tg.post(t, "k-1", "a1", big)
			if a.status != http.StatusPaymentRequired || a.errBody.Code != api.CodeInsufficientFunds {
				t.Fatalf("got %d %s; want 402 insufficient_funds", a.status, a.raw)
			}
			b := tg.post(t, "k-1", "a2", big)
			if b.status != http.StatusPaymentRequired || b.raw != a.raw {
				t.Fatalf("retry got %d %s; want the stored 402", b.status, b.raw)
			}
			// pg-success-only keeps only 2xx answers: its retry was decided
			// again (the same 402 while the account is still short)
			if keeps := name != "pg-success-only"; b.replayed != keeps {
				t.Fatalf("retry marked replayed=%v; want %v", b.replayed, keeps)
			}
			if n := tg.charges(t); n != 0 {
				t.Fatalf("%d charges; want 0", n)
			}
		})
	}
}

func TestBadBodyIs400(t *testing.T) {
	tg := newTarget(t, "pg-tx", api.IETF)
	for _, bad := range []api.ChargeRequest{{Account: "", Amount: 1, Currency: "EUR"}, {Account: "a", Amount: 0, Currency: "EUR"}, {Account: "a", Amount: 1, Currency: "E"}} {
		if a := tg.post(t, "k", "a", bad); a.status != http.StatusBadRequest || a.errBody.Code != api.CodeBadRequest {
			t.Errorf("%+v: got %d %s; want 400 invalid_request", bad, a.status, a.raw)
		}
	}
}

func TestAccountEndpoint(t *testing.T) {
	tg := newTarget(t, "pg-tx", api.IETF)
	tg.post(t, "k-1", "a1", pay)
	resp, err := http.Get(tg.url + api.PathAccounts + "acct-1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"balance":98750`) {
		t.Fatalf("got %d %s; want 200 with balance 98750", resp.StatusCode, body)
	}
	if r2, _ := http.Get(tg.url + api.PathAccounts + "nobody"); r2.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown account: got %d; want 404", r2.StatusCode)
	}
}

// TestPgTxAnswers409WithoutBlocking holds the key's claim in an open
// transaction: a duplicate must get 409 at once, not wait for it.
func TestPgTxAnswers409WithoutBlocking(t *testing.T) {
	tg := newTarget(t, "pg-tx", api.IETF)
	ctx := context.Background()
	tx, err := tg.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('k-1', 0))`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	a := tg.post(t, "k-1", "a1", pay)
	if a.status != http.StatusConflict || a.errBody.Code != api.CodeInFlight {
		t.Fatalf("got %d %s; want 409 in flight", a.status, a.raw)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("409 took %s; it must not wait for the holder", took)
	}
}

// TestBlockingInsertWaits shows why pg-tx needs a non-blocking claim: a plain
// INSERT ... ON CONFLICT DO NOTHING on a key another open transaction inserted
// waits for that transaction (here until lock_timeout fires).
func TestBlockingInsertWaits(t *testing.T) {
	tg := newTarget(t, "pg-tx", api.IETF)
	ctx := context.Background()
	holder, err := tg.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	insert := `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body) VALUES ('k-1', 'f', 0, '') ON CONFLICT DO NOTHING`
	if _, err := holder.Exec(ctx, insert); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = pgx.BeginFunc(ctx, tg.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '300ms'`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, insert)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "lock timeout") {
		t.Fatalf("second insert: err %v; want a lock timeout", err)
	}
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Fatalf("second insert returned after %s; want it to wait for the holder", took)
	}
}

// TestNoFingerprintReplaysAnotherPayload shows pg-nofingerprint's flaw.
func TestNoFingerprintReplaysAnotherPayload(t *testing.T) {
	tg := newTarget(t, "pg-nofingerprint", api.IETF)
	first := tg.post(t, "k-1", "a1", pay)
	other := pay
	other.Amount++
	if a := tg.post(t, "k-1", "a2", other); a.status != http.StatusCreated || a.raw != first.raw {
		t.Fatalf("got %d %s; want the first payload's 201 replayed", a.status, a.raw)
	}
}

// TestLogHoldsTheClaim: the log gives a request's claim round trip and
// when the strategy answered, inside its span. pg-blocking-claim's claim
// waits on an open transaction that inserted the key; it returns when that
// transaction rolls back (and then charges); pg-tx's try-lock is logged as
// a claim that never waits. A strategy that marks no claim (none) logs
// none.
func TestLogHoldsTheClaim(t *testing.T) {
	tg := newTarget(t, "pg-blocking-claim", api.IETF)
	ctx := context.Background()
	holder, err := tg.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body) VALUES ('k-1', 'f', 0, '')`); err != nil {
		_ = holder.Rollback(ctx)
		t.Fatal(err)
	}
	const hold = 300 * time.Millisecond
	released := make(chan struct{})
	time.AfterFunc(hold, func() { _ = holder.Rollback(ctx); close(released) })
	a := tg.post(t, "k-1", "a1", pay)
	<-released
	if a.status != http.StatusCreated {
		t.Fatalf("got %d %s; want 201 once the holder rolled back", a.status, a.raw)
	}
	e := tg.log.Entries()[0]
	if !(e.Start <= e.ClaimStart && e.ClaimStart < e.ClaimEnd && e.ClaimEnd <= e.Handled && e.Handled <= e.End) {
		t.Fatalf("entry %+v: want start <= claim start < claim end <= handled <= end", e)
	}
	if waited := e.ClaimEnd - e.ClaimStart; waited < hold*3/4 || !e.ClaimWaits {
		t.Errorf("the claim took %s, may wait %v; it waited on the holder for %s", waited, e.ClaimWaits, hold)
	}

	try := newTarget(t, "pg-tx", api.IETF)
	try.post(t, "k-1", "a1", pay)
	if e := try.log.Entries()[0]; e.ClaimEnd == 0 || e.ClaimWaits {
		t.Errorf("pg-tx: entry %+v; want its try-lock logged as a claim that never waits", e)
	}

	none := newTarget(t, "none", api.IETF)
	none.post(t, "k-1", "a1", pay)
	if e := none.log.Entries()[0]; e.ClaimStart != 0 || e.ClaimEnd != 0 || e.Handled == 0 {
		t.Errorf("none: entry %+v; want no claim and a handled time", e)
	}
}

// TestStandbyLookUpIsNotPrepared: pg-standby-read's look-up of the key is
// one round trip on any connection, never a prepare first: on a slow link
// a prepare's round trip decided whether a retry read before its first try
// committed. The replayed request's connection holds no prepared look-up.
func TestStandbyLookUpIsNotPrepared(t *testing.T) {
	tg := newTarget(t, "pg-standby-read", api.IETF)
	tg.post(t, "k-1", "a1", pay)
	if a := tg.post(t, "k-1", "a2", pay); a.status != http.StatusCreated || !a.replayed {
		t.Fatalf("retry: %d %s; want the replay", a.status, a.raw)
	}
	ctx := context.Background()
	conns := tg.pool.AcquireAllIdle(ctx)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	if len(conns) == 0 {
		t.Fatal("no idle connection to look at")
	}
	for _, c := range conns {
		var n int
		err := c.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%FROM idempotency_keys WHERE key = $1'`,
			pgx.QueryExecModeExec).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("a connection holds %d prepared look-ups of the key", n)
		}
	}
}
