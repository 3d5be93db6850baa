package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// testDatabase gives the test a database of its own and a pool on it,
// closed when the test ends.
func testDatabase(t *testing.T) (string, *pgxpool.Pool) {
	t.Helper()
	dsn := provisiontest.Database(t, services)
	ctl, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctl.Close)
	return dsn, ctl
}

// A replica serves a charge, logs it under its index and closes cleanly,
// whether it dials the stores as given or at addresses put in their place.
func TestStartReplicaServesAndLogs(t *testing.T) {
	dsn, ctl := testDatabase(t)
	ctx := context.Background()
	if err := ledger.Migrate(ctx, ctl); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.PrepareLedger(ctx, ctl, []workload.Account{{ID: "a", Currency: "EUR", Opening: 1000}}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := pgxpool.ParseConfig(dsn)
	opts, _ := redis.ParseURL(services.RedisURL)
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	specs := map[string]engine.ReplicaSpec{
		"direct":     {Warm: 2, PgConns: 2, RedisConns: 2, RedisTimeout: time.Second, RedisDials: 5},
		"redirected": {Index: 3, PgAddr: net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port))), RedisAddr: opts.Addr},
	}
	for name, s := range specs {
		t.Run(name, func(t *testing.T) {
			s.Strategy, s.Prefix, s.Profile = "redis-setnx", "ir:"+name+":", api.IETF
			s.PostgresDSN, s.RedisURL = dsn, services.RedisURL
			defer engine.DropKeys(rdb, s.Prefix)
			rep, err := engine.StartReplica(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if got := charge(t, rep.Addr, name); got != http.StatusCreated {
				t.Fatalf("charge: %d; want 201", got)
			}
			if err := rep.Close(ctx); err != nil {
				t.Fatalf("close: %v", err)
			}
			if e := rep.Entries(); len(e) != 1 || e[0].Replica != s.Index || e[0].Key != name {
				t.Fatalf("entries %+v; want one for key %s on replica %d", e, name, s.Index)
			}
		})
	}
}

func TestStartReplicaRefusesABadSpec(t *testing.T) {
	for name, s := range map[string]engine.ReplicaSpec{
		"strategy":   {Strategy: "nope", RedisURL: services.RedisURL, PostgresDSN: "postgres://u@127.0.0.1:1/db"},
		"pg address": {Strategy: "pg-tx", RedisURL: services.RedisURL, PostgresDSN: "postgres://u@127.0.0.1:1/db", PgAddr: "no-port"},
		"redis url":  {Strategy: "pg-tx", RedisURL: "nope://", PostgresDSN: "postgres://u@127.0.0.1:1/db"},
	} {
		if rep, err := engine.StartReplica(context.Background(), s); err == nil {
			_ = rep.Close(context.Background())
			t.Errorf("%s: started; want an error", name)
		}
	}
}

func charge(t *testing.T, addr, key string) int {
	t.Helper()
	body, _ := json.Marshal(api.ChargeRequest{Account: "a", Amount: 10, Currency: "EUR"})
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+api.PathCharges, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderKey, key)
	req.Header.Set(api.HeaderAttempt, key+"-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A replica told to warm has that many Postgres connections open (at most
// its pool's size) before it serves a request; one not told has none.
func TestStartReplicaWarmsItsPool(t *testing.T) {
	dsn, ctl := testDatabase(t)
	ctx := context.Background()
	for _, c := range []struct{ warm, open int }{{0, 0}, {3, 3}, {6, 4}} {
		app := "warm" + strconv.Itoa(c.warm)
		rep, err := engine.StartReplica(ctx, engine.ReplicaSpec{Strategy: "pg-tx", Prefix: "wp:", Profile: api.IETF,
			PostgresDSN: dsn + "&application_name=" + app, RedisURL: services.RedisURL, PgConns: 4, Warm: c.warm})
		if err != nil {
			t.Fatal(err)
		}
		var open int
		err = ctl.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&open)
		if cerr := rep.Close(ctx); cerr != nil {
			t.Fatalf("close: %v", cerr)
		}
		if err != nil {
			t.Fatal(err)
		}
		if open != c.open {
			t.Errorf("Warm %d, 4 connections at most: %d open before the first request; want %d", c.warm, open, c.open)
		}
	}
}

// A cell's replicas open, before its traffic starts, a connection for each
// op of the plan's opening burst that goes to them.
func TestCellTargetIsWarmedForTheOpeningBurst(t *testing.T) {
	r := newRunner(t)
	for _, name := range []string{"dropped-response", "replica-fanout"} {
		c, plan, err := scenarios.Prepare(scenarios.Cell{Strategy: "pg-tx", Scenario: name, Seed: 3, Profile: api.IETF})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int, c.Replicas)
		for _, op := range plan.Ops {
			if op.After < 0 && op.Delay == 0 && op.Stage == 0 {
				want[op.TryAt(1).Replica]++
			}
		}
		got, err := r.OpenAtDeploy(context.Background(), c, plan)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || slices.Max(want) == 0 {
			t.Errorf("%s: %v Postgres connections open per replica at deploy; want %v, the opening burst", name, got, want)
		}
	}
}
