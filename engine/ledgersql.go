package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// LedgerReader reads a service's ground truth: the charges made under the
// given idempotency keys, in the ledger's order. Seq and ID may be left
// out: the Service numbers the rows in the order given and names a row
// without an id "row-N", whatever the reader; rows under other keys are
// left out.
type LedgerReader interface {
	Charges(ctx context.Context, keys []string) ([]history.Charge, error)
}

// lookup is what a run reads back of a ledger: the charges under its keys,
// and those its keyless attempts made.
type lookup struct {
	keys, keyless []string
}

// readCharges reads the ledger and numbers its rows.
func readCharges(ctx context.Context, l LedgerReader, q lookup) ([]history.Charge, error) {
	cs, err := l.Charges(ctx, q.keys)
	if err != nil {
		return nil, err
	}
	if kr, ok := l.(KeylessReader); ok && len(q.keyless) > 0 {
		more, err := kr.KeylessCharges(ctx, q.keyless)
		if err != nil {
			return nil, err
		}
		cs = append(slices.Clone(cs), more...)
	}
	out := q.only(cs)
	for i := range out {
		if out[i].Seq == 0 {
			out[i].Seq = int64(i + 1)
		}
		if out[i].ID == "" {
			out[i].ID = fmt.Sprintf("row-%d", out[i].Seq)
		}
	}
	return out, nil
}

// only keeps the charges q asked for: under its keys, or keyless by its
// keyless attempts (a ledger function may give back more: a run's own
// measuring charges, another run's rows).
func (q lookup) only(cs []history.Charge) []history.Charge {
	keys := make(map[string]bool, len(q.keys))
	for _, k := range q.keys {
		keys[k] = true
	}
	var out []history.Charge
	for _, c := range cs {
		if keys[c.Key] || c.Key == "" && slices.Contains(q.keyless, c.AttemptID) {
			out = append(out, c)
		}
	}
	return out
}

// splitKeyless parts charges read before a run into those under its keys
// (fresh per run: any is a warning) and its keyless ones: attempt ids
// repeat from run to run, so those are an earlier run's.
func splitKeyless(cs []history.Charge) (keyed, keyless []history.Charge) {
	for _, c := range cs {
		if c.Key == "" {
			keyless = append(keyless, c)
		} else {
			keyed = append(keyed, c)
		}
	}
	return keyed, keyless
}

// withoutRows is cs without one row for each of gone: same key, account,
// amount and attempt id, and the same charge id where the ledger names
// them (byID; else the ids are the reader's row numbers, which differ
// from read to read).
func withoutRows(cs, gone []history.Charge, byID bool) []history.Charge {
	if len(gone) == 0 {
		return cs
	}
	type row struct {
		key, account, id, attempt string
		amount                    int64
	}
	rowOf := func(c history.Charge) row {
		r := row{c.Key, c.Account, c.ID, c.AttemptID, c.Amount}
		if !byID {
			r.id = ""
		}
		return r
	}
	left := map[row]int{}
	for _, c := range gone {
		left[rowOf(c)]++
	}
	var out []history.Charge
	for _, c := range cs {
		r := rowOf(c)
		if left[r] > 0 {
			left[r]--
			continue
		}
		out = append(out, c)
	}
	return out
}

// Ledger query columns: required first, then optional.
var (
	requiredColumns = []string{"idempotency_key", "account", "amount"}
	optionalColumns = []string{"id", "attempt_id"}
)

// integer type OIDs an amount may have: int2, int4, int8, numeric.
var amountTypes = map[uint32]string{21: "smallint", 23: "integer", 20: "bigint", 1700: "numeric"}

// KeylessReader reads the charges made without a key, by the attempts
// that made them (X-Idemchaos-Attempt): a ledger that records the attempt
// gives them back, so a keyless ack is checked like any other.
type KeylessReader interface {
	KeylessCharges(ctx context.Context, attempts []string) ([]history.Charge, error)
}

// SQLLedger reads charges from a user's Postgres with the user's query,
// wrapped so that only the run's keys (and keyless attempts) come back.
type SQLLedger struct {
	pool     *pgxpool.Pool
	query    string // the wrapped query, $1 = the keys
	keyless  string // the wrapped query of keyless rows, $1 = the attempt ids ("": no attempt_id)
	optional map[string]bool
}

// OpenSQLLedger connects and checks that query returns the columns a
// ledger needs. A URL or query that does not fit is a *BadInputError
// saying exactly what is wrong; a ledger that cannot be reached is a plain
// error (the environment).
func OpenSQLLedger(ctx context.Context, dsn, query string) (*SQLLedger, error) {
	query, err := ledgerQuery(query, "$1")
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, &BadInputError{fmt.Errorf("ledger url: %v", oneLine(err))}
	}
	cfg.MaxConns, cfg.ConnConfig.ConnectTimeout = 2, 5*time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, &BadInputError{fmt.Errorf("ledger url: %v", oneLine(err))}
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ledger %s: cannot connect: %s", provision.Redact(dsn), connectCause(err))
	}
	l := &SQLLedger{pool: pool}
	if err := l.describe(ctx, query); err != nil {
		pool.Close()
		return nil, &BadInputError{err}
	}
	return l, nil
}

