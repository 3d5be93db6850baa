package provision

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// TestMySQLLocal starts one MariaDB from local binaries, runs the MySQL
// tests that need a server on it, stops it and checks that nothing of it
// is left: one start (a few seconds) serves them all.
func TestMySQLLocal(t *testing.T) {
	base := testBase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	var log io.Writer
	if testing.Verbose() {
		log = os.Stderr
	}
	s, err := Start(ctx, Config{RedisURL: shared.RedisURL, PostgresURL: shared.PostgresURL,
		MySQL: true, NoDocker: true, TempDir: base, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("start (mariadb-install-db + mariadbd): %v", time.Since(t0).Round(time.Millisecond))
	defer s.Close()
	if s.MySQLSource != SourceLocal || !strings.HasPrefix(s.MySQLURL, "mysql://root@127.0.0.1:") ||
		!strings.HasSuffix(s.MySQLURL, "/"+mysqlDatabase) {
		t.Fatalf("mysql = %s (%s); want a local server's %s database on 127.0.0.1", s.MySQLURL, s.MySQLSource, mysqlDatabase)
	}
	if len(s.parts) != 1 || s.parts[0].name != "mysql" || filepath.Dir(s.parts[0].dir) != base {
		t.Fatalf("parts = %+v; want one mysql part with its dir under %s", s.parts, base)
	}
	if groups := s.ProcessGroups(); len(groups) != 1 || groups["mysql"] != s.parts[0].pid {
		t.Errorf("ProcessGroups = %v; want mysql %d", groups, s.parts[0].pid)
	}
	if removed, err := Sweep(base); err != nil || len(removed) != 0 {
		t.Errorf("Sweep of a live run removed %v (err %v); want nothing", removed, err)
	}

	t.Run("Works", func(t *testing.T) { testMySQLWorks(t, s) })
	t.Run("Settings", func(t *testing.T) { testMySQLSettings(t, s) })
	t.Run("Unprivileged", func(t *testing.T) { testMySQLUnprivileged(t, s) })
	t.Run("URL", func(t *testing.T) { testMySQLURL(t, s) })
	t.Run("Databases", func(t *testing.T) { testMySQLDatabases(t, s) })
	t.Run("CancelledWhileServing", func(t *testing.T) { testMySQLCancelledWhileServing(t, s) })

	t1 := time.Now()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("close: %v", time.Since(t1).Round(time.Millisecond))
	if err := checkGone(s.parts); err != nil {
		t.Error(err)
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
	if procs := procsMentioning(t, base); len(procs) != 0 {
		t.Errorf("processes still running: %v", procs)
	}
}

// testMySQLWorks connects through MySQLDSN with the driver and uses InnoDB,
// duplicate keys refused as an idempotency store needs.
func testMySQLWorks(t *testing.T, s *Services) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := mysqlDB(t, s.MySQLURL)
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(version, "MariaDB") {
		t.Errorf("VERSION() = %q; want a MariaDB", version)
	}
	t.Logf("server: %s", version)
	stmts := []string{
		"CREATE TABLE idem (idem_key VARCHAR(64) PRIMARY KEY, charge INT NOT NULL) ENGINE=InnoDB",
		"INSERT INTO idem VALUES ('k1', 100)",
	}
	for _, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	_, err := db.ExecContext(ctx, "INSERT INTO idem VALUES ('k1', 200)")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 {
		t.Errorf("second INSERT of k1: %v; want error 1062 (duplicate entry)", err)
	}
	var charge int
	if err := db.QueryRowContext(ctx, "SELECT charge FROM idem WHERE idem_key = ?", "k1").Scan(&charge); err != nil || charge != 100 {
		t.Errorf("charge = %d, %v; want 100", charge, err)
	}
	var engine string
	err = db.QueryRowContext(ctx, "SELECT engine FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'idem'").Scan(&engine)
	if err != nil || engine != "InnoDB" {
		t.Errorf("engine = %q, %v; want InnoDB", engine, err)
	}
}

// testMySQLSettings checks the server's options: loopback only, its
// socket, data and temporary files in its dir, the throwaway settings.
func testMySQLSettings(t *testing.T, s *Services) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := mysqlDB(t, s.MySQLURL)
	u, err := url.Parse(s.MySQLURL)
	if err != nil {
		t.Fatal(err)
	}
	dir := partDir(t, s, "mysql")
	for v, want := range map[string]string{
		"bind_address": "127.0.0.1", "port": u.Port(), "socket": filepath.Join(dir, mysqlSocketFile),
		"datadir": filepath.Join(dir, "data") + "/", "pid_file": filepath.Join(dir, mysqlPidFile), "tmpdir": dir,
		"innodb_flush_log_at_trx_commit": "2", "innodb_doublewrite": "0", "character_set_server": "utf8mb4",
		"max_connections": "300", "skip_name_resolve": "1", "skip_networking": "0",
	} {
		var got string
		if err := db.QueryRowContext(ctx, "SELECT @@"+v).Scan(&got); err != nil || got != want {
			t.Errorf("@@%s = %q, %v; want %q", v, got, err, want)
		}
	}
}

func testMySQLUnprivileged(t *testing.T, s *Services) {
	pid := partPid(t, s, "mysql")
	uid := procUID(t, pid)
	if uid == "0" {
		t.Errorf("mariadbd %d runs as root", pid)
	}
	want := fmt.Sprint(os.Geteuid())
	if os.Geteuid() == 0 {
		u, err := user.Lookup("mysql")
		if err != nil {
			t.Skipf("no mysql user: %v", err)
		}
		want = u.Uid
	}
	if uid != want {
		t.Errorf("mariadbd uid = %s, want %s", uid, want)
	}
}

// testMySQLURL gives Start the running server's URL: it is used, not
// started again; a bad one fails in one line without its password.
func testMySQLURL(t *testing.T, s *Services) {
	base := testBase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	byURL, err := Start(ctx, Config{RedisURL: shared.RedisURL, PostgresURL: shared.PostgresURL,
		MySQLURL: s.MySQLURL, NoDocker: true, TempDir: base})
	if err != nil {
		t.Fatal(err)
	}
	defer byURL.Close()
	if byURL.MySQLSource != SourceURL || byURL.MySQLURL != s.MySQLURL || len(byURL.parts) != 0 {
		t.Errorf("by URL: mysql = %s (%s), %d parts; want %s (url), none", byURL.MySQLURL, byURL.MySQLSource, len(byURL.parts), s.MySQLURL)
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
	u, _ := url.Parse(s.MySQLURL)
	u.User = url.UserPassword("root", "s3cret") // root has no password: refused
	for _, bad := range []string{u.String(), "mysql://root:s3cret@127.0.0.1:1/idemchaos"} {
		_, err := Start(ctx, Config{RedisURL: shared.RedisURL, PostgresURL: shared.PostgresURL,
			MySQLURL: bad, NoDocker: true, TempDir: base})
		assertOneLine(t, err)
		t.Log(err)
		if msg := err.Error(); !strings.Contains(msg, "is unreachable") || strings.Contains(msg, "s3cret") {
			t.Errorf("err = %q; want unreachable, without the password", msg)
		}
	}
}

func testMySQLDatabases(t *testing.T, s *Services) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	url1, err := s.CreateMySQLDatabase(ctx, "Scenario 7!")
	if err != nil {
		t.Fatal(err)
	}
	url2, err := s.CreateMySQLDatabase(ctx, "Scenario 7!")
	if err != nil {
		t.Fatal(err)
	}
	defer s.DropMySQLDatabase(ctx, url2)
	if url1 == url2 || !strings.Contains(url1, "/scenario_7_") {
		t.Fatalf("URLs %s and %s: want two distinct scenario_7_* databases", url1, url2)
	}
	db := quietDB(t, url1) // its connection is killed: the driver would log it
	if _, err := db.ExecContext(ctx, "CREATE TABLE idem (idem_key VARCHAR(64) PRIMARY KEY) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil) // left open: its lock would hold DROP DATABASE
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT INTO idem VALUES ('k1')"); err != nil {
		t.Fatal(err)
	}
	dropCtx, dropCancel := context.WithTimeout(ctx, 5*time.Second)
	defer dropCancel()
	if err := s.DropMySQLDatabase(dropCtx, url1); err != nil {
		t.Fatal(err)
	}
	name := url1[strings.LastIndex(url1, "/")+1:]
	var n int
	admin := mysqlDB(t, s.MySQLURL)
	if err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", name).Scan(&n); err != nil || n != 0 {
		t.Fatalf("schemata rows for %s = %d, %v; want 0", name, n, err)
	}
	if err := s.DropMySQLDatabase(ctx, url1); err != nil {
		t.Errorf("second drop: %v; want nil", err)
	}
	system, err := withDatabase(s.MySQLURL, "mysql")
	if err != nil {
		t.Fatal(err)
	}
	for what, refused := range map[string]string{
		"the harness's database": s.MySQLURL, "a system database": system,
		"a database on another server": "mysql://root@127.0.0.1:1/x",
	} {
		if err := s.DropMySQLDatabase(ctx, refused); err == nil {
			t.Errorf("dropping %s: want an error", what)
		}
	}
}

