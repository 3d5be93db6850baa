package provision

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// urlPingTimeout bounds the check of a URL given by the user.
const urlPingTimeout = 3 * time.Second

// checkScheme accepts raw only if it starts with one of the schemes.
// The message never echoes a password.
func checkScheme(kind, raw string, schemes ...string) error {
	want := strings.Join(schemes, ":// or ") + "://"
	i := strings.Index(raw, "://")
	if i < 0 {
		return fmt.Errorf("invalid %s URL: no scheme; want %s", kind, want)
	}
	got := strings.ToLower(raw[:i])
	for _, s := range schemes {
		if got == s {
			return nil
		}
	}
	return fmt.Errorf("invalid %s URL %q: scheme %q not supported; want %s", kind, redact(raw), got, want)
}

// pingRedisURL validates and pings a Redis URL given by the user.
func pingRedisURL(ctx context.Context, raw string) error {
	if err := checkScheme("redis", raw, "redis", "rediss"); err != nil {
		return err
	}
	opt, err := redis.ParseURL(raw)
	if err != nil {
		return wrapLine(err, "invalid redis URL %q", redact(raw))
	}
	pctx, cancel := context.WithTimeout(ctx, urlPingTimeout)
	defer cancel()
	if err := redisPing(pctx, opt, 0); err != nil {
		return wrapLine(err, "redis at %s is unreachable", redact(raw))
	}
	return nil
}

// pingPostgresURL validates and pings a Postgres URL given by the user.
func pingPostgresURL(ctx context.Context, raw string) error {
	if err := checkScheme("postgres", raw, "postgres", "postgresql"); err != nil {
		return err
	}
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		return fmt.Errorf("invalid postgres URL %q: cannot parse it", redact(raw))
	}
	pctx, cancel := context.WithTimeout(ctx, urlPingTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(pctx, cfg)
	if err != nil {
		return wrapLine(err, "postgres at %s is unreachable", redact(raw))
	}
	defer conn.Close(pctx)
	if err := conn.Ping(pctx); err != nil {
		return wrapLine(err, "postgres at %s does not answer", redact(raw))
	}
	return nil
}
