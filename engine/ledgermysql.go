package engine

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// mysqlBatch is how many keys (or attempt ids) one wrapped query of a
// MySQL ledger asks for: MySQL has no array parameter, so the run's keys
// go in an IN list of placeholders, in batches well under the server's
// 65,535 placeholders a statement.
const mysqlBatch = 1000

// mysqlIntegerTypes are the column types (as the driver names them) an
// amount may have on a MySQL-family server.
var mysqlIntegerTypes = []string{"TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "DECIMAL"}

// MySQLLedger reads charges from a user's MySQL or MariaDB with the user's
// query, wrapped so that only the run's keys (and keyless attempts) come
// back: the same contract as SQLLedger's on Postgres.
type MySQLLedger struct {
	db       *sql.DB
	from     string // the wrapped query up to its filter
	optional map[string]bool
}

// OpenMySQLLedger connects to the mysql:// (or mariadb://) URL and checks
// that query returns the columns a ledger needs, as OpenSQLLedger does on
// Postgres, with the same errors.
func OpenMySQLLedger(ctx context.Context, url, query string) (*MySQLLedger, error) {
	query, err := ledgerQuery(query, "?")
	if err != nil {
		return nil, err
	}
	dsn, err := provision.MySQLDSN(url)
	if err != nil {
		return nil, &BadInputError{fmt.Errorf("ledger url: %v", oneLine(err))}
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, &BadInputError{fmt.Errorf("ledger url: %v", oneLine(err))}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	cfg.Logger = &mysql.NopLogger{} // its errors are returned; it would log them too
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, &BadInputError{fmt.Errorf("ledger url: %v", oneLine(err))}
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(2)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("ledger %s: cannot connect: %s", provision.Redact(url), connectCause(err))
	}
	l := &MySQLLedger{db: db}
	if err := l.describe(ctx, query); err != nil {
		db.Close()
		return nil, &BadInputError{err}
	}
	return l, nil
}

// Close releases the connections.
func (l *MySQLLedger) Close() { _ = l.db.Close() }

// describe runs the query for its columns only and builds the wrapped query.
func (l *MySQLLedger) describe(ctx context.Context, query string) error {
	rows, err := l.db.QueryContext(ctx, "SELECT * FROM ("+query+") AS q LIMIT 0")
	if err != nil {
		return fmt.Errorf("ledger query: %v", oneLine(err))
	}
	cols, err := rows.ColumnTypes()
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return fmt.Errorf("ledger query: %v", oneLine(err))
	}
	names, types := make([]string, len(cols)), make([]string, len(cols))
	integer := false
	for i, c := range cols {
		names[i], types[i] = c.Name(), c.DatabaseTypeName()
		if c.Name() == "amount" {
			integer = slices.Contains(mysqlIntegerTypes, strings.TrimPrefix(types[i], "UNSIGNED "))
		}
	}
	optional, err := checkColumns(names, types, integer, "TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT or DECIMAL")
	if err != nil {
		return err
	}
	l.optional = optional
	sel := []string{"COALESCE(CAST(q.idempotency_key AS CHAR), '')", "COALESCE(CAST(q.account AS CHAR), '')", "CAST(q.amount AS SIGNED)"}
	for _, c := range optionalColumns {
		if optional[c] {
			sel = append(sel, "COALESCE(CAST(q."+c+" AS CHAR), '')")
		}
	}
	l.from = "SELECT " + strings.Join(sel, ", ") + " FROM (" + query + ") AS q WHERE "
	return nil
}

// Info says which optional columns the query returns.
func (l *MySQLLedger) Info() LedgerInfo {
	return LedgerInfo{ChargeIDs: l.optional["id"], AttemptIDs: l.optional["attempt_id"]}
}

// Charges returns the charges made under keys, in the order the query
// gave (batch by batch, for more keys than a batch).
//
// The filter compares the column itself (q.idempotency_key IN (...)), so
// an index on it serves; under a case-insensitive collation that may give
// back rows under a key in other letter case too, which readCharges then
// leaves out: only a key equal byte for byte is the run's.
func (l *MySQLLedger) Charges(ctx context.Context, keys []string) ([]history.Charge, error) {
	return l.read(ctx, "q.idempotency_key IN ", keys)
}

// KeylessCharges returns the charges made without a key by the attempts
// given, or none when the query names no attempt_id.
func (l *MySQLLedger) KeylessCharges(ctx context.Context, attempts []string) ([]history.Charge, error) {
	if !l.optional["attempt_id"] {
		return nil, nil
	}
	return l.read(ctx, "q.idempotency_key IS NULL AND q.attempt_id IN ", attempts)
}

// read runs the wrapped query with filter, an IN list of args, batch by batch.
func (l *MySQLLedger) read(ctx context.Context, filter string, args []string) ([]history.Charge, error) {
	var out []history.Charge
	for batch := range slices.Chunk(args, mysqlBatch) {
		in := make([]any, len(batch))
		for i, a := range batch {
			in[i] = a
		}
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(batch)), ", ")
		var err error
		if out, err = l.readBatch(ctx, l.from+filter+"("+marks+")", in, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (l *MySQLLedger) readBatch(ctx context.Context, query string, args []any, out []history.Charge) ([]history.Charge, error) {
	rows, err := l.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger query: %v", oneLine(err))
	}
	defer rows.Close()
	for rows.Next() {
		var c history.Charge
		if err := rows.Scan(scanDest(&c, l.optional)...); err != nil {
			return nil, fmt.Errorf("ledger query: row %d: %v", len(out)+1, oneLine(err))
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger query: %v", oneLine(err))
	}
	return out, nil
}
