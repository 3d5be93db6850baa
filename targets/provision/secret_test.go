package provision

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestStartNeverShowsASecret: whatever form a password takes in a given URL,
// and whether the URL is unreachable, refused or accepted, neither Start's
// error nor its log lines show it.
func TestStartNeverShowsASecret(t *testing.T) {
	const secret = "hunter2zq9"
	pgUp := shared.PostgresURL // postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable
	for _, tc := range []struct {
		name            string
		redis, postgres string
		logs            string // Start succeeds and logs this
	}{
		{name: "postgres userinfo", postgres: "postgres://u:" + secret + "@127.0.0.1:1/postgres?sslmode=disable"},
		{name: "postgres password parameter", postgres: "postgres://u@127.0.0.1:1/postgres?sslmode=disable&password=" + secret},
		{name: "postgres sslpassword parameter", postgres: "postgresql://u@127.0.0.1:1/postgres?sslmode=disable&sslpassword=" + secret},
		{name: "postgres password with a slash", postgres: "postgres://u:a/" + secret + "@127.0.0.1:1/postgres"},
		{name: "postgres password with a '#'", postgres: "postgres://u:a#" + secret + "@127.0.0.1:1/postgres"},
		{name: "postgres key=value DSN", postgres: "host=127.0.0.1 port=1 user=u password=" + secret},
		{name: "postgres other scheme", postgres: "mysql://u:" + secret + "@127.0.0.1:1/db"},
		{name: "postgres no scheme, password first", postgres: "u:" + secret + "@127.0.0.1/db?x=http://y"},
		{name: "postgres accepted, password parameter ignored", postgres: pgUp + "&password=" + secret, logs: "&password=***"},
		{name: "redis userinfo", redis: "redis://:" + secret + "@127.0.0.1:1/0"},
		{name: "redis user and password", redis: "rediss://default:" + secret + "@127.0.0.1:1/0"},
		{name: "redis password with a space", redis: "redis://u:a " + secret + "@127.0.0.1:1/0"},
		{name: "redis password in the path", redis: "redis://a/b:" + secret + "@127.0.0.1:1"},
		{name: "redis accepted, password ignored", redis: strings.Replace(shared.RedisURL, "redis://", "redis://:"+secret+"@", 1), logs: "redis: using redis://:***@"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{RedisURL: tc.redis, PostgresURL: tc.postgres, NoDocker: true, TempDir: testBase(t)}
			if cfg.RedisURL == "" {
				cfg.RedisURL = shared.RedisURL
			}
			if cfg.PostgresURL == "" {
				cfg.PostgresURL = pgUp
			}
			var log bytes.Buffer
			cfg.Log = &log
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := Start(ctx, cfg)
			if tc.logs != "" {
				if err != nil {
					t.Fatalf("Start: %v", err)
				}
				s.Close()
				if !strings.Contains(log.String(), tc.logs) {
					t.Errorf("log %q lacks %q", log.String(), tc.logs)
				}
			} else {
				assertOneLine(t, err)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows the password: %v", err)
			}
			if strings.Contains(log.String(), secret) {
				t.Errorf("the log shows the password:\n%s", log.String())
			}
			t.Logf("error: %v", err)
		})
	}
}
