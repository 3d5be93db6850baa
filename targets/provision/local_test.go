package provision

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

func TestSharedRedisIsLocalAndWorks(t *testing.T) {
	if shared.RedisSource != SourceLocal || !strings.HasPrefix(shared.RedisURL, "redis://127.0.0.1:") {
		t.Fatalf("redis = %s (%s), want a local server on 127.0.0.1", shared.RedisURL, shared.RedisSource)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := redisClient(t, shared.RedisURL)
	if err := c.Set(ctx, "provision-test", "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Get(ctx, "provision-test").Result(); err != nil || got != "v1" {
		t.Fatalf("GET = %q, %v; want v1", got, err)
	}
	for param, want := range map[string]string{"save": "", "appendonly": "no", "bind": "127.0.0.1", "maxclients": "10000"} {
		got, err := c.ConfigGet(ctx, param).Result()
		if err != nil || got[param] != want {
			t.Errorf("CONFIG GET %s = %q, %v; want %q", param, got[param], err, want)
		}
	}
}

func TestSharedPostgresIsLocalAndWorks(t *testing.T) {
	if shared.PostgresSource != SourceLocal || !strings.HasPrefix(shared.PostgresURL, "postgres://postgres@127.0.0.1:") {
		t.Fatalf("postgres = %s (%s), want a local server on 127.0.0.1", shared.PostgresURL, shared.PostgresSource)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn := pgConn(ctx, t, shared.PostgresURL)
	var version string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "PostgreSQL ") {
		t.Errorf("version() = %q", version)
	}
	t.Logf("server: %s", version)
	for setting, want := range map[string]string{"fsync": "off", "synchronous_commit": "off",
		"full_page_writes": "off", "max_connections": "300", "listen_addresses": "127.0.0.1"} {
		var got string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", setting).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", setting, got, err, want)
		}
	}
	var sum int
	if err := conn.QueryRow(ctx, "SELECT sum(x) FROM generate_series(1, 10) AS x").Scan(&sum); err != nil || sum != 55 {
		t.Errorf("sum = %d, %v; want 55", sum, err)
	}
}

func TestPostgresRunsUnprivileged(t *testing.T) {
	pid := partPid(t, shared, "postgres")
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var uid string
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			uid = f[1]
		}
	}
	if uid == "0" {
		t.Errorf("postmaster %d runs as root", pid)
	}
	if want := fmt.Sprint(os.Geteuid()); os.Geteuid() != 0 && uid != want {
		t.Errorf("postmaster uid = %s, want %s", uid, want)
	}
}

func TestCreateDropDatabase(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dsn1, err := shared.CreateDatabase(ctx, "Scenario 7!")
	if err != nil {
		t.Fatal(err)
	}
	dsn2, err := shared.CreateDatabase(ctx, "Scenario 7!")
	if err != nil {
		t.Fatal(err)
	}
	defer shared.DropDatabase(ctx, dsn2)
	if dsn1 == dsn2 || !strings.Contains(dsn1, "/scenario_7_") {
		t.Fatalf("DSNs %s and %s: want two distinct scenario_7_* databases", dsn1, dsn2)
	}
	conn := pgConn(ctx, t, dsn1) // left open: DROP ... WITH (FORCE) must end it
	if _, err := conn.Exec(ctx, "CREATE TABLE idem (key text PRIMARY KEY); INSERT INTO idem VALUES ('k1')"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM idem").Scan(&n); err != nil || n != 1 {
		t.Fatalf("count = %d, %v; want 1", n, err)
	}
	if err := shared.DropDatabase(ctx, dsn1); err != nil {
		t.Fatal(err)
	}
	name := dsn1[strings.LastIndex(dsn1, "/")+1 : strings.Index(dsn1, "?")]
	admin := pgConn(ctx, t, shared.PostgresURL)
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil || n != 0 {
		t.Fatalf("pg_database rows for %s = %d, %v; want 0", name, n, err)
	}
	if err := shared.DropDatabase(ctx, dsn1); err != nil {
		t.Errorf("second drop: %v; want nil", err)
	}
	if err := shared.DropDatabase(ctx, shared.PostgresURL); err == nil {
		t.Error("dropping the admin database: want an error")
	}
	if err := shared.DropDatabase(ctx, "postgres://postgres@127.0.0.1:1/x"); err == nil {
		t.Error("dropping a database on another server: want an error")
	}
}

func TestDatabaseName(t *testing.T) {
	for prefix, want := range map[string]string{
		"":                      "db_",
		"123":                   "db_123_",
		"Scenario 7!":           "scenario_7_",
		strings.Repeat("a", 90): strings.Repeat("a", maxPrefixLen) + "_",
	} {
		got, err := databaseName(prefix)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got, want) || len(got) != len(want)+8 || len(got) > 63 {
			t.Errorf("databaseName(%q) = %q, want %s + 8 hex digits", prefix, got, want)
		}
	}
}

func redisClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opt.MaxRetries = -1
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

func pgConn(ctx context.Context, t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func partPid(t *testing.T, s *Services, name string) int {
	t.Helper()
	for _, p := range s.parts {
		if p.name == name {
			return p.pid
		}
	}
	t.Fatalf("no %s part", name)
	return 0
}
