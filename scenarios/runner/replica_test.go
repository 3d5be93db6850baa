package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/scenarios/runner"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// A replica serves a charge, logs it under its index and closes cleanly,
// whether it dials the stores as given or at addresses put in their place.
func TestStartReplicaServesAndLogs(t *testing.T) {
	dsn := provisiontest.Database(t, services)
	ctx := context.Background()
	ctl, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	if err := ledger.Migrate(ctx, ctl); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.PrepareLedger(ctx, ctl, []workload.Account{{ID: "a", Currency: "EUR", Opening: 1000}}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := pgxpool.ParseConfig(dsn)
	opts, _ := redis.ParseURL(services.RedisURL)
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	specs := map[string]runner.ReplicaSpec{
		"direct":     {Warm: true, PgConns: 2, RedisConns: 2, RedisTimeout: time.Second, RedisDials: 5},
		"redirected": {Index: 3, PgAddr: net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port))), RedisAddr: opts.Addr},
	}
	for name, s := range specs {
		t.Run(name, func(t *testing.T) {
			s.Strategy, s.Prefix, s.Profile = "redis-setnx", "ir:"+name+":", api.IETF
			s.PostgresDSN, s.RedisURL = dsn, services.RedisURL
			defer runner.DropKeys(rdb, s.Prefix)
			rep, err := runner.StartReplica(ctx, s)
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
	for name, s := range map[string]runner.ReplicaSpec{
		"strategy":   {Strategy: "nope", RedisURL: services.RedisURL, PostgresDSN: "postgres://u@127.0.0.1:1/db"},
		"pg address": {Strategy: "pg-tx", RedisURL: services.RedisURL, PostgresDSN: "postgres://u@127.0.0.1:1/db", PgAddr: "no-port"},
		"redis url":  {Strategy: "pg-tx", RedisURL: "nope://", PostgresDSN: "postgres://u@127.0.0.1:1/db"},
	} {
		if rep, err := runner.StartReplica(context.Background(), s); err == nil {
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
