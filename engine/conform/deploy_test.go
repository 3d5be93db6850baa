package conform

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// get is the status and body of GET u.
func get(t *testing.T, u string) (int, string) {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// argsOf are the arguments a fake target was started with.
func argsOf(t *testing.T, base string) []string {
	t.Helper()
	_, body := get(t, base+"/args")
	var args []string
	if err := json.Unmarshal([]byte(body), &args); err != nil {
		t.Fatalf("%s/args: %q: %v", base, body, err)
	}
	return args
}

// flagOf is the value after --name in args ("" when there is none).
func flagOf(args []string, name string) string {
	i := slices.Index(args, "--"+name)
	if i < 0 || i+1 >= len(args) {
		return ""
	}
	return args[i+1]
}

func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// databaseExists says whether the shared Postgres holds database name.
func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, services.PostgresURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func databaseOf(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// TestDeployRowBehindProxies: a row's target gets a ledger database of
// its own, migrated with the accounts a user's service is charged on, and
// its replicas reach Postgres and Redis only through the row's proxies in
// the session's Toxiproxy; the service a run is given is the target as
// its row declares it, settling for up to settle. close stops the
// replicas, deletes the proxies and drops the database.
func TestDeployRowBehindProxies(t *testing.T) {
	t.Parallel()
	mark := newMark()
	killLeftovers(t, mark)
	e := newEnv(t, fakeBuilds(t))
	target := conformance.Target{Name: "fake", Kind: conformance.Go, Dir: fakeDir, Args: []string{fakeTargetArg, "--mark", mark},
		Redis: true, Replicas: 2, KeyHeader: "X-Idempotency-Key", ClaimTimeout: time.Second}
	r := Row{Target: target, Profile: api.Stripe}
	ctx := context.Background()
	d, err := deploy(ctx, e, r)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = d.close(ctx, e)
		}
	}()

	if len(d.procs) != 2 || len(running(mark)) != 2 {
		t.Fatalf("%d processes started, %d running; want the 2 replicas", len(d.procs), len(running(mark)))
	}
	if d.ext.URLs[0] == d.ext.URLs[1] {
		t.Errorf("both replicas at %s", d.ext.URLs[0])
	}
	for i, u := range d.ext.URLs {
		if u != d.procs[i].url {
			t.Errorf("replica %d serves at %s, the service names %s", i, d.procs[i].url, u)
		}
		args := argsOf(t, u)
		if !slices.Equal(args[:len(target.Args)], target.Args) || flagOf(args, "listen") != "127.0.0.1:0" {
			t.Errorf("replica %d args %q: want the target's own, then --listen 127.0.0.1:0", i, args)
		}
		if got := hostOf(t, flagOf(args, "postgres-url")); got != d.pg.Listen {
			t.Errorf("replica %d reaches Postgres at %s; want the row's proxy, %s", i, got, d.pg.Listen)
		}
		if got := hostOf(t, flagOf(args, "redis-url")); got != d.redis.Listen {
			t.Errorf("replica %d reaches Redis at %s; want the row's proxy, %s", i, got, d.redis.Listen)
		}
		if slices.Contains(args, "--failpoints") || slices.Contains(args, "--redis-prefix") {
			t.Errorf("replica %d got paymentd's arguments: %q", i, args)
		}
		if code, body := get(t, u+"/db"); code != http.StatusOK || body != "4" {
			t.Errorf("replica %d: the ledger through the proxy: %d %q; want 4 accounts", i, code, body)
		}
		if code, body := get(t, u+"/redis"); code != http.StatusOK {
			t.Errorf("replica %d: Redis through the proxy: %d %q", i, code, body)
		}
	}
	// its traffic goes through the proxies: cut, the stores are out of reach
	if err := d.pg.Cut(); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, d.ext.URLs[0]+"/db"); code != http.StatusServiceUnavailable {
		t.Errorf("the Postgres proxy cut: the target still reaches its ledger (%d)", code)
	}
	if err := d.redis.Cut(); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, d.ext.URLs[1]+"/redis"); code != http.StatusServiceUnavailable {
		t.Errorf("the Redis proxy cut: the target still reaches Redis (%d)", code)
	}

	// the ledger: migrated, acct-1..acct-4 opened with paymentd's balance
	pool, err := pgxpool.New(ctx, d.dsn)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, "SELECT id, balance FROM accounts ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	type account struct {
		ID      string
		Balance int64
	}
	accts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[account])
	if err != nil {
		t.Fatal(err)
	}
	want := []account{{workload.AccountID(1), opening}, {workload.AccountID(2), opening}, {workload.AccountID(3), opening}, {workload.AccountID(4), opening}}
	if !slices.Equal(accts, want) {
		t.Errorf("accounts %v; want %v", accts, want)
	}
	var charges int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM ("+conformance.LedgerQuery+") q").Scan(&charges); err != nil || charges != 0 {
		t.Errorf("the ledger query on a new ledger: %d rows, %v", charges, err)
	}
	pool.Close()

	x := d.ext
	wantExt := scenarios.External{Name: "fake.stripe", URLs: x.URLs, LedgerQuery: conformance.LedgerQuery, ClaimTimeout: time.Second,
		Settle: settle, Failpoints: true, PostgresProxy: "conf-fake.stripe-pg-" + e.runID, RedisProxy: "conf-fake.stripe-redis-" + e.runID,
		TopUp: &scenarios.TopUp{Path: "/v1/accounts/{{.Account}}/top-ups", Body: scenarios.DefaultTopUpBody}}
	wantExt.Shape.KeyHeader = "X-Idempotency-Key"
	if x.TopUp == nil || *x.TopUp != *wantExt.TopUp {
		t.Errorf("top-up %+v; want %+v", x.TopUp, wantExt.TopUp)
	}
	if !reflect.DeepEqual(x, wantExt) {
		t.Errorf("service\n%+v\nwant\n%+v", x, wantExt)
	}
	if err := x.Check(); err != nil {
		t.Errorf("the service does not check: %v", err)
	}
	if x.SettleBound() != settle || settle <= x.ClaimTimeout {
		t.Errorf("the ledger settles for up to %s (claim timeout %s); want %s", x.SettleBound(), x.ClaimTimeout, settle)
	}
	for _, name := range []string{x.PostgresProxy, x.RedisProxy} {
		if _, err := e.Session.Toxi.Existing(name); err != nil {
			t.Errorf("proxy %s: %v", name, err)
		}
	}

	closed = true
	if err := d.close(ctx, e); err != nil {
		t.Fatal(err)
	}
	noneRunning(t, mark)
	for _, name := range []string{x.PostgresProxy, x.RedisProxy} {
		if _, err := e.Session.Toxi.Existing(name); err == nil {
			t.Errorf("proxy %s left after close", name)
		}
	}
	if databaseExists(t, databaseOf(t, d.dsn)) {
		t.Errorf("database of %s left after close", d.dsn)
	}
}

