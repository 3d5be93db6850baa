package engine

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/ledger"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/provision"

	// The InnoDB strategies register themselves: the engine deploys them.
	_ "github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// errNoMySQL: a cell of a strategy on InnoDB came to a runner without a
// MariaDB database (Env.MySQLURL).
var errNoMySQL = errors.New("this runner has no MySQL database (Env.MySQLURL): the InnoDB strategies need one")

// mysqlConnsPerReplica is an InnoDB replica's pool size, as a Postgres
// one's.
const mysqlConnsPerReplica = pgConnsPerReplica

// mysqlDSN is the driver's DSN for a MySQL URL, dialing addr instead of
// the URL's host:port when addr is set, with a dial timeout of 2 s unless
// the URL sets one (a cut link fails a new connection at once).
func mysqlDSN(url, addr string) (string, error) {
	dsn, err := provision.MySQLDSN(url)
	if err != nil {
		return "", err
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("mysql dsn: %w", err)
	}
	cfg.Addr = cmp.Or(addr, cfg.Addr)
	cfg.Timeout = cmp.Or(cfg.Timeout, 2*time.Second)
	return cfg.FormatDSN(), nil
}

// mysqlAddress is the host:port a MySQL URL names.
func mysqlAddress(url string) (string, error) {
	dsn, err := provision.MySQLDSN(url)
	if err != nil {
		return "", err
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("mysql dsn: %w", err)
	}
	return cfg.Addr, nil
}

// openInnoDB opens the runner's own pool on its MariaDB database and
// migrates the InnoDB ledger there.
func openInnoDB(ctx context.Context, url string) (*sql.DB, error) {
	dsn, err := mysqlDSN(url, "")
	if err != nil {
		return nil, err
	}
	db, err := innoledger.Open(dsn, controlConns)
	if err != nil {
		return nil, err
	}
	if err := innoledger.Migrate(ctx, db); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// sqlLedger is the ledger a cell's strategy charges in: the Postgres one,
// or the InnoDB one for a strategy on MySQL.
type sqlLedger struct {
	r      *Builtin
	innoDB bool
}

// ledgerOf is the ledger the strategy charges in; an error when it is on
// InnoDB and the runner has no MySQL database.
func (r *Builtin) ledgerOf(innoDB bool) (sqlLedger, error) {
	if innoDB && r.mysql == nil {
		return sqlLedger{}, errNoMySQL
	}
	return sqlLedger{r: r, innoDB: innoDB}, nil
}

// prepare empties the ledger, opens the accounts and counts the charges
// left (PrepareLedger).
func (l sqlLedger) prepare(ctx context.Context, accounts []workload.Account) (int, error) {
	if !l.innoDB {
		return PrepareLedger(ctx, l.r.pool, accounts)
	}
	db := l.r.mysql
	if err := innoledger.Reset(ctx, db); err != nil {
		return 0, err
	}
	if err := l.open(ctx, accounts); err != nil {
		return 0, err
	}
	return innoledger.CountCharges(ctx, db)
}

// open opens accounts, leaving what the ledger holds.
func (l sqlLedger) open(ctx context.Context, accounts []workload.Account) error {
	for _, a := range accounts {
		var err error
		if l.innoDB {
			err = innoledger.OpenAccount(ctx, l.r.mysql, a.ID, a.Currency, a.Opening)
		} else {
			err = ledger.Open(ctx, l.r.pool, a.ID, a.Currency, a.Opening)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// topUp credits an account, as money paid in by another channel.
func (l sqlLedger) topUp(ctx context.Context, account string, amount int64) error {
	var err error
	if l.innoDB {
		_, err = innoledger.TopUp(ctx, l.r.mysql, account, amount)
	} else {
		_, err = ledger.TopUp(ctx, l.r.pool, account, amount)
	}
	return err
}

// read is the ledger's ground truth.
func (l sqlLedger) read(ctx context.Context) (ledger.Snapshot, error) {
	if l.innoDB {
		return innoledger.Read(ctx, l.r.mysql)
	}
	return ledger.Read(ctx, l.r.pool)
}

// innoDBPool opens an InnoDB replica's pool, through its SQL link
// (MySQLAddr), with n connections open before it serves.
func innoDBPool(ctx context.Context, s ReplicaSpec) (*sql.DB, error) {
	dsn, err := mysqlDSN(s.MySQLURL, s.MySQLAddr)
	if err != nil {
		return nil, err
	}
	db, err := innoledger.Open(dsn, cmp.Or(s.PgConns, mysqlConnsPerReplica))
	if err != nil {
		return nil, err
	}
	if err := warmSQL(ctx, db, min(s.Warm, cmp.Or(s.PgConns, mysqlConnsPerReplica))); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// warmSQL opens n connections of db at once and returns them to its pool.
func warmSQL(ctx context.Context, db *sql.DB, n int) error {
	conns := make([]*sql.Conn, 0, n)
	var err error
	for range n {
		var c *sql.Conn
		if c, err = db.Conn(ctx); err != nil {
			break
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		_ = c.Close()
	}
	if err != nil {
		return fmt.Errorf("mysql: %w", err)
	}
	return nil
}

// awaitNoTransaction waits, at most d, until no other session of the
// ledger's database has a transaction open: a killed process's (or a cut
// link's) session is gone, what it had not committed rolled back and its
// locks freed.
// Sessions of other databases on the same server (another test's) are not
// waited for; on InnoDB a transaction whose session is already gone (still
// rolling back) is.
func (l sqlLedger) awaitNoTransaction(ctx context.Context, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		n, err := l.openTransactions(ctx)
		switch {
		case err != nil:
			return fmt.Errorf("waiting for the killed or cut session's transaction to end: %w", err)
		case n == 0:
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the killed or cut session's transaction was still open after %s", d)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// openTransactions counts the other sessions of the ledger's database
// with a transaction open (awaitNoTransaction says which count).
func (l sqlLedger) openTransactions(ctx context.Context) (n int, err error) {
	if l.innoDB {
		err = l.r.mysql.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.innodb_trx t
			LEFT JOIN information_schema.processlist p ON p.ID = t.trx_mysql_thread_id
			WHERE (p.ID IS NULL OR p.DB = DATABASE()) AND t.trx_mysql_thread_id <> CONNECTION_ID()`).Scan(&n)
		return n, err
	}
	err = l.r.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
		AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`).Scan(&n)
	return n, err
}
