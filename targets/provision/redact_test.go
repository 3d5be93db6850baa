package provision

import (
	"testing"
)

func TestRedactTable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// userinfo
		{"postgres://user:secret@host/db?password=x", "postgres://user:xxxxx@host/db?password=xxxxx"},
		{"redis://:secret@host", "redis://:xxxxx@host"},
		{"redis://:secret@host:6379/0", "redis://:xxxxx@host:6379/0"},
		{"rediss://default:s3cr3t@cache.internal:6380/2", "rediss://default:xxxxx@cache.internal:6380/2"},
		{"postgresql://u:p@ss@h/db", "postgresql://u:xxxxx@h/db"},
		{"postgresql://u:pw@[::1]:5432/db?application_name=a@b", "postgresql://u:xxxxx@[::1]:5432/db?application_name=a@b"},
		{"postgres://u:pw@h1:5432,h2:5433/db", "postgres://u:xxxxx@h1:5432,h2:5433/db"},
		{"POSTGRES://u:pw@h/db", "POSTGRES://u:xxxxx@h/db"},
		// a password with an unescaped '/', '?' or '#': the URL does not parse
		{"rediss://u:p/w@h", "rediss://u:xxxxx@h"},
		{"postgres://u:p?ss@h/db", "postgres://u:xxxxx@h/db"},
		{"postgres://u:p#ss@h/db?sslmode=disable", "postgres://u:xxxxx@h/db?sslmode=disable"},
		{"postgres://u:1#ss@h/db", "postgres://u:xxxxx@h/db"}, // parses (host u, port 1), '@' in the fragment
		{"redis://a/b:secret@h", "redis://a/b:xxxxx@h"},       // parses, '@' in the path
		{"redis://u:1#b?c@h/0", "redis://u:xxxxx@h/0"},        // parses, '@' in the fragment after a '?'
		{"postgres://h/db?application_name=a@b#x@y", "postgres://h/db?application_name=a@b#x@y"},
		// query parameters
		{"postgres://u@h/db?sslmode=require&sslpassword=k3y&password=pw", "postgres://u@h/db?sslmode=require&sslpassword=xxxxx&password=xxxxx"},
		{"postgres://u@h/db?PASSWORD=pw#frag", "postgres://u@h/db?PASSWORD=xxxxx#frag"},
		{"postgres://u@h/db?pass%77ord=pw", "postgres://u@h/db?pass%77ord=xxxxx"},
		{"postgres://u@h/db?password=&x=1", "postgres://u@h/db?password=&x=1"},
		{"postgres://u@h/db?passwords=pw", "postgres://u@h/db?passwords=pw"},
		// key=value DSN
		{"host=h password=secret dbname=d", "host=h password=xxxxx dbname=d"},
		{"host=h password = 'se cr\\'et' user=u", "host=h password = xxxxx user=u"},
		{"password=a\\ b sslpassword=k", "password=xxxxx sslpassword=xxxxx"},
		{"host=h password='a b'c dbname=d", "host=h password=xxxxx dbname=d"}, // junk glued to the quote goes too
		{"host=h application_name='x password=y' user=u", "host=h application_name='x password=y' user=u"},
		{"host=h mypassword=y", "host=h mypassword=y"},
		// nothing secret: unchanged, still usable
		{"postgres://postgres@127.0.0.1:5432/idemchaos_1f0c9a2b?sslmode=disable", "postgres://postgres@127.0.0.1:5432/idemchaos_1f0c9a2b?sslmode=disable"},
		{"postgres://u:@h/db", "postgres://u:@h/db"},
		{"postgres://u@h:5432/a@b?sslmode=disable", "postgres://u@h:5432/a@b?sslmode=disable"},
		{"redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"127.0.0.1:6379", "127.0.0.1:6379"},
		{"no scheme at all", "no scheme at all"},
		{"", ""},
		{"://x:y@z", "://x:y@z"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Redact(Redact(tc.in)); got != tc.want {
			t.Errorf("Redact(Redact(%q)) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactInMessages: provision's own messages use *** and keep the
// userinfo where RFC 3986 puts it, and now hide query and DSN passwords too.
func TestRedactInMessages(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p@h/db?password=q": "postgres://u:***@h/db?password=***",
		"host=h password=q":              "host=h password=***",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
