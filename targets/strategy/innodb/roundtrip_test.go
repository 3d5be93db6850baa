package innodb_test

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/targets/api"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// commands counts the commands clients sent on connections dialed with
// the network "idemchaos-counted": one write each, each answered before
// the next is sent (a round trip).
var commands atomic.Int64

func init() {
	mysql.RegisterDialContext("idemchaos-counted", func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		return countedConn{c}, err
	})
}

type countedConn struct{ net.Conn }

func (c countedConn) Write(b []byte) (int, error) {
	commands.Add(1)
	return c.Conn.Write(b)
}

// TestTxTwoRoundTrips: innodb-tx charges a new key in two round trips
// (START TRANSACTION, the claim and the charge; the stored answer and the
// COMMIT), replays a completed key in two (the claim that meets the
// duplicate; the ROLLBACK and the read) and refuses a duplicate in flight
// in two (the claim that fails at once; the ROLLBACK).
func TestTxTwoRoundTrips(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewTx)
	cfg, err := mysql.ParseDSN(fx.dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Net = "idemchaos-counted"
	db, err := innoledger.Open(cfg.FormatDSN(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil { // the handshake is not the request's
		t.Fatal(err)
	}
	st := fx.replica(db)
	for _, c := range []struct {
		attempt string
		status  int
		trips   int64
	}{{"A", http.StatusCreated, 2}, {"B", http.StatusCreated, 2}} {
		before := commands.Load()
		got := fx.send(ctx, st, c.attempt, pay)
		if trips := commands.Load() - before; got.Status != c.status || trips != c.trips {
			t.Fatalf("%s: %s in %d round trips; want %d in %d", c.attempt, show(got), trips, c.status, c.trips)
		}
	}
	// C holds another key (paused after its claim, on the fixture's pool);
	// D, its duplicate, is refused.
	h := newHold(fx.deps.Failpoints, "C", api.AfterClaim)
	defer h.free()
	cDone := make(chan strategy.Response, 1)
	go func() { cDone <- fx.replica().Handle(ctx, request("key-2", "C")) }()
	h.await(t)
	before := commands.Load()
	got := st.Handle(ctx, request("key-2", "D"))
	if trips := commands.Load() - before; got.Status != http.StatusConflict || trips != 2 {
		t.Fatalf("D, a duplicate of C in flight: %s in %d round trips; want 409 in 2", show(got), trips)
	}
	h.free()
	wait(t, cDone, "C")
}

func request(key, attempt string) strategy.Request {
	return strategy.Request{Key: key, AttemptID: attempt, Body: pay, Fingerprint: pay.Fingerprint()}
}
