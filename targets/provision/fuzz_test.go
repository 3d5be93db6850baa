package provision

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzStoreURL checks the parsing of --redis-url and --postgres-url and
// Redact on any string raw, and on URLs built from raw with a password
// (user:Zq9<pass>@raw):
//   - nothing panics; every error is one line;
//   - Redact is idempotent and adds no line break; a URL that parses with
//     a password, or a password or sslpassword parameter, has them masked;
//   - a built URL's password is shown neither by Redact nor by an error.
func FuzzStoreURL(f *testing.F) {
	for _, s := range [][3]string{
		{"redis://127.0.0.1:6379/0", "", "pw"},
		{"rediss://cache:6380/2?dial_timeout=3s", "default", "s/3#c?r"},
		{"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable&password=x", "u", "p@ss"},
		{"postgresql://h1:5432,h2:5433/db?sslpassword=k&application_name=a@b", "u:v", "p w"},
		{"host=127.0.0.1 port=5432 password='a b\\' c' dbname=d", "", ""},
		{"mysql://u:p/w@h/db", "a/b", "x"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, raw, user, pass string) {
		defer fuzzWatchdog(fuzzLimit)()
		checkRedact(t, raw)
		for _, parse := range []func(string) error{
			func(s string) error { _, err := parseRedisURL(s); return err },
			func(s string) error { _, err := parsePostgresURL(s); return err },
		} {
			if err := parse(raw); err != nil && strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		}
		secret := "Zq9" + pass
		if strings.Contains(user, "@") || strings.Contains(user+raw, "Zq9") {
			return // a user name must not hold an unescaped '@'
		}
		for _, scheme := range []string{"redis://", "rediss://", "postgres://", "postgresql://"} {
			built := scheme + user + ":" + secret + "@" + raw
			if queryInUserinfo(built, user+":"+secret) {
				continue
			}
			checkRedact(t, built)
			if shows(Redact(built), secret) || shows(redactAs(built, legacyMask), secret) {
				t.Fatalf("Redact(%q) = %q shows the password", built, Redact(built))
			}
			for _, parse := range []func(string) error{
				func(s string) error { _, err := parseRedisURL(s); return err },
				func(s string) error { _, err := parsePostgresURL(s); return err },
			} {
				if err := parse(built); err != nil && (shows(err.Error(), secret) || strings.ContainsAny(err.Error(), "\r\n")) {
					t.Fatalf("parsing %q: error %q shows the password or is not one line", built, err)
				}
			}
		}
	})
}

// queryInUserinfo reports whether built parses as a URL with no userinfo
// whose query starts inside userinfo, the user name and password it was
// built with: Redact's documented limit (a '?' must be escaped there).
func queryInUserinfo(built, userinfo string) bool {
	q, h := strings.IndexByte(userinfo, '?'), strings.IndexByte(userinfo, '#')
	if q < 0 || h >= 0 && h < q {
		return false
	}
	u, err := url.Parse(built)
	return err == nil && u.User == nil
}

// checkRedact checks Redact's properties on one string.
func checkRedact(t *testing.T, raw string) {
	t.Helper()
	r := Redact(raw)
	if Redact(r) != r {
		t.Fatalf("Redact is not idempotent: %q -> %q -> %q", raw, r, Redact(r))
	}
	if strings.Count(r, "\n") > strings.Count(raw, "\n") {
		t.Fatalf("Redact(%q) = %q adds a line", raw, r)
	}
	u, err := url.Parse(raw)
	if err != nil || schemeEnd(raw) < 0 {
		return
	}
	if p, ok := u.User.Password(); ok && p != "" {
		ru, err := url.Parse(r)
		if err != nil {
			t.Fatalf("Redact(%q) = %q does not parse: %v", raw, r, err)
		}
		if rp, _ := ru.User.Password(); rp != Mask {
			t.Fatalf("Redact(%q) = %q: password %q", raw, r, rp)
		}
	}
	ru, err := url.Parse(r)
	if err != nil {
		return
	}
	for name, values := range ru.Query() {
		for _, v := range values {
			if isSecretKey(name) && v != "" && v != Mask {
				t.Fatalf("Redact(%q) = %q: parameter %s=%q", raw, r, name, v)
			}
		}
	}
}

// shows reports whether s holds secret as is or quoted.
func shows(s, secret string) bool {
	return strings.Contains(s, secret) || strings.Contains(s, strings.Trim(strconv.Quote(secret), `"`))
}

// fuzzLimit bounds one input; a slower one is a hang.
const fuzzLimit = 10 * time.Second

// fuzzWatchdog crashes the process when an input runs longer than limit, so
// that the fuzzer records a hang as a failing input; call the result to
// disarm it.
func fuzzWatchdog(limit time.Duration) func() bool {
	return time.AfterFunc(limit, func() { panic(fmt.Sprintf("one input ran for more than %v", limit)) }).Stop
}
