package engine_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/api"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// innoBench is a bench on the shared stores with a MariaDB database of its
// own; it returns the bench and the InnoDB and Postgres ledgers'
// connections, to look at what it did.
func innoBench(t *testing.T, l load.Config) (*engine.Bencher, *sql.DB, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	url, dsn := provisiontest.MySQLDatabase(t, services), provisiontest.Database(t, services)
	b, err := engine.NewBencher(ctx, engine.BenchConfig{Load: l, Timeout: 2 * time.Second, Profile: api.IETF, MySQLURL: url},
		dsn, services.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	mdsn, err := provision.MySQLDSN(url)
	if err != nil {
		t.Fatal(err)
	}
	db, err := innoledger.Open(mdsn, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return b, db, pool
}

// TestBenchInnoDBTx: a bench of innodb-tx deploys it on MariaDB, resets
// and reads the InnoDB ledger: every request is answered, the retries are
// replayed from InnoDB, and the checker, on InnoDB's ground truth, finds
// nothing. Read from Postgres (which holds no charge), every 201 would be
// a lost ack.
func TestBenchInnoDBTx(t *testing.T) {
	b, db, pool := innoBench(t, load.Config{Rate: 100, Duration: time.Second, DupRatio: 0.2, Seed: 3})
	ctx := context.Background()
	r, err := b.Run(ctx, innodb.Tx.Name)
	if err != nil {
		t.Fatal(err)
	}
	if r.Strategy != innodb.Tx.Name || r.ReplayFrom != innodb.ReplayInnoDB {
		t.Errorf("result of %q replaying from %q", r.Strategy, r.ReplayFrom)
	}
	if r.Scheduled != 100 || r.Sent != 100 || r.Answered != 100 || r.Missed != 0 || r.Duplicates == 0 {
		t.Errorf("%d scheduled, %d sent, %d answered, %d missed, %d duplicates", r.Scheduled, r.Sent, r.Answered, r.Missed, r.Duplicates)
	}
	if len(r.Anomalies) != len(check.Names()) {
		t.Errorf("anomalies %v: want every name", r.Anomalies)
	}
	for a, n := range r.Anomalies {
		if n != 0 {
			t.Errorf("%d %s under load", n, a)
		}
	}
	for status, n := range r.Statuses {
		if status != "201" && status != "409" {
			t.Errorf("%d answers %s", n, status)
		}
	}
	if r.LatencyOf(results.KindReplay).Count == 0 {
		t.Errorf("no replay among %d duplicates: %+v", r.Duplicates, r.Latency)
	}
	charged, err := innoledger.CountCharges(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if first := r.LatencyOf(results.KindFirst).Count; int64(charged) != first || charged == 0 {
		t.Errorf("the InnoDB ledger holds %d charges for %d first executions", charged, first)
	}
	var pg int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM charges").Scan(&pg); err != nil || pg != 0 {
		t.Errorf("the Postgres ledger holds %d charges (%v): innodb-tx charged there", pg, err)
	}
}

// TestBenchServeInnoDBTx: the target served to an outside load tool (wrk)
// is innodb-tx on MariaDB: a charge, its replay, and what the InnoDB
// ledger holds after.
func TestBenchServeInnoDBTx(t *testing.T) {
	b, _, _ := innoBench(t, load.Config{Rate: 1, Duration: time.Second})
	served, err := b.ServeWhile(context.Background(), innodb.Tx.Name, "127.0.0.1:0", func(ctx context.Context, url string) error {
		for i, want := range []string{"", "true"} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+api.PathCharges,
				strings.NewReader(`{"account":"acct-1","amount":250,"currency":"EUR"}`))
			req.Header.Set(api.HeaderKey, "6f1c2d4e-0000-4000-8000-0000000000a1")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated || resp.Header.Get(api.HeaderReplayed) != want {
				return fmt.Errorf("request %d: %s %s", i+1, resp.Status, body)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if served != (engine.Served{Served: 2, Charges: 1}) {
		t.Errorf("served %+v, want 2 requests, 1 charge, no key charged twice", served)
	}
}

// TestBenchInnoDBNeedsMariaDB: a bench without a MariaDB database refuses
// a strategy on InnoDB, saying why.
func TestBenchInnoDBNeedsMariaDB(t *testing.T) {
	b, err := engine.NewBencher(context.Background(), engine.BenchConfig{Load: load.Config{Rate: 1, Duration: time.Second},
		Timeout: time.Second, Profile: api.IETF}, provisiontest.Database(t, services), services.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Run(context.Background(), innodb.Tx.Name); err == nil || !strings.Contains(err.Error(), "no MySQL database") {
		t.Errorf("innodb-tx without MariaDB: %v", err)
	}
}