// TestDeployPaymentdRow: a reference row's paymentd gets its Redis (the
// URL itself when its strategy keeps nothing there), a key prefix of the
// row's own, the failpoint protocol and the row's profile; it is ready
// once it says "paymentd: ready".
func TestDeployPaymentdRow(t *testing.T) {
	t.Parallel()
	mark := newMark()
	killLeftovers(t, mark)
	e := newEnv(t, fakeBuilds(t))
	target := conformance.Target{Name: "pg-fake", Kind: conformance.Paymentd, Args: []string{fakeTargetArg, "--mark", mark, "--paymentd"},
		Replicas: 1, ClaimTimeout: 250 * time.Millisecond, KeyTTL: 250 * time.Millisecond}
	ctx := context.Background()
	d, err := deploy(ctx, e, Row{Target: target, Profile: api.IETF})
	if err != nil {
		t.Fatal(err)
	}
	defer d.close(ctx, e)
	if len(d.ext.URLs) != 1 {
		t.Fatalf("urls %q", d.ext.URLs)
	}
	args := argsOf(t, d.ext.URLs[0])
	if got := flagOf(args, "redis-url"); got != services.RedisURL {
		t.Errorf("--redis-url %q; want the session's Redis, %q", got, services.RedisURL)
	}
	if got := flagOf(args, "redis-prefix"); got != "conf-pg-fake.ietf:" {
		t.Errorf("--redis-prefix %q", got)
	}
	if !slices.Contains(args, "--failpoints") || flagOf(args, "profile") != "ietf" {
		t.Errorf("args %q: want --failpoints --profile ietf", args)
	}
	if d.redis != nil || d.ext.RedisProxy != "" || d.ext.KeyTTL != 250*time.Millisecond {
		t.Errorf("service %+v: want no Redis proxy, the key TTL declared", d.ext)
	}
}

// TestDeployFailureCleansUp: a row whose target does not build or whose
// replica does not start is an error naming the row, and what deploy had
// made is undone: no process left, no proxy, no database.
func TestDeployFailureCleansUp(t *testing.T) {
	t.Parallel()
	t.Run("a replica exits", func(t *testing.T) {
		mark := newMark()
		killLeftovers(t, mark)
		e := newEnv(t, fakeBuilds(t))
		seen := filepath.Join(t.TempDir(), "started")
		target := conformance.Target{Name: "fake", Kind: conformance.Go, Dir: fakeDir, Redis: true, Replicas: 2, ClaimTimeout: time.Second,
			Args: []string{fakeTargetArg, "--mark", mark, "--die-if-exists", seen}} // the second replica refuses
		d, err := deploy(context.Background(), e, Row{Target: target, Profile: api.IETF})
		if d != nil || err == nil {
			t.Fatalf("deploy: %v, %v; want an error", d, err)
		}
		if want := "fake.ietf replica 1 exited before it served: faketarget: starting | faketarget: " + seen + " exists: refusing to start"; err.Error() != want {
			t.Errorf("error %q\nwant  %q", err, want)
		}
		noneRunning(t, mark)
		assertNoProxies(t, e, "fake.ietf")
		first, err := os.ReadFile(seen) // the first replica's arguments
		if err != nil {
			t.Fatal(err)
		}
		db := databaseOf(t, flagOf(strings.Split(string(first), "\n"), "postgres-url"))
		if db == "" || databaseExists(t, db) {
			t.Errorf("database %q left behind", db)
		}
	})
	t.Run("no build", func(t *testing.T) {
		e := newEnv(t, fakeBuilds(t))
		e.Builds.done[fakeDir] = errors.New("target fake: building fake/faketarget: exit status 1")
		target := conformance.Target{Name: "fake", Kind: conformance.Go, Dir: fakeDir, Replicas: 1, ClaimTimeout: time.Second}
		d, err := deploy(context.Background(), e, Row{Target: target, Profile: api.IETF})
		if d != nil || err == nil || err.Error() != "target fake: building fake/faketarget: exit status 1" {
			t.Fatalf("deploy: %v, %v; want the build's error", d, err)
		}
		assertNoProxies(t, e, "fake.ietf")
	})
}

func assertNoProxies(t *testing.T, e Env, row string) {
	t.Helper()
	for _, name := range []string{"conf-" + row + "-pg-" + e.runID, "conf-" + row + "-redis-" + e.runID} {
		if _, err := e.Session.Toxi.Existing(name); err == nil {
			t.Errorf("proxy %s left behind", name)
		}
	}
}
