package provision

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestGivenURLsAreUsedAsIs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	base := testBase(t)
	s, err := Start(ctx, Config{RedisURL: shared.RedisURL, PostgresURL: shared.PostgresURL, TempDir: base})
	if err != nil {
		t.Fatal(err)
	}
	if s.RedisURL != shared.RedisURL || s.PostgresURL != shared.PostgresURL ||
		s.RedisSource != SourceURL || s.PostgresSource != SourceURL {
		t.Errorf("services = %+v; want the given URLs with source %q", s, SourceURL)
	}
	if len(s.parts) != 0 || len(dirEntries(t, base)) != 0 {
		t.Errorf("given URLs started something: parts %d, dirs %v", len(s.parts), dirEntries(t, base))
	}
	dsn, err := s.CreateDatabase(ctx, "given")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DropDatabase(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Closing must not stop servers it did not start.
	if err := pingRedisURL(ctx, shared.RedisURL); err != nil {
		t.Errorf("shared redis after Close: %v", err)
	}
	if err := pingPostgresURL(ctx, shared.PostgresURL); err != nil {
		t.Errorf("shared postgres after Close: %v", err)
	}
}

func TestBadURLScheme(t *testing.T) {
	for _, tc := range []struct {
		name, redisURL, pgURL string
		want                  []string
		secret                string
	}{
		{"redis http", "http://127.0.0.1:6379", "", []string{`invalid redis URL "http://127.0.0.1:6379": scheme "http" not supported; want redis:// or rediss://`}, ""},
		{"redis no scheme", "127.0.0.1:6379", "", []string{"invalid redis URL: no scheme; want redis:// or rediss://"}, ""},
		{"postgres mysql", "", "mysql://u:hunter2@127.0.0.1/db", []string{`"mysql://u:***@127.0.0.1/db"`, "want postgres:// or postgresql://"}, "hunter2"},
		{"postgres key=value", "", "host=127.0.0.1 password=hunter2", []string{"invalid postgres URL: no scheme"}, "hunter2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{RedisURL: tc.redisURL, PostgresURL: tc.pgURL, NoDocker: true, TempDir: testBase(t)}
			if cfg.RedisURL == "" {
				cfg.RedisURL = shared.RedisURL
			}
			t0 := time.Now()
			_, err := Start(context.Background(), cfg)
			assertOneLine(t, err)
			if d := time.Since(t0); d > time.Second {
				t.Errorf("took %v", d)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q; want it to contain %q", err, w)
				}
			}
			if tc.secret != "" && strings.Contains(err.Error(), tc.secret) {
				t.Errorf("err leaks the password: %q", err)
			}
		})
	}
}

func TestUnreachableURL(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"redis", Config{RedisURL: "redis://user:hunter2@127.0.0.1:1/0"}, "redis at redis://user:***@127.0.0.1:1/0 is unreachable: "},
		{"postgres", Config{RedisURL: "", PostgresURL: "postgres://u:hunter2@127.0.0.1:1/postgres?sslmode=disable"},
			"postgres at postgres://u:***@127.0.0.1:1/postgres?sslmode=disable is unreachable: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.RedisURL == "" {
				tc.cfg.RedisURL = shared.RedisURL
			}
			t0 := time.Now()
			_, err := Start(context.Background(), tc.cfg)
			d := time.Since(t0)
			assertOneLine(t, err)
			t.Logf("%v after %v", err, d.Round(time.Microsecond))
			if d > 500*time.Millisecond {
				t.Errorf("took %v; want well under the 3 s ping limit", d)
			}
			if !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("err = %q; want prefix %q and no password", err, tc.want)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"redis://127.0.0.1:6379/0":              "redis://127.0.0.1:6379/0",
		"redis://:pw@h:1/0":                     "redis://:***@h:1/0",
		"postgres://u:p@ss@h/db?x=1":            "postgres://u:***@h/db?x=1",
		"postgres://u@h/db":                     "postgres://u@h/db",
		"rediss://u:p/w@h":                      "rediss://u:p/w@h", // unescaped '/': not a userinfo
		"postgresql://u:pw@[::1]:5432/db?a=b@c": "postgresql://u:***@[::1]:5432/db?a=b@c",
		"no scheme at all":                      "no scheme at all",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
