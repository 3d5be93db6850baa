package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/server"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

var services *provision.Services

func TestMain(m *testing.M) { os.Exit(provisiontest.Main(m, &services)) }

// target is one replica of a strategy on a fresh database.
type target struct {
	url  string
	pool *pgxpool.Pool
	rdb  *redis.Client
	log  *server.Log
}

func newTarget(t *testing.T, name string, profile api.Profile) *target {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, provisiontest.Database(t, services))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := ledger.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		id      string
		opening int64
	}{{"acct-1", 100_000}, {"poor", 50}} {
		if err := ledger.Open(ctx, pool, a.id, "EUR", a.opening); err != nil {
			t.Fatal(err)
		}
	}
	opts, _ := redis.ParseURL(services.RedisURL)
	opts.MaxRetries = -1
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	st, err := strategy.New(name, strategy.Deps{Pool: pool, Redis: rdb, Prefix: t.Name() + ":", Profile: profile})
	if err != nil {
		t.Fatal(err)
	}
	tg := &target{pool: pool, rdb: rdb, log: &server.Log{}}
	srv := httptest.NewServer(server.New(server.Config{Strategy: st, Pool: pool, Log: tg.log}))
	t.Cleanup(srv.Close)
	tg.url = srv.URL
	return tg
}

type answer struct {
	status   int
	charge   api.Charge
	errBody  api.Error
	raw      string
	replayed bool
}

func (tg *target) post(t *testing.T, key, attempt string, req api.ChargeRequest) answer {
	t.Helper()
	b, _ := json.Marshal(req)
	r, _ := http.NewRequest(http.MethodPost, tg.url+api.PathCharges, bytes.NewReader(b))
	if key != "" {
		r.Header.Set(api.HeaderKey, key)
	}
	r.Header.Set(api.HeaderAttempt, attempt)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	a := answer{status: resp.StatusCode, raw: buf.String(), replayed: resp.Header.Get(api.HeaderReplayed) == "true"}
	_ = json.Unmarshal(buf.Bytes(), &a.charge)
	_ = json.Unmarshal(buf.Bytes(), &a.errBody)
	return a
}

func (tg *target) charges(t *testing.T) int {
	t.Helper()
	n, err := ledger.CountCharges(context.Background(), tg.pool)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
