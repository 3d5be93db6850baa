package provision

import (
	"context"
	"fmt"
	"net/url"
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
	i := schemeEnd(raw)
	if i < 0 {
		return fmt.Errorf("invalid %s URL: no scheme; want %s", kind, want)
	}
	got := strings.ToLower(raw[:i-3])
	for _, s := range schemes {
		if got == s {
			return nil
		}
	}
	return fmt.Errorf("invalid %s URL %q: scheme %q not supported; want %s", kind, redactAs(raw, legacyMask), got, want)
}

// errUnparsable is the error for a URL url.Parse rejects. Its reason is
// not shown: net/url quotes the whole URL, or a part of the password.
func errUnparsable(kind, raw string) error {
	return fmt.Errorf("invalid %s URL %q: it does not parse as a URL (percent-encode special characters in the user name and password)",
		kind, redactAs(raw, legacyMask))
}

// parseRedisURL validates a Redis URL given by the user. Its errors never
// echo a password: the parser's reason is taken from the redacted URL.
func parseRedisURL(raw string) (*redis.Options, error) {
	if err := checkScheme("redis", raw, "redis", "rediss"); err != nil {
		return nil, err
	}
	if _, err := url.Parse(raw); err != nil {
		return nil, errUnparsable("redis", raw)
	}
	if _, err := redis.ParseURL(Redact(raw)); err != nil {
		return nil, wrapLine(err, "invalid redis URL %q", redactAs(raw, legacyMask))
	}
	opt, err := redis.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid redis URL %q: cannot parse it", redactAs(raw, legacyMask))
	}
	return opt, nil
}

// parsePostgresURL validates a Postgres URL given by the user; its errors
// never echo a password.
func parsePostgresURL(raw string) (*pgx.ConnConfig, error) {
	if err := checkScheme("postgres", raw, "postgres", "postgresql"); err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid postgres URL %q: cannot parse it", redactAs(raw, legacyMask))
	}
	return cfg, nil
}

// pingRedisURL validates and pings a Redis URL given by the user.
func pingRedisURL(ctx context.Context, raw string) error {
	t, err := ParseRedisURL(raw)
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, urlPingTimeout)
	defer cancel()
	if err := t.ping(pctx); err != nil {
		return wrapLine(err, "%s at %s is unreachable", t.Kind(), redactAs(raw, legacyMask))
	}
	return nil
}

// pingPostgresURL validates and pings a Postgres URL given by the user.
func pingPostgresURL(ctx context.Context, raw string) error {
	cfg, err := parsePostgresURL(raw)
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, urlPingTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(pctx, cfg)
	if err != nil {
		return wrapLine(err, "postgres at %s is unreachable", redactAs(raw, legacyMask))
	}
	defer conn.Close(pctx)
	if err := conn.Ping(pctx); err != nil {
		return wrapLine(err, "postgres at %s does not answer", redactAs(raw, legacyMask))
	}
	return nil
}