// lineHook calls do once, on the first progress line holding word.
type lineHook struct {
	word string
	do   func()
	done bool
}

func (h *lineHook) Write(b []byte) (int, error) {
	if !h.done && strings.Contains(string(b), h.word) {
		h.done = true
		h.do()
	}
	return len(b), nil
}

// testMySQLCancelledWhileServing stops the server and starts it again on
// its data dir with ctx cancelled, as Ctrl-C while mariadbd starts: the
// mariadbd started must be stopped. (On the installed dir of the running
// test, not in a Start of its own, which would install again.) Then it
// starts the server again on its port, for Close to stop.
func testMySQLCancelledWhileServing(t *testing.T, s *Services) {
	p := s.parts[0]
	t0 := time.Now()
	if err := stopMySQL(p.proc); err != nil {
		t.Fatal(err)
	}
	t.Logf("mariadbd stopped in %v", time.Since(t0).Round(time.Millisecond))
	bins, err := defaultMariaDBBins()
	if err != nil {
		t.Fatal(err)
	}
	acct, err := mysqlAccount()
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(s.MySQLURL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	m := &localMySQL{bins: bins, dir: p.dir, acct: acct}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	t0 = time.Now()
	if _, _, err := m.serve(ctx, port); err != context.Canceled {
		t.Fatalf("serve = %v; want context.Canceled", err)
	}
	t.Logf("cancelled serve returned in %v", time.Since(t0).Round(time.Millisecond))
	if procs := procsMentioning(t, p.dir); len(procs) != 0 {
		t.Fatalf("processes still running: %v", procs)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, again, err := m.serve(ctx, port)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.parts[0] = again
	s.mu.Unlock()
}

// Ctrl-C during mariadb-install-db: its mariadbd --bootstrap, a child of
// the script, is killed with it.
func TestMySQLStartCancelledDuringInstall(t *testing.T) {
	base := testBase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bootstrap := make(chan int, 1)
	hook := &lineHook{word: "mariadb-install-db", do: func() {
		go func() {
			defer cancel()
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
				if pid := procWith(base, "--bootstrap"); pid != 0 {
					bootstrap <- pid
					return
				}
			}
		}()
	}}
	s, err := Start(ctx, Config{RedisURL: shared.RedisURL, PostgresURL: shared.PostgresURL,
		MySQL: true, NoDocker: true, TempDir: base, Log: hook})
	if s != nil || err != context.Canceled {
		s.Close()
		t.Fatalf("Start = %v, %v; want nil, context.Canceled", s, err)
	}
	select {
	case pid := <-bootstrap:
		if alive(pid) {
			t.Errorf("mariadbd --bootstrap %d still alive", pid)
		}
	default:
		t.Fatal("mariadbd --bootstrap was never seen running")
	}
	assertNothingLeft(t, base)
}

func TestMissingMariaDB(t *testing.T) {
	base := testBase(t)
	_, err := Start(context.Background(), Config{RedisURL: shared.RedisURL, PostgresURL: shared.PostgresURL,
		MySQL: true, NoDocker: true, TempDir: base, find: emptyFinder(t)})
	assertOneLine(t, err)
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Service != "mysql" || ue.Hint != "sudo apt-get install -y mariadb-server" {
		t.Fatalf("err = %#v; want an UnavailableError for mysql", err)
	}
	want := "no mysql available: Docker skipped (NoDocker), no MariaDB server binaries found " +
		"(mariadbd and mariadb-install-db in PATH, /usr/sbin, /usr/bin, /usr/local/bin); install with: sudo apt-get install -y mariadb-server"
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
}

// Without MySQL or MySQLURL, Start provisions none (and needs no binaries).
func TestMySQLOnlyWhenAsked(t *testing.T) {
	s, err := Start(context.Background(), Config{RedisURL: shared.RedisURL, PostgresURL: shared.PostgresURL,
		NoDocker: true, TempDir: testBase(t), find: emptyFinder(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.MySQLURL != "" || s.MySQLSource != "" {
		t.Errorf("mysql = %q (%q); want none", s.MySQLURL, s.MySQLSource)
	}
}

func TestMySQLRefusesUntraversableBase(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root drops to another uid; checkTraversable is unit-tested")
	}
	base := filepath.Join(t.TempDir(), "base") // t.TempDir's parent is 0700
	if err := os.Mkdir(base, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Config{RedisURL: shared.RedisURL, PostgresURL: shared.PostgresURL,
		MySQL: true, NoDocker: true, TempDir: base})
	assertOneLine(t, err)
	if !strings.Contains(err.Error(), "cannot be traversed") {
		t.Fatalf("err = %v; want a traversal error", err)
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
}

func TestMySQLDSN(t *testing.T) {
	for _, c := range []struct{ url, dsn string }{
		{"mysql://root@127.0.0.1:3307/idemchaos", "root@tcp(127.0.0.1:3307)/idemchaos"},
		{"mysql://app:pw@db.example/shop", "app:pw@tcp(db.example:3306)/shop"},
		{"MariaDB://app@[::1]:3306/shop", "app@tcp([::1]:3306)/shop"},
		{"mysql://app:p%40ss%2Fw%3Ard@h:1/d%20b", "app:p@ss/w:rd@tcp(h:1)/d%20b"},
		{"mysql://app@h/db?parseTime=true&timeout=5s&sql_mode=%27ANSI%27", "app@tcp(h:3306)/db?parseTime=true&timeout=5s&sql_mode=%27ANSI%27"},
		{"mysql://app@h/", "app@tcp(h:3306)/"},
	} {
		got, err := MySQLDSN(c.url)
		if err != nil || got != c.dsn {
			t.Errorf("MySQLDSN(%q) = %q, %v; want %q", c.url, got, err, c.dsn)
			continue
		}
		if _, err := mysql.ParseDSN(got); err != nil {
			t.Errorf("the driver rejects %q: %v", got, err)
		}
	}
	cfg, err := parseMySQLURL("mysql://app:pw@db.example:3307/shop?tls=true")
	if err != nil || cfg.TLS == nil || cfg.TLS.ServerName != "db.example" {
		t.Errorf("tls=true: config %+v, %v; want TLS for server name db.example", cfg, err)
	}
	for raw, want := range map[string]string{
		"postgres://app:s3cret@h/db":              `scheme "postgres" not supported; want mysql:// or mariadb://`,
		"app:s3cret@tcp(h:3306)/db":               "no scheme",
		"mysql://app:s3cret@/db":                  "no host",
		"mysql://app:s3cret@h:port/db":            "does not parse as a URL",
		"mysql://a%3Ab:s3cret@h/db":               "cannot carry its user name",
		"mysql://:s3cret@h/db":                    "cannot carry its user name",
		"mysql://app:s3cret@h/db?parseTime=maybe": "invalid bool value",
	} {
		_, err := MySQLDSN(raw)
		assertOneLine(t, err)
		if msg := err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "s3cret") {
			t.Errorf("MySQLDSN(%q) = %q; want it to say %q, without the password", raw, msg, want)
		}
	}
}

// mysqlDB opens the database of a mysql:// URL through MySQLDSN.
func mysqlDB(t *testing.T, rawURL string) *sql.DB {
	t.Helper()
	dsn, err := MySQLDSN(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// quietDB is mysqlDB with a driver that logs nothing.
func quietDB(t *testing.T, rawURL string) *sql.DB {
	t.Helper()
	cfg, err := parseMySQLURL(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mysqlOpen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// assertNothingLeft fails when base holds anything or a process names it.
func assertNothingLeft(t *testing.T, base string) {
	t.Helper()
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
	if procs := procsMentioning(t, base); len(procs) != 0 {
		t.Errorf("processes still running: %v", procs)
	}
}

// procWith returns the pid of a live process whose command line holds
// every one of words, or 0.
func procWith(words ...string) int {
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		line := strings.ReplaceAll(string(b), "\x00", " ")
		found := true
		for _, w := range words {
			found = found && strings.Contains(line, w)
		}
		var pid int
		if _, err := fmt.Sscan(filepath.Base(filepath.Dir(m)), &pid); found && err == nil {
			return pid
		}
	}
	return 0
}

// procUID returns the real uid /proc shows for pid.
func procUID(t *testing.T, pid int) string {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			return f[1]
		}
	}
	t.Fatalf("no Uid line in /proc/%d/status", pid)
	return ""
}

func partDir(t *testing.T, s *Services, name string) string {
	t.Helper()
	for _, p := range s.parts {
		if p.name == name {
			return p.dir
		}
	}
	t.Fatalf("no %s part", name)
	return ""
}