// connectCause is why a connection failed, once: pgx joins the same dial
// error for each attempt it made.
func connectCause(err error) string {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Error()
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Message
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return my.Message
	}
	return oneLine(err)
}

// Close releases the connections.
func (l *SQLLedger) Close() { l.pool.Close() }

// describe runs the query for its columns only and builds the wrapped query.
func (l *SQLLedger) describe(ctx context.Context, query string) error {
	rows, err := l.pool.Query(ctx, "SELECT * FROM ("+query+") AS q LIMIT 0")
	if err != nil {
		return fmt.Errorf("ledger query: %v", oneLine(err))
	}
	fields := rows.FieldDescriptions()
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ledger query: %v", oneLine(err))
	}
	names, typeNames := make([]string, len(fields)), make([]string, len(fields))
	var amountOID uint32
	for i, f := range fields {
		names[i], typeNames[i] = f.Name, fmt.Sprintf("oid %d", f.DataTypeOID)
		if f.Name == "amount" {
			amountOID = f.DataTypeOID
		}
	}
	_, integer := amountTypes[amountOID]
	optional, err := checkColumns(names, typeNames, integer, "smallint, integer, bigint or numeric")
	if err != nil {
		return err
	}
	l.optional = optional
	sel := []string{"coalesce(q.idempotency_key::text, '')", "coalesce(q.account::text, '')", "q.amount::bigint"}
	for _, c := range optionalColumns {
		if optional[c] {
			sel = append(sel, "coalesce(q."+c+"::text, '')")
		}
	}
	from := "SELECT " + strings.Join(sel, ", ") + " FROM (" + query + ") AS q WHERE "
	l.query = from + "q.idempotency_key::text = ANY($1::text[])"
	if l.optional["attempt_id"] {
		l.keyless = from + "q.idempotency_key IS NULL AND q.attempt_id::text = ANY($1::text[])"
	}
	return nil
}

// checkColumns checks the columns a ledger query returns, the same for
// every SQL engine: names in order, types[i] the type of names[i] as that
// engine calls it; integer says whether amount's type is an integer
// number, want which types are. It returns the optional columns there.
func checkColumns(names, types []string, integer bool, want string) (map[string]bool, error) {
	typeOf := map[string]string{}
	for i, n := range names {
		if _, dup := typeOf[n]; dup {
			return nil, fmt.Errorf("ledger query: column %s appears twice", n)
		}
		typeOf[n] = types[i]
	}
	have := strings.Join(names, ", ")
	for _, c := range requiredColumns {
		if _, ok := typeOf[c]; !ok {
			return nil, fmt.Errorf("ledger query: no column %s (it returns: %s); want one row per charge with idempotency_key, account, amount (alias yours: SELECT reference AS idempotency_key, ...)", c, have)
		}
	}
	if !integer {
		return nil, fmt.Errorf("ledger query: column amount has type %s; want an integer number of minor units (%s)", typeOf["amount"], want)
	}
	optional := map[string]bool{}
	for _, c := range optionalColumns {
		_, optional[c] = typeOf[c]
	}
	return optional, nil
}

// Info says which optional columns the query returns.
func (l *SQLLedger) Info() LedgerInfo {
	return LedgerInfo{ChargeIDs: l.optional["id"], AttemptIDs: l.optional["attempt_id"]}
}

// Charges returns the charges made under keys, in the order the query gave.
func (l *SQLLedger) Charges(ctx context.Context, keys []string) ([]history.Charge, error) {
	return l.read(ctx, l.query, keys)
}

// KeylessCharges returns the charges made without a key by the attempts
// given, or none when the query names no attempt_id.
func (l *SQLLedger) KeylessCharges(ctx context.Context, attempts []string) ([]history.Charge, error) {
	if l.keyless == "" {
		return nil, nil
	}
	return l.read(ctx, l.keyless, attempts)
}

func (l *SQLLedger) read(ctx context.Context, query string, arg []string) ([]history.Charge, error) {
	rows, err := l.pool.Query(ctx, query, arg)
	if err != nil {
		return nil, fmt.Errorf("ledger query: %v", oneLine(err))
	}
	defer rows.Close()
	var out []history.Charge
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

// scanDest is where a row of a wrapped ledger query goes: key, account,
// amount, then the optional columns the query has, in their order.
func scanDest(c *history.Charge, optional map[string]bool) []any {
	dest := []any{&c.Key, &c.Account, &c.Amount}
	if optional["id"] {
		dest = append(dest, &c.ID)
	}
	if optional["attempt_id"] {
		dest = append(dest, &c.AttemptID)
	}
	return dest
}

// oneLine keeps an error to one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
