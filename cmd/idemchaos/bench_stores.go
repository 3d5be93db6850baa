package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/engine"
)

// benchStores are the stores of a bench: the session (Redis, Postgres and,
// for a strategy on InnoDB, MariaDB), and the MariaDB databases made on it
// for the bench, which close drops.
type benchStores struct {
	*engine.Session
	mysql []string // MariaDB databases of the bench's own (mysql://...)
}

// opener opens a session for the strategies (engine.Open through open in
// the CLI): a MariaDB comes too when one of them is on InnoDB.
type opener func(ctx context.Context, strategies ...string) (*engine.Session, error)

// openBench opens the stores a bench of strategies needs: a MariaDB only
// when one of them is on InnoDB. When no MariaDB can be had, an optional
// one (the default strategy list, or --compare's innodb-tx) leaves out
// what needs it with one line on log naming what is left out and why, and
// the stores come without it; one asked for (--strategies, --mysql-url)
// is an environment error, exit 3. ok says whether a MariaDB came.
func openBench(ctx context.Context, open opener, strategies []string, optional bool, what string, log io.Writer) (*benchStores, bool, error) {
	if !engine.NeedsMySQL(strategies...) {
		s, err := open(ctx, strategies...)
		return wrapSession(s), false, err
	}
	s, err := open(ctx, strategies...)
	if err == nil {
		return wrapSession(s), true, nil
	}
	if !optional {
		return nil, false, envError(fmt.Errorf("bench %s: %v", strings.Join(innoDBOf(strategies), ","), unwrapExit(err)))
	}
	rest := withoutInnoDB(strategies)
	s, err2 := open(ctx, rest...)
	if err2 != nil {
		return nil, false, err2 // the stores without MariaDB failed too: theirs is the error
	}
	fmt.Fprintf(log, "bench: no MariaDB could be had (%v): %s left out\n", unwrapExit(err), what)
	return wrapSession(s), false, nil
}

func wrapSession(s *engine.Session) *benchStores {
	if s == nil {
		return nil
	}
	return &benchStores{Session: s}
}

// unwrapExit is the message of an error open wrapped for its exit code.
func unwrapExit(err error) string {
	var e *exitError
	if errors.As(err, &e) {
		return e.msg
	}
	return err.Error()
}

// newMySQLDatabase makes a MariaDB database of the bench's own, dropped by
// close.
func (s *benchStores) newMySQLDatabase(ctx context.Context) (string, error) {
	url, err := s.Services.CreateMySQLDatabase(ctx, "idemchaos")
	if err != nil {
		return "", envError(err)
	}
	s.mysql = append(s.mysql, url)
	return url, nil
}

// close drops the bench's MariaDB databases, then closes the session.
func (s *benchStores) close() {
	for _, url := range s.mysql {
		_ = s.Services.DropMySQLDatabase(context.Background(), url)
	}
	_ = s.Session.Close()
}

// innoDBOf are the strategies on InnoDB among names.
func innoDBOf(names []string) []string {
	var out []string
	for _, n := range names {
		if engine.NeedsMySQL(n) {
			out = append(out, n)
		}
	}
	return out
}

// withoutInnoDB are names but those on InnoDB.
func withoutInnoDB(names []string) []string {
	var out []string
	for _, n := range names {
		if !engine.NeedsMySQL(n) {
			out = append(out, n)
		}
	}
	return out
}

// mysqlOptional says whether a bench may go on without the MariaDB its
// strategies would use: the strategies were not named (the default list),
// and no MariaDB was (--mysql-url, IDEMCHAOS_MYSQL_URL).
func mysqlOptional(c common, named bool) bool { return !named && c.mysqlURL == "" }

// cliOpener opens sessions as the flags say, with no Builtin (a bench
// deploys its own targets).
func cliOpener(c common, log io.Writer) opener {
	return func(ctx context.Context, strategies ...string) (*engine.Session, error) {
		return open(ctx, c, 0, log, strategies...)
	}
}
