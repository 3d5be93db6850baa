package strategytest

import (
	"context"
	"database/sql"

	"github.com/idemchaos/idemchaos/targets/ledger"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/strategy"

	// The InnoDB designs register themselves (strategy.Register) when
	// linked: without this import design.Catalog() would not hold them,
	// and the table would not run them.
	_ "github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// innoConns is the size of an InnoDB strategy's pool in the table, as
// openPool's for Postgres: the in-flight case holds one connection open.
const innoConns = 8

// innoStores are the MariaDB pools of a case on a strategy on InnoDB:
// the strategy's own (strategy.Deps.MySQL), and the case's, which reads
// the ledger, funds the account and kills the strategy's connection, so
// that the case never takes a connection from the strategy's pool.
type innoStores struct {
	strategy *sql.DB
	admin    *sql.DB
}

// onInnoDB gives the fixture a fresh MariaDB database with the InnoDB
// ledger and the case's account, and a pool on it for the strategy.
func (f *fixture) onInnoDB(ctx context.Context) {
	dsn, err := provision.MySQLDSN(provisiontest.MySQLDatabase(f.t, services))
	if err != nil {
		f.t.Fatal(err)
	}
	f.inno = &innoStores{strategy: f.openInnoDB(dsn), admin: f.openInnoDB(dsn)}
	if err := innoledger.Migrate(ctx, f.inno.admin); err != nil {
		f.t.Fatal(err)
	}
	if err := innoledger.OpenAccount(ctx, f.inno.admin, account, "EUR", opening); err != nil {
		f.t.Fatal(err)
	}
	f.deps = strategy.Deps{MySQL: f.inno.strategy}
	f.book = innoBook{f.inno.admin}
}

// openInnoDB opens a pool as the engine's replicas do (innoledger.Open),
// closed when the test ends, before its database is dropped.
func (f *fixture) openInnoDB(dsn string) *sql.DB {
	f.t.Helper()
	db, err := innoledger.Open(dsn, innoConns)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = db.Close() })
	return db
}

// innoBook is the InnoDB ledger on a pool.
type innoBook struct{ db *sql.DB }

func (b innoBook) read(ctx context.Context) (ledger.Snapshot, error) {
	return innoledger.Read(ctx, b.db)
}

func (b innoBook) topUp(ctx context.Context, id string, amount int64) error {
	_, err := innoledger.TopUp(ctx, b.db, id, amount)
	return err
}
