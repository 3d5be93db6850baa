package provision

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// mysqlDefaultPort is the port of a MySQL URL that names none.
const mysqlDefaultPort = "3306"

// MySQLDSN turns a MySQL URL, as users write it,
//
//	mysql://user:password@host:port/database?param=value&...
//
// (or mariadb://; port 3306 when it names none; user name, password and
// database percent-encoded as in any URL) into the DSN of the Go driver
// github.com/go-sql-driver/mysql: user:password@tcp(host:port)/database?....
// The query parameters are the driver's (parseTime=true, tls=true,
// timeout=5s, ...; one it does not know sets a session variable). This is
// the one place that conversion is made. Its errors are one line and never
// echo a password.
func MySQLDSN(rawURL string) (string, error) {
	cfg, err := parseMySQLURL(rawURL)
	if err != nil {
		return "", err
	}
	return cfg.FormatDSN(), nil
}

// parseMySQLURL validates a MySQL URL and returns the driver's config for it.
func parseMySQLURL(raw string) (*mysql.Config, error) {
	if err := checkScheme("mysql", raw, "mysql", "mariadb"); err != nil {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errUnparsable("mysql", raw)
	}
	shown := redactAs(raw, legacyMask)
	if u.Hostname() == "" {
		return nil, fmt.Errorf("invalid mysql URL %q: no host", shown)
	}
	cfg, err := mysql.ParseDSN("/?" + u.RawQuery) // the driver reads its own parameters
	if err != nil {
		return nil, wrapLine(redactedErr(err, raw), "invalid mysql URL %q", shown)
	}
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(u.Hostname(), cmp.Or(u.Port(), mysqlDefaultPort))
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	// Parsed again from the DSN, the config is what the driver will use
	// (tls=true takes its server name from the address); and a user name
	// the DSN cannot carry (one with a ':') shows here.
	back, err := mysql.ParseDSN(cfg.FormatDSN())
	if err != nil || back.User != cfg.User || back.Passwd != cfg.Passwd || back.Addr != cfg.Addr || back.DBName != cfg.DBName {
		return nil, fmt.Errorf("invalid mysql URL %q: the driver's DSN cannot carry its user name, password or database (a ':' in the user name?)", shown)
	}
	return back, nil
}

// pingMySQLURL validates and pings a MySQL URL given by the user.
func pingMySQLURL(ctx context.Context, raw string) error {
	cfg, err := parseMySQLURL(raw)
	if err != nil {
		return err
	}
	if _, err := mysqlAsk(ctx, cfg, urlPingTimeout, ""); err != nil {
		return wrapLine(redactedErr(err, raw), "mysql at %s is unreachable", redactAs(raw, legacyMask))
	}
	return nil
}

// mysqlAsk connects with cfg within timeout and returns the one text value
// query answers (nothing for no query: the connection was the question).
func mysqlAsk(ctx context.Context, cfg *mysql.Config, timeout time.Duration, query string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	db, err := mysqlOpen(cfg)
	if err != nil {
		return "", err
	}
	defer db.Close()
	if query == "" {
		return "", db.PingContext(ctx)
	}
	var got string
	err = db.QueryRowContext(ctx, query).Scan(&got)
	return got, err
}

// mysqlExec runs statements in turn on one fresh connection.
func mysqlExec(ctx context.Context, cfg *mysql.Config, stmts ...string) error {
	db, err := mysqlOpen(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// mysqlOpen opens a pool of one connection on cfg whose driver logs
// nothing: its errors are returned, and a server still starting (or a
// container's port before its server listens) makes it log stray EOFs.
func mysqlOpen(cfg *mysql.Config) (*sql.DB, error) {
	c := cfg.Clone()
	c.Logger = &mysql.NopLogger{}
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	return db, nil
}

// mysqlIdent quotes a MySQL identifier.
func mysqlIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
